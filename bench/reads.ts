/**
 * Per-package reads at an old sha (what SBOMs and the tool server need): one package's record,
 * its transitive advisories and its build and runtime closure, read through the gateway's
 * Catalog from the state root's keyed chunks, never assembling the full bundle.
 *
 *   npm run bench -- reads --corpus vcpkg-5000 [--reads-out <a built output directory>]
 *
 * Without --reads-out the corpus is cloned and built first (the build suite's full build).
 * Cold: a new Catalog (no parsed root, chunk or file kept in the process; the operating
 * system's page cache is warm, as on a running server). Warm: the same reads again, median of
 * WARM_ROUNDS. The package is the one with the largest closure at that commit.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Catalog } from '../gateway/catalog.ts';
import { paths, readJson, readObject, type ReleaseInfo } from '../src/store/layout.ts';
import type { CommitInfo } from '../src/compose/types.ts';
import { checkChild, count, machine, median, projectRevision, runChild, table, writeResults } from './lib.ts';
import type { Suite } from './suite.ts';

const WARM_ROUNDS = 200;
const CORPORA = ['vcpkg-300', 'vcpkg-5000', 'vcpkg-16193'];

async function readAll(catalog: Catalog, sha: string, key: string) {
  const root = (await catalog.stateRoot(sha))!;
  const record = await catalog.record(root, key);
  const transitive = await catalog.transitive(root, key);
  const closure = await catalog.closure(root, key);
  return { record, transitive, closure };
}

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await run();
  return { ms: performance.now() - started, value };
}

/** The package with the largest closure at `sha`, found with a warm catalog of its own. */
async function largestClosure(out: string, sha: string): Promise<{ key: string; size: number }> {
  const catalog = new Catalog(out, () => {});
  const root = (await catalog.stateRoot(sha))!;
  let best = { key: '', size: -1 };
  // Every package present at the commit: the index entries that have a deps.json.
  for (const chunk of root.packages) {
    const entries = JSON.parse((await readObject(out, chunk.object)).toString('utf8')) as Record<string, { deps?: string }>;
    for (const [key, entry] of Object.entries(entries)) {
      if (!entry.deps) continue;
      const closure = await catalog.closure(root, key);
      if (closure && closure.packages.size > best.size) best = { key, size: closure.packages.size };
    }
  }
  return best;
}

export const suite: Suite = {
  name: 'reads',
  description: 'per-package reads at an old sha: record, transitive advisories, closure; cold and warm',
  options: {
    corpus: { type: 'string' },
    'reads-out': { type: 'string' },
  },
  usage: ['--reads-out <dir>              measure an existing build output instead of building the corpus first'],
  async run(context) {
    const corpus = typeof context.values.corpus === 'string' ? context.values.corpus : 'vcpkg-5000';
    if (!CORPORA.includes(corpus)) throw new Error(`--corpus must be one of ${CORPORA.join(', ')}, not ${corpus}`);
    let out = typeof context.values['reads-out'] === 'string' ? context.values['reads-out'] : null;
    if (!out) {
      const repo = join(context.work, 'catalog');
      out = join(context.work, 'out');
      checkChild('git clone', await runChild('git', ['clone', '-q', context.corpusFile(`${corpus}.bundle`), repo], { cwd: context.work }));
      context.log(`reads: building ${corpus} (the build suite measures this build)...`);
      checkChild('pkgcat build', await runChild(process.execPath, [join(context.root, 'bin', 'pkgcat.js'), 'build', '--repo', repo, '--out', out, '--quiet'], { cwd: context.root }));
    }
    const release = paths.release(out, (await readdir(paths.releases(out))).filter((name) => !name.startsWith('.')).sort().pop()!);
    const info = await readJson<ReleaseInfo>(paths.releaseInfo(release));
    const chain = await readJson<CommitInfo[]>(paths.chain(release));
    const rows: Record<string, unknown>[] = [];
    // The oldest commit and the one in the middle of the history.
    for (const [label, commit] of [['oldest', chain[chain.length - 1]], ['middle', chain[Math.floor(chain.length / 2)]]] as const) {
      const { key, size } = await largestClosure(out, commit.sha);
      const cold = await timed(() => readAll(new Catalog(out!, () => {}), commit.sha, key));
      const warmCatalog = new Catalog(out, () => {});
      await readAll(warmCatalog, commit.sha, key);
      const warm: number[] = [];
      for (let round = 0; round < WARM_ROUNDS; round++) warm.push((await timed(() => readAll(warmCatalog, commit.sha, key))).ms);
      rows.push({
        commit: label,
        sha: commit.sha,
        package: cold.value.record!.name,
        closurePackages: size,
        transitiveEntries: cold.value.transitive.length,
        coldMs: Number(cold.ms.toFixed(2)),
        warmMedianMs: Number(median(warm).toFixed(3)),
      });
    }
    context.log(
      table(
        ['commit', 'package', 'closure', 'transitive', 'cold', 'warm (median)'],
        rows.map((row) => [String(row.commit), String(row.package), count(row.closurePackages as number), count(row.transitiveEntries as number), `${row.coldMs} ms`, `${row.warmMedianMs} ms`]),
      ),
    );
    const file = await writeResults(context.resultsDir, `reads-${corpus}`, {
      suite: 'reads',
      corpus,
      commits: info.commitCount,
      machine: machine(),
      project: projectRevision(context.root),
      measuredAt: new Date().toISOString(),
      warmRounds: WARM_ROUNDS,
      rows,
    });
    context.log(`reads: results in ${file}`);
  },
};
