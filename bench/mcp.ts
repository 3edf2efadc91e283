/**
 * The tool server under load: `pkgcat serve` (a child process, as an operator runs it) answering
 * JSON-RPC tools/call POSTs on /api/mcp from CLIENTS concurrent clients on loopback, each a
 * keep-alive connection sending the next call as soon as the last is answered (what an MCP
 * client sends on the wire: a stateless server needs no initialize before a call).
 *
 *   npm run bench -- mcp --corpus-dir <dir>                            vcpkg-300 (about a minute)
 *   npm run bench -- mcp --corpus vcpkg-5000 --corpus-dir <dir>        the recorded run (adds a 3-minute build)
 *   npm run bench -- mcp --mcp-out <dir>                               a built output directory
 *
 * Calls measured: search_packages by a package's name (what agents ask most), by the word most
 * descriptions hold (the worst query: it matches the most packages), by the category and by the
 * severity most packages have (the vcpkg corpora have no categories, so no category search there), and get_package of zlib (the serve suite's
 * package, a typical record: the target applies to it) and of the package with the largest record;
 * and, as a baseline of the machine and the clients, a plain GET of zlib's record by the same clients. Every answer is checked (200, no isError) before and
 * while timing. Per call: calls/s, p50/p90/p99/max latency, and the gateway's CPU time per call
 * (/proc/<pid>/stat: what a call costs, whatever else the machine runs). The gateway's RSS
 * (/proc/<pid>/status VmRSS) is read after a warm-up and after each run: flat memory as calls
 * go on. Targets (issue 9): search_packages p50 < 5 ms and p99 < 20 ms, get_package p50 < 2 ms.
 * Results go to bench/results/mcp-<corpus>.json.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import type { ListingBundle } from '../src/schemas/wire.ts';
import { assembleBody, paths, readJson, readStateRoot, type ReleaseInfo } from '../src/store/layout.ts';
import { startServeProcess } from './helpers/serve-process.ts';
import { checkChild, count, git, machine, mib, projectRevision, runChild, secs, table, writeResults } from './lib.ts';
import { makeDemoCatalog } from '../demo/make-demo-catalog.ts';
import type { Suite, SuiteContext } from './suite.ts';
import { exportRelease } from '../build/export.ts';

export const TARGETS = {
  searchP50Ms: 5,
  searchP99Ms: 20,
  getPackageP50Ms: 2,
} as const;

const CORPORA = ['vcpkg-300', 'vcpkg-5000', 'demo'];

/** `--corpus`: a vcpkg bundle of --corpus-dir, or `demo` (the demo catalog, generated). */
export function corpusOption(values: SuiteContext['values']): string {
  const corpus = typeof values.corpus === 'string' ? values.corpus : 'vcpkg-300';
  if (!CORPORA.includes(corpus)) throw new Error(`--corpus must be one of ${CORPORA.join(', ')}`);
  return corpus;
}

/** The output directory to measure: --mcp-out, or the corpus cloned (or the demo catalog written) and built by the real CLI. */
export async function builtOutput(context: SuiteContext, corpus: string, suite: string): Promise<string> {
  const { root, work, values, log } = context;
  if (typeof values['mcp-out'] === 'string' && values['mcp-out'] !== '') return values['mcp-out'];
  const repo = join(work, 'repo');
  const out = join(work, 'out');
  log(`${suite}: ${corpus === 'demo' ? 'writing the demo catalog' : `cloning ${corpus}`} and building it (pkgcat build)`);
  if (corpus === 'demo') await makeDemoCatalog(repo);
  else git(work, ['clone', '-q', context.corpusFile(`${corpus}.bundle`), repo]);
  const built = checkChild('pkgcat build', await runChild(process.execPath, [join(root, 'bin/pkgcat.js'), 'build', '--repo', repo, '--out', out, '--quiet'], { cwd: root }));
  log(`${suite}: built in ${secs(built.seconds)}`);
  return out;
}
const CLIENTS = 16;

interface Call {
  readonly label: string;
  /** A tool, or `GET` for the baseline: the same record over plain HTTP, by the same clients. */
  readonly tool: string;
  readonly args: Record<string, unknown>;
  /** The baseline's path. */
  readonly path?: string;
}

interface Figures {
  label: string;
  tool: string;
  args: Record<string, unknown>;
  /** Bytes of one answer (the JSON-RPC body). */
  answerBytes: number;
  calls: number;
  callsPerSecond: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The gateway's CPU time (user + system) per call: what a call costs whatever else the machine runs. */
  gatewayCpuMsPerCall: number;
  gatewayRssMiB: number;
}

/** CPU seconds (user + system) a process has used: /proc/<pid>/stat utime and stime, in clock ticks of 1/100 s. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function rssMiB(pid: number): number {
  const kib = Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kib / 1024;
}

/** One tools/call POST (or a GET when `body` is null); resolves with the answer's bytes once checked (200; a result, not isError). */
function callOnce(agent: Agent, url: string, body: string | null): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = body === null ? {} : { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': Buffer.byteLength(body) };
    const sent = request(url, { agent, method: body === null ? 'GET' : 'POST', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        // The answer's shape, without parsing it all: a JSON-RPC result that is not an error result.
        const ok = response.statusCode === 200 && (body === null || (text.startsWith('{"result":') && !text.includes('"isError":true')));
        if (!ok) reject(new Error(`${response.statusCode} ${text.slice(0, 300)}`));
        else resolve(text.length);
      });
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** CLIENTS loops calling `call` for `seconds`; latencies of every call. */
async function load(base: string, call: Call, seconds: number): Promise<{ latencies: number[]; elapsed: number; bytes: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  const url = `${base}${call.path ?? '/api/mcp'}`;
  const body = call.path ? null : JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: call.tool, arguments: call.args } });
  const latencies: number[] = [];
  let bytes = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < until) {
        const before = performance.now();
        bytes = await callOnce(agent, url, body);
        latencies.push(performance.now() - before);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  return { latencies, elapsed, bytes };
}

/** The value most packages of the listing have (a category or a severity), with how many. */
function mostCommon(values: string[][]): { value: string; packages: number } {
  const counts = new Map<string, number>();
  for (const list of values) for (const value of new Set(list)) counts.set(value, (counts.get(value) ?? 0) + 1);
  const [value, packages] = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0] ?? ['', 0];
  return { value, packages };
}

export const suite: Suite = {
  name: 'mcp',
  description: `the tool server: search_packages and get_package calls/s and latency, ${CLIENTS} concurrent clients over HTTP`,
  options: {
    corpus: { type: 'string' },
    duration: { type: 'string' },
    'mcp-out': { type: 'string' },
  },
  usage: [
    '--corpus <name>     vcpkg-300 (default) or vcpkg-5000, a bundle in --corpus-dir; or demo, the demo catalog',
    '--duration <s>      seconds per call measured (default 10, after 2 s of warm-up)',
    '--mcp-out <dir>     measure an existing build output instead of building the corpus first',
  ],
  run,
};

async function run(context: SuiteContext): Promise<void> {
  const { root, work, values, log } = context;
  const corpus = corpusOption(values);
  const duration = Number(typeof values.duration === 'string' ? values.duration : 10);
  if (!(duration > 0 && duration <= 120)) throw new Error('--duration must be 1 to 120 s');

  const out = await builtOutput(context, corpus, 'mcp');

  // What is asked: from the tip's listing bundle, the category and severity most packages have, and
  // the word of a description most packages hold; get_package of the largest record.
  const current = paths.current(out);
  const release = await readJson<ReleaseInfo>(paths.releaseInfo(current));
  const tipRoot = await readStateRoot(out, release.tip!.sha);
  const listing = JSON.parse((await assembleBody(out, tipRoot!.listing)).toString('utf8')) as ListingBundle;
  const category = mostCommon(listing.packages.map((card) => card.categories));
  const severity = mostCommon(listing.packages.map((card) => card.advisories.map((advisory) => advisory.severity)));
  const word = mostCommon(listing.packages.map((card) => card.description.toLowerCase().split(/[^a-z0-9]+/).filter((one) => one.length >= 4)));
  // The records' sizes, from the files pkgcat export writes.
  const exportDir = `${out}-export`;
  await exportRelease(out, exportDir);
  const recordsDir = join(paths.public(exportDir), 'api', 'pkgs');
  const records = readdirSync(recordsDir)
    .filter((file) => file.endsWith('.json') && file !== 'recent-commits.json' && file !== 'openapi.json')
    .map((file) => ({ name: file.slice(0, -'.json'.length), bytes: statSync(join(recordsDir, file)).size }))
    .sort((a, b) => b.bytes - a.bytes);
  const largest = records[0];
  // The serve suite's package: zlib, a typical record.
  const typical = records.find((record) => record.name === 'zlib') ?? records[Math.floor(records.length / 2)];
  const calls: Call[] = [
    { label: `search_packages query "${typical.name}"`, tool: 'search_packages', args: { query: typical.name } },
    { label: `search_packages query "${word.value}" (${count(word.packages)} matches, the worst)`, tool: 'search_packages', args: { query: word.value } },
    // The vcpkg corpora have no categories (corpus README: vcpkg has nothing to derive them from).
    ...(category.packages > 0 ? [{ label: `search_packages category "${category.value}" (${count(category.packages)})`, tool: 'search_packages', args: { category: category.value } }] : []),
    ...(severity.packages > 0 ? [{ label: `search_packages severity "${severity.value}" (${count(severity.packages)})`, tool: 'search_packages', args: { severity: severity.value } }] : []),
    { label: `get_package "${typical.name}" (${count(typical.bytes)} B record)`, tool: 'get_package', args: { name: typical.name } },
    { label: `get_package "${largest.name}" (${count(largest.bytes)} B, the largest)`, tool: 'get_package', args: { name: largest.name } },
    { label: `baseline: GET /api/pkgs/${typical.name}.json`, tool: 'GET', args: {}, path: `/api/pkgs/${typical.name}.json` },
  ];
  log(`mcp: ${corpus}, ${count(listing.packages.length)} packages at the tip, ${count(release.commitCount)} commits; ${CLIENTS} clients, ${duration} s per call`);
  if (category.packages === 0) log('mcp: no package has a category at the tip: no category search is measured');

  const gateway = await startServeProcess(['--out', out, '--session-dir', join(work, 'sessions')]);
  const results: Figures[] = [];
  let rssWarm = 0;
  try {
    const url = gateway.url;
    // Warm-up: every call once (the search index of the release is built by the first search), then 2 s of load.
    for (const call of calls) await load(url, call, 0.2);
    await load(url, calls[0], 2);
    rssWarm = rssMiB(gateway.pid);
    for (const call of calls) {
      const cpuBefore = cpuSeconds(gateway.pid);
      const { latencies, elapsed, bytes } = await load(url, call, duration);
      const cpu = cpuSeconds(gateway.pid) - cpuBefore;
      latencies.sort((a, b) => a - b);
      const round = (ms: number) => Math.round(ms * 100) / 100;
      results.push({
        label: call.label,
        tool: call.tool,
        args: call.args,
        answerBytes: bytes,
        calls: latencies.length,
        callsPerSecond: Math.round(latencies.length / elapsed),
        p50Ms: round(percentile(latencies, 50)),
        p90Ms: round(percentile(latencies, 90)),
        p99Ms: round(percentile(latencies, 99)),
        maxMs: round(latencies[latencies.length - 1]),
        gatewayCpuMsPerCall: Math.round((cpu * 1000 * 1000) / latencies.length) / 1000,
        gatewayRssMiB: Math.round(rssMiB(gateway.pid) * 10) / 10,
      });
    }
  } finally {
    await gateway.stop();
  }

  log(
    table(
      ['call', 'answer', 'calls/s', 'p50', 'p90', 'p99', 'max', 'gateway CPU/call', 'gateway RSS after'],
      results.map((figures) => [
        figures.label,
        `${count(figures.answerBytes)} B`,
        count(figures.callsPerSecond),
        `${figures.p50Ms} ms`,
        `${figures.p90Ms} ms`,
        `${figures.p99Ms} ms`,
        `${figures.maxMs} ms`,
        `${figures.gatewayCpuMsPerCall} ms`,
        mib(figures.gatewayRssMiB * 1024 * 1024),
      ]),
    ),
  );
  log(`mcp: gateway RSS after warm-up ${mib(rssWarm * 1024 * 1024)}`);
  const searches = results.filter((figures) => figures.tool === 'search_packages');
  const getPackage = results.find((figures) => figures.tool === 'get_package' && figures.args.name === typical.name)!;
  const targets = {
    searchP50: searches.every((figures) => figures.p50Ms < TARGETS.searchP50Ms),
    searchP99: searches.every((figures) => figures.p99Ms < TARGETS.searchP99Ms),
    getPackageP50: getPackage.p50Ms < TARGETS.getPackageP50Ms,
  };
  log(`mcp: targets (search p50 < ${TARGETS.searchP50Ms} ms, p99 < ${TARGETS.searchP99Ms} ms; get_package p50 < ${TARGETS.getPackageP50Ms} ms): ${JSON.stringify(targets)}`);
  const file = await writeResults(context.resultsDir, `mcp-${corpus}`, {
    suite: 'mcp',
    corpus,
    clients: CLIENTS,
    durationSeconds: duration,
    packages: listing.packages.length,
    commits: release.commitCount,
    machine: machine(),
    project: projectRevision(root),
    gatewayRssAfterWarmUpMiB: Math.round(rssWarm * 10) / 10,
    results,
    targets: { ...TARGETS, met: targets },
  });
  log(`mcp: results in ${file}`);
}
