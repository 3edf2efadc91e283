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
 *
 * SBOMs of that package at that commit, through the gateway's resolver: the first request
 * (composed from the per-package reads with a cold catalog, written once) and repeated ones
 * (median of WARM_ROUNDS); and the floating CycloneDX files of the release (count, bytes).
 */
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Catalog } from '../gateway/catalog.ts';
import { pinnedSbom } from '../gateway/answers/sbom.ts';
import { Releases } from '../gateway/release.ts';
import { paths, readJson, readObject, type ReleaseInfo } from '../src/store/layout.ts';
import type { CommitInfo } from '../src/compose/types.ts';
import { checkChild, count, machine, median, projectRevision, runChild, table, writeResults } from './lib.ts';
import type { Suite } from './suite.ts';
import { exportRelease } from '../build/export.ts';

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
    const sbomRows: Record<string, unknown>[] = [];
    for (const row of rows) {
      for (const format of ['cyclonedx', 'spdx'] as const) {
        const sha = row.sha as string;
        const key = (row.package as string).toLowerCase();
        await rm(join(out, 'cache', 'sboms', sha), { recursive: true, force: true });
        const request = (catalog: Catalog) => {
          const releases = new Releases(out!);
          return { catalog, release: () => releases.current(), params: { sha, name: row.package as string }, packageKey: key, query: { format } };
        };
        const first = await timed(() => pinnedSbom(request(new Catalog(out!, () => {}))));
        const warmCatalog = new Catalog(out, () => {});
        const warmRequest = request(warmCatalog);
        await pinnedSbom(warmRequest);
        const repeated: number[] = [];
        for (let round = 0; round < WARM_ROUNDS; round++) repeated.push((await timed(() => pinnedSbom(warmRequest))).ms);
        const answer = first.value as { bytes?: Buffer };
        sbomRows.push({ commit: row.commit, package: row.package, format, bytes: answer.bytes?.length ?? 0, firstMs: Number(first.ms.toFixed(2)), repeatedMedianMs: Number(median(repeated).toFixed(3)) });
      }
    }
    const floating = { files: 0, bytes: 0 };
    const exportDir = `${out}-export`;
    await exportRelease(out, exportDir);
    for (const name of await readdir(join(paths.public(exportDir), 'api', 'pkgs'))) {
      const file = join(paths.public(exportDir), 'api', 'pkgs', name, 'sbom.json');
      const size = await stat(file).then((stats) => stats.size, () => null);
      if (size === null) continue;
      floating.files += 1;
      floating.bytes += size;
    }
    context.log(
      table(
        ['commit', 'package', 'format', 'body', 'first request', 'repeated (median)'],
        sbomRows.map((row) => [String(row.commit), String(row.package), String(row.format), `${((row.bytes as number) / 1024).toFixed(0)} KiB`, `${row.firstMs} ms`, `${row.repeatedMedianMs} ms`]),
      ),
    );
    context.log(`floating CycloneDX SBOMs in the release: ${count(floating.files)} files, ${(floating.bytes / 1024 / 1024).toFixed(1)} MiB`);
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
      sboms: sbomRows,
      floatingSboms: floating,
    });
    context.log(`reads: results in ${file}`);
  },
};
