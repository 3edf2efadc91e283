/**
 * How large the tool server's results get (issue 9: "results are complete, never silently cut;
 * document the largest result of each tool"): every tool called for every package at the tip
 * (each SBOM format; every page of search_packages at limit 50; list_catalog_commits at 50), over
 * HTTP against `pkgcat serve`, keeping the largest text block of each tool, the package it came
 * from, and the median. The text block is what an agent reads; the JSON-RPC answer carries the
 * same JSON again as structuredContent, so it is about twice as large.
 *
 *   npm run bench -- mcp-sizes --corpus demo                            the demo catalog
 *   npm run bench -- mcp-sizes --corpus vcpkg-5000 --corpus-dir <dir>   (or --mcp-out <a built output>)
 *
 * Results go to bench/results/mcp-sizes-<corpus>.json; docs/mcp.md quotes them.
 */
import { join } from 'node:path';
import { paths, readJson, type ReleaseInfo } from '../src/store/layout.ts';
import { startServeProcess } from './helpers/serve-process.ts';
import { builtOutput, corpusOption } from './mcp.ts';
import { count, machine, median, projectRevision, table, writeResults } from './lib.ts';
import type { Suite, SuiteContext } from './suite.ts';

const PARALLEL = 8;

interface Size {
  tool: string;
  calls: number;
  largestTextBytes: number;
  largestArguments: Record<string, unknown>;
  largestAnswerBytes: number;
  medianTextBytes: number;
}

/** One tools/call: the bytes of its text block and of the whole answer; throws on an error result. */
async function call(url: string, tool: string, args: Record<string, unknown>): Promise<{ text: number; answer: number }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } }),
  });
  const answer = await response.text();
  const { result } = JSON.parse(answer) as { result?: { isError?: boolean; content: { text: string }[] } };
  if (!result || result.isError) throw new Error(`${tool} ${JSON.stringify(args)}: ${answer.slice(0, 300)}`);
  return { text: Buffer.byteLength(result.content[0].text), answer: Buffer.byteLength(answer) };
}

async function measure(url: string, tool: string, argumentList: Record<string, unknown>[]): Promise<Size> {
  const texts: number[] = [];
  let largest: Size = { tool, calls: argumentList.length, largestTextBytes: -1, largestArguments: {}, largestAnswerBytes: 0, medianTextBytes: 0 };
  let next = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < argumentList.length) {
        const args = argumentList[next++];
        const { text, answer } = await call(url, tool, args);
        texts.push(text);
        if (text > largest.largestTextBytes) largest = { ...largest, largestTextBytes: text, largestArguments: args, largestAnswerBytes: answer };
      }
    }),
  );
  return { ...largest, medianTextBytes: median(texts) };
}

export const suite: Suite = {
  name: 'mcp-sizes',
  description: 'the largest result of each tool, every package at the tip called over HTTP',
  options: {
    corpus: { type: 'string' },
    'mcp-out': { type: 'string' },
  },
  usage: ['(--corpus and --mcp-out as for mcp; --corpus demo writes and builds the demo catalog)'],
  run,
};

async function run(context: SuiteContext): Promise<void> {
  const { root, work, log } = context;
  const corpus = corpusOption(context.values);
  const out = await builtOutput(context, corpus, 'mcp-sizes');
  const current = paths.current(out);
  const release = await readJson<ReleaseInfo>(paths.releaseInfo(current));
  const names = Object.values(await readJson<Record<string, string>>(paths.names(current)));
  const gateway = await startServeProcess(['--out', out, '--session-dir', join(work, 'sessions')]);
  const sizes: Size[] = [];
  try {
    const url = `${gateway.url}/api/mcp`;
    const each = (extra: Record<string, unknown> = {}) => names.map((name) => ({ name, ...extra }));
    const pages = Array.from({ length: Math.ceil(names.length / 50) }, (_, page) => ({ limit: 50, offset: page * 50 }));
    const plan: [string, Record<string, unknown>[]][] = [
      ['search_packages', pages],
      ['get_package', each()],
      ['get_package_versions', each()],
      ['get_advisories', each()],
      ['get_dependencies', each()],
      ['get_sbom', [...each({ format: 'cyclonedx' }), ...each({ format: 'spdx' })]],
      ['list_catalog_commits', [{ limit: 50 }]],
    ];
    for (const [tool, argumentList] of plan) {
      log(`mcp-sizes: ${tool}, ${count(argumentList.length)} calls`);
      sizes.push(await measure(url, tool, argumentList));
    }
  } finally {
    await gateway.stop();
  }
  log(
    table(
      ['tool', 'calls', 'median text', 'largest text', 'its JSON-RPC answer', 'largest for'],
      sizes.map((size) => [
        size.tool,
        count(size.calls),
        `${count(size.medianTextBytes)} B`,
        `${count(size.largestTextBytes)} B`,
        `${count(size.largestAnswerBytes)} B`,
        JSON.stringify(size.largestArguments),
      ]),
      [false, true, true, true, true, false],
    ),
  );
  const file = await writeResults(context.resultsDir, `mcp-sizes-${corpus}`, {
    suite: 'mcp-sizes',
    corpus,
    packages: names.length,
    commits: release.commitCount,
    tip: release.tip?.sha ?? null,
    machine: machine(),
    project: projectRevision(root),
    sizes,
  });
  log(`mcp-sizes: results in ${file}`);
}
