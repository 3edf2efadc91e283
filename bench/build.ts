/**
 * The build benchmark: full-history build, one new commit, no-op, bytes on disk, peak memory.
 *
 *   npm run bench -- build --corpus-dir <dir>                     the vcpkg-5000 corpus (the recorded figures)
 *   npm run bench -- build --corpus vcpkg-300 --corpus-dir <dir>  the small corpus, for a quick check
 *   npm run bench -- build --corpus vcpkg-16193 --corpus-dir <dir> the longest history: how cost grows with it
 *   npm run bench -- build --synthetic                            a synthetic catalog (bench/synthetic.ts), no corpus needed
 *
 * Every build runs in a child process, so the figures include Node's start-up and the peak RSS is
 * the build's own: bench/measure-child.ts (buildCatalog in a fresh process, in a thread with
 * `pkgcat build`'s limits, reporting its maxRSS) for the full and one-commit builds, and the real
 * CLI (`bin/pkgcat.js build --quiet`, under `/usr/bin/time -f %M` when that exists) for the no-op,
 * since that is what a user runs.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { appendCommits } from '../demo/catalog-writer.ts';
import { makeSyntheticCatalog, type SyntheticSummary } from './synthetic.ts';
import {
  checkChild, count, diskUsage, git, gnuTime, machine, median, mib, projectRevision, runChild, secs, table, writeResults,
  type DiskUsage,
} from './lib.ts';
import type { Suite, SuiteContext } from './suite.ts';
import type { PublishCounts } from '../build/publish.ts';

/** The targets, for 2-core machines. "2 GB" is read as 2 * 10^9 bytes, allocated on disk. */
export const TARGETS = {
  fullSeconds: 600,
  peakRssMiB: 1024,
  diskBytes: 2_000_000_000,
  diskFiles: 100_000,
  addOneSeconds: 1.5,
  noopSeconds: 1,
  /** The cost per commit over the last 1,000 commits of a full build, against the first 1,000. */
  curveRatio: 1.2,
} as const;

const CORPORA = ['vcpkg-300', 'vcpkg-5000', 'vcpkg-16193'];

/** Commits per segment of the cost curve. */
const CURVE_SEGMENT = 1000;

interface CostCurve {
  /** Commits per segment: CURVE_SEGMENT, or a third of a shorter history. */
  segment: number;
  /** Milliseconds per commit over a segment of the full build, from the times its commits were composed. */
  segments: { from: number; to: number; msPerCommit: number }[];
  first: number;
  middle: number;
  last: number;
  /** last / first. */
  ratio: number;
}

/**
 * The cost per commit along the full build: the build tells when it has composed each commit
 * (BuildOptions.onProgress, bench/measure-child.ts), so the times between them are the commits' costs.
 */
function costCurve(times: readonly number[]): CostCurve | null {
  const segment = Math.min(CURVE_SEGMENT, Math.floor(times.length / 3));
  // A history of fewer than 6 commits has no curve (a segment of 0 commits never moved on: at
  // 100,000 packages and 2 commits, the benchmark filled its heap with empty segments).
  if (segment < 2) return null;
  const msPerCommit = (from: number) => (times[from + segment - 1] - times[from]) / (segment - 1);
  const segments: CostCurve['segments'] = [];
  for (let from = 0; from + segment <= times.length; from += segment) segments.push({ from, to: from + segment, msPerCommit: msPerCommit(from) });
  const first = msPerCommit(0);
  const middle = msPerCommit(Math.floor((times.length - segment) / 2));
  const last = msPerCommit(times.length - segment);
  return { segment, segments, first, middle, last, ratio: last / first };
}
const NOOP_RUNS = 3;

const SYNTHETIC_DEFAULTS = { packages: 3000, commits: 1000, chainDepth: 200, seed: 'pkgcat-bench-1' };

interface ChildBuild {
  /** Wall time around the child process, start-up included. */
  seconds: number;
  /** buildCatalog alone, as the child measured it. */
  buildSeconds: number;
  /** CPU time of buildCatalog, every thread (user + system): the work, whatever else shares the machine. */
  cpuSeconds: number | null;
  /**
   * From the start of buildCatalog: when the release went live. One release holds every surface,
   * so the JSON surfaces and every surface go live together (the two fields stay for comparison
   * with older results, where a first release held the JSON alone).
   */
  jsonLiveSeconds: number | null;
  allLiveSeconds: number | null;
  /** What publishing cost (build/publish.ts PublishCounts): documents rendered and kept, files and bytes written. */
  published: PublishCounts | null;
  peakRssMiB: number;
  commits: number;
  composed: number;
  diagnostics: number;
  tip: string;
}

interface AddOne {
  kind: 'leaf' | 'popular' | 'advisory';
  change: string;
  /**
   * The package the commit touches or the advisory names, how many packages reach it, and how
   * many depend on it directly (each of whose `deps.json`, page and mirror show its version).
   */
  package: string;
  reverseClosure: number;
  directDependents: number;
  build: ChildBuild;
  /** Output growth over this build; releases/ grows by a whole release until publish prunes old ones. */
  bytesAdded: { apparent: number; allocated: number; files: number; allocatedByFolder: Record<string, number> };
}

interface NoOp {
  runs: number[];
  medianSeconds: number;
  peakRssMiB: number | null;
  peakRssBy: string;
}

/** A release's cost on one line: documents rendered and kept, files and bytes written. */
const publishedText = (counts: PublishCounts) =>
  `documents: ${count(counts.rendered)} rendered, ${count(counts.kept)} kept; files: ${count(counts.filesWritten)} written (${mib(counts.bytesWritten)})`;

const live = (seconds: number | null) => (seconds === null ? '-' : secs(seconds));

/** Runs bench/measure-child.ts on the catalog and returns its figures, and when it composed each commit (ms from its start). */
async function measuredBuild(root: string, repo: string, out: string): Promise<ChildBuild & { composedMs: number[] }> {
  const result = checkChild('build (bench/measure-child.ts)', await runChild(process.execPath, [join(root, 'bench/measure-child.ts'), '--repo', repo, '--out', out], { cwd: root }));
  const line = result.stdout.trim().split('\n').pop() ?? '';
  const figures = JSON.parse(line) as {
    buildSeconds: number; cpuSeconds?: number; maxRssKiB: number; commits: number; composed: number; diagnostics: number; tip: string;
    live: { seconds: number }[];
    published: PublishCounts | null;
    composedMs: number[];
  };
  return {
    composedMs: figures.composedMs,
    seconds: result.seconds,
    buildSeconds: figures.buildSeconds,
    cpuSeconds: figures.cpuSeconds ?? null,
    jsonLiveSeconds: figures.live[0]?.seconds ?? null,
    allLiveSeconds: figures.live[0]?.seconds ?? null,
    published: figures.published,
    peakRssMiB: figures.maxRssKiB / 1024,
    commits: figures.commits,
    composed: figures.composed,
    diagnostics: figures.diagnostics,
    tip: figures.tip,
  };
}

/** One CLI build (`pkgcat build --quiet`), under /usr/bin/time when present. */
async function cliBuild(root: string, repo: string, out: string): Promise<{ seconds: number; peakRssMiB: number | null; stderr: string }> {
  const cli = [join(root, 'bin/pkgcat.js'), 'build', '--repo', repo, '--out', out, '--quiet'];
  const time = gnuTime();
  const result = time
    ? await runChild(time, ['-f', 'pkgcat-bench-maxrss-kib=%M', process.execPath, ...cli], { cwd: root })
    : await runChild(process.execPath, cli, { cwd: root });
  checkChild('pkgcat build', result);
  const match = /pkgcat-bench-maxrss-kib=(\d+)/.exec(result.stderr);
  return { seconds: result.seconds, peakRssMiB: match ? Number(match[1]) / 1024 : null, stderr: result.stderr.replace(/pkgcat-bench-maxrss-kib=\d+\n?/, '') };
}

interface Manifest {
  name: string;
  version: string;
  archive?: { url: string; sha256: string };
  dependencies?: { build?: string[]; runtime?: string[] };
  [key: string]: unknown;
}

/** Packages at main's tip (read from the checked-out work tree, which appendCommits keeps in line). */
export function readPackages(repo: string): Map<string, Manifest> {
  const packages = new Map<string, Manifest>();
  const dir = join(repo, 'packages');
  for (const name of readdirSync(dir).sort()) {
    const file = join(dir, name, 'manifest.json');
    if (!existsSync(file)) continue;
    try {
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
      if (typeof manifest.name === 'string') packages.set(manifest.name.toLowerCase(), manifest);
    } catch {
      // bad data is the build's business, not the benchmark's
    }
  }
  return packages;
}

/** For every package with dependents: the packages that depend on it directly (build or runtime). */
function directDependents(packages: Map<string, Manifest>): Map<string, string[]> {
  const dependents = new Map<string, string[]>();
  for (const [key, manifest] of packages) {
    const deps = new Set([...(manifest.dependencies?.build ?? []), ...(manifest.dependencies?.runtime ?? [])].map((name) => name.toLowerCase()));
    for (const dep of deps) {
      if (dep === key || !packages.has(dep)) continue;
      const list = dependents.get(dep);
      if (list) list.push(key);
      else dependents.set(dep, [key]);
    }
  }
  return dependents;
}

/** For every package: how many packages reach it through build and runtime dependencies. */
function reverseClosures(packages: Map<string, Manifest>, dependents: Map<string, string[]>): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const key of packages.keys()) {
    const seen = new Set<string>([key]);
    const queue = [key];
    while (queue.length) {
      for (const next of dependents.get(queue.pop()!) ?? []) {
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
    sizes.set(key, seen.size - 1);
  }
  return sizes;
}

/**
 * The packages a benchmark's new commits change (keys): a leaf (nothing depends on it; it has
 * dependencies), and the package the most others reach.
 */
export function changedPackages(packages: Map<string, Manifest>): {
  leaf: string;
  popular: string;
  closures: Map<string, number>;
  /** Packages by how many reach them, most first. */
  ranked: [string, number][];
  dependents: Map<string, string[]>;
} {
  const dependents = directDependents(packages);
  const closures = reverseClosures(packages, dependents);
  const ranked = [...closures].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const dependencies = (key: string) => (packages.get(key)!.dependencies?.build?.length ?? 0) + (packages.get(key)!.dependencies?.runtime?.length ?? 0);
  const leaf = [...packages.keys()].find((key) => closures.get(key) === 0 && dependencies(key) > 0) ?? ranked[ranked.length - 1][0];
  return { leaf, popular: ranked[0][0], closures, ranked, dependents };
}

/**
 * A realistic bump: the trailing number goes up, keeping its width (`1.3.2_2` -> `1.3.2_3`,
 * `1.2.9` -> `1.2.10`, `2025-08-07` -> `2025-08-08`); a version without one gets `_1`.
 */
export function bumpVersion(version: string): string {
  const match = /^(.*?)(\d+)$/.exec(version);
  if (!match) return `${version}_1`;
  return `${match[1]}${String(Number(match[2]) + 1).padStart(match[2].length, '0')}`;
}

const isoSeconds = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');

function tipTime(repo: string): number {
  return Number(git(repo, ['log', '-1', '--format=%ct', 'refs/heads/main']).trim());
}

/** Appends a commit that ships a new version of `name`; returns a description of the change. */
export async function appendBump(repo: string, name: string): Promise<string> {
  const path = `packages/${name}/manifest.json`;
  const manifest = JSON.parse(git(repo, ['show', `main:${path}`])) as Manifest;
  const from = manifest.version;
  manifest.version = bumpVersion(from);
  if (manifest.archive) manifest.archive = { ...manifest.archive, sha256: createHash('sha256').update(`${manifest.name}@${manifest.version}`).digest('hex') };
  await appendCommits(repo, [{ message: `[${manifest.name}] update to ${manifest.version} (pkgcat bench)`, time: isoSeconds(tipTime(repo) + 3600), files: { [path]: manifest } }]);
  return `${manifest.name} ${from} -> ${manifest.version}`;
}

/** Appends an OSV advisory `advisories/BENCH-0001.json`, active for every version of `name`. */
async function appendAdvisory(repo: string, name: string): Promise<string> {
  const time = isoSeconds(tipTime(repo) + 3600);
  const id = 'BENCH-0001';
  const record = {
    schema_version: '1.6.0',
    id,
    modified: time,
    published: time,
    aliases: [],
    summary: `Benchmark advisory: heap overflow in ${name}`,
    details: 'Added by the pkgcat build benchmark (bench/build.ts); it describes no real vulnerability.',
    severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N' }],
    affected: [{ package: { ecosystem: 'pkgcat-bench', name }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }] }] }],
    database_specific: { severity: 'HIGH', synthetic: true },
  };
  await appendCommits(repo, [{ message: `advisory ${id}: heap overflow in ${name} (pkgcat bench)`, time, files: { [`advisories/${id}.json`]: record } }]);
  return `new advisory ${id} naming ${name} (no fix)`;
}

interface Target {
  /** `vcpkg-300`, `vcpkg-5000`, `vcpkg-16193`, `synthetic`, or `synthetic-<shape>` for a non-default synthetic shape. */
  label: string;
  prepare(repo: string): Promise<{ seconds: number; how: string; synthetic?: SyntheticSummary; options?: unknown }>;
}

async function benchTarget(context: SuiteContext, target: Target, add: readonly AddOne['kind'][]): Promise<void> {
  const { root, log } = context;
  const loadAtStart = machine().loadAverage;
  const project = projectRevision(root);
  const dir = join(context.work, target.label);
  const repo = join(dir, 'repo');
  const out = join(dir, 'out');
  await mkdir(dir, { recursive: true });
  log(`\n== build: ${target.label} ==`);
  const prepared = await target.prepare(repo);
  const commitCount = Number(git(repo, ['rev-list', '--first-parent', '--count', 'refs/heads/main']).trim());
  log(`${prepared.how} in ${secs(prepared.seconds)}: ${count(commitCount)} commits on main`);

  log('full-history build (bench/measure-child.ts)...');
  const { composedMs, ...full } = await measuredBuild(root, repo, out);
  log(`  ${count(full.composed)} of ${count(full.commits)} commits in ${secs(full.seconds)} (buildCatalog ${secs(full.buildSeconds)}), peak ${full.peakRssMiB.toFixed(0)} MiB, ${full.diagnostics} diagnostics`);
  const walkStarted = performance.now();
  const diskFull = diskUsage(out);
  const walkSeconds = (performance.now() - walkStarted) / 1000;
  log(`  output: ${mib(diskFull.allocatedBytes)} allocated, ${mib(diskFull.apparentBytes)} apparent, ${count(diskFull.files)} files (counted in ${secs(walkSeconds)})`);
  const curve = costCurve(composedMs);
  if (curve) log(`  cost per commit over ${count(curve.segment)} commits: first ${curve.first.toFixed(1)} ms, middle ${curve.middle.toFixed(1)} ms, last ${curve.last.toFixed(1)} ms (last/first ${curve.ratio.toFixed(2)})`);

  const packages = readPackages(repo);
  const { leaf, popular, closures, ranked, dependents } = changedPackages(packages);
  const advised = packages.has('zlib') && popular !== 'zlib' ? 'zlib' : ranked[1][0];
  const steps: { kind: AddOne['kind']; key: string; append: () => Promise<string> }[] = [
    { kind: 'leaf', key: leaf, append: () => appendBump(repo, packages.get(leaf)!.name) },
    { kind: 'popular', key: popular, append: () => appendBump(repo, packages.get(popular)!.name) },
    { kind: 'advisory', key: advised, append: () => appendAdvisory(repo, packages.get(advised)!.name) },
  ];
  const plan = steps.filter((step) => add.includes(step.kind));

  const addOne: AddOne[] = [];
  let before: DiskUsage = diskFull;
  for (const step of plan) {
    const change = await step.append();
    const direct = dependents.get(step.key)?.length ?? 0;
    log(`add one commit (${step.kind}): ${change}; ${count(closures.get(step.key)!)} packages reach ${packages.get(step.key)!.name}, ${count(direct)} of them directly`);
    const { composedMs: _composedMs, ...build } = await measuredBuild(root, repo, out);
    if (build.composed !== 1) throw new Error(`expected the build to compose 1 new commit, it composed ${build.composed}`);
    const after = diskUsage(out);
    addOne.push({
      kind: step.kind,
      change,
      package: packages.get(step.key)!.name,
      reverseClosure: closures.get(step.key)!,
      directDependents: direct,
      build,
      bytesAdded: {
        apparent: after.apparentBytes - before.apparentBytes,
        allocated: after.allocatedBytes - before.allocatedBytes,
        files: after.files - before.files,
        allocatedByFolder: Object.fromEntries(Object.entries(after.byFolder).map(([name, figures]) => [name, figures.allocatedBytes - before.byFolder[name].allocatedBytes])),
      },
    });
    log(`  ${secs(build.seconds)} (buildCatalog ${secs(build.buildSeconds)}, CPU ${build.cpuSeconds === null ? '-' : secs(build.cpuSeconds)}; every surface live at ${live(build.allLiveSeconds)}), peak ${build.peakRssMiB.toFixed(0)} MiB, +${mib(after.allocatedBytes - before.allocatedBytes)} on disk`);
    if (build.published) log(`  ${publishedText(build.published)}`);
    before = after;
  }

  log(`no-op (pkgcat build --quiet${gnuTime() ? ' under /usr/bin/time' : ''}), ${NOOP_RUNS} runs...`);
  const noopRuns: { seconds: number; peakRssMiB: number | null }[] = [];
  for (let run = 0; run < NOOP_RUNS; run++) {
    const result = await cliBuild(root, repo, out);
    if (!/nothing to do/.test(result.stderr)) throw new Error(`the no-op build did something:\n${result.stderr}`);
    noopRuns.push(result);
  }
  const rss = noopRuns.map((run) => run.peakRssMiB).filter((value): value is number => value !== null);
  const noop: NoOp = {
    runs: noopRuns.map((run) => run.seconds),
    medianSeconds: median(noopRuns.map((run) => run.seconds)),
    peakRssMiB: rss.length ? Math.max(...rss) : null,
    peakRssBy: gnuTime() ? '/usr/bin/time -f %M' : 'not measured (no /usr/bin/time)',
  };
  log(`  median ${secs(noop.medianSeconds)} (${noop.runs.map(secs).join(', ')})`);
  const diskEnd = diskUsage(out);

  const addWorst = Math.max(...addOne.map((step) => step.build.seconds));
  const jsonLiveWorst = Math.max(...addOne.map((step) => step.build.jsonLiveSeconds ?? Infinity));
  const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
  const results = {
    suite: 'build',
    target: target.label,
    machine: machine(),
    project,
    loadAverage: { start: loadAtStart, end: machine().loadAverage },
    repository: { commits: commitCount, prepare: { how: prepared.how, seconds: prepared.seconds }, synthetic: prepared.synthetic, options: prepared.options },
    full,
    costCurve: curve,
    diskAfterFull: diskFull,
    addOne,
    noop,
    diskAtEnd: diskEnd,
    targets: {
      fullSeconds: { target: TARGETS.fullSeconds, value: full.seconds, met: full.seconds < TARGETS.fullSeconds },
      peakRssMiB: { target: TARGETS.peakRssMiB, value: full.peakRssMiB, met: full.peakRssMiB < TARGETS.peakRssMiB },
      diskBytes: { target: TARGETS.diskBytes, value: diskFull.allocatedBytes, met: diskFull.allocatedBytes < TARGETS.diskBytes },
      diskFiles: { target: TARGETS.diskFiles, value: diskFull.files, met: diskFull.files < TARGETS.diskFiles },
      ...(curve && { curveRatio: { target: TARGETS.curveRatio, value: curve.ratio, met: curve.ratio < TARGETS.curveRatio } }),
      addOneSeconds: { target: TARGETS.addOneSeconds, value: addWorst, met: addWorst < TARGETS.addOneSeconds },
      addOneJsonLiveSeconds: { target: TARGETS.addOneSeconds, value: jsonLiveWorst, met: jsonLiveWorst < TARGETS.addOneSeconds },
      noopSeconds: { target: TARGETS.noopSeconds, value: noop.medianSeconds, met: noop.medianSeconds < TARGETS.noopSeconds },
    },
  };

  log('');
  log(`build benchmark, ${target.label}: ${count(commitCount)} commits (${results.machine.cpus} CPUs, ${results.machine.cpuModel}, node ${results.machine.node}; load average ${loadAtStart[0]} at start, ${results.loadAverage.end[0]} at end)`);
  log(
    table(
      ['figure', 'value', 'peak RSS', 'target', 'verdict'],
      [
        ['full-history build', secs(full.seconds), `${full.peakRssMiB.toFixed(0)} MiB`, `< ${TARGETS.fullSeconds} s, < ${TARGETS.peakRssMiB} MiB`, verdict(results.targets.fullSeconds.met && results.targets.peakRssMiB.met)],
        ...(curve ? [[`cost per commit, last ${count(curve.segment)} / first ${count(curve.segment)}`, `${curve.last.toFixed(1)} / ${curve.first.toFixed(1)} ms = ${curve.ratio.toFixed(2)}`, '', `< ${TARGETS.curveRatio}`, verdict(curve.ratio < TARGETS.curveRatio)]] : []),
        ...addOne.flatMap((step) => [
          [
            `add one commit: ${step.kind} (${step.package}, ${count(step.reverseClosure)} dependents, ${count(step.directDependents)} direct), JSON surfaces live`,
            live(step.build.jsonLiveSeconds),
            '',
            `< ${TARGETS.addOneSeconds} s`,
            verdict((step.build.jsonLiveSeconds ?? Infinity) < TARGETS.addOneSeconds),
          ],
          [
            `  every surface live; the build exits`,
            `${live(step.build.allLiveSeconds)}; ${secs(step.build.seconds)}`,
            `${step.build.peakRssMiB.toFixed(0)} MiB`,
            `< ${TARGETS.addOneSeconds} s`,
            verdict(step.build.seconds < TARGETS.addOneSeconds),
          ],
        ]),
        [`no-op (median of ${NOOP_RUNS})`, secs(noop.medianSeconds), noop.peakRssMiB === null ? '-' : `${noop.peakRssMiB.toFixed(0)} MiB`, `< ${TARGETS.noopSeconds} s`, verdict(results.targets.noopSeconds.met)],
        ['bytes on disk after full build', mib(diskFull.allocatedBytes), '', `< ${(TARGETS.diskBytes / 1e9).toFixed(0)} GB`, verdict(results.targets.diskBytes.met)],
        ['files on disk after full build', count(diskFull.files), '', `< ${count(TARGETS.diskFiles)}`, verdict(results.targets.diskFiles.met)],
      ],
      [false, true, true, true, false],
    ),
  );
  log('');
  log('output after the full build, by folder (allocated = stat.blocks * 512, like du; apparent = file sizes):');
  log(
    table(
      ['folder', 'files', 'apparent', 'allocated', 'share'],
      [...Object.entries(diskFull.byFolder), ['total', diskFull] as const].map(([name, figures]) => [
        name,
        count(figures.files),
        mib(figures.apparentBytes),
        mib(figures.allocatedBytes),
        `${((100 * figures.allocatedBytes) / diskFull.allocatedBytes).toFixed(1)} %`,
      ]),
      [false, true, true, true, true],
    ),
  );
  const file = await writeResults(context.resultsDir, `build-${target.label}`, results);
  log(`raw results: ${relative(root, file)}`);
}

/** The synthetic catalog's shape from the flags, and its label: `synthetic`, or `synthetic-<shape>` for a non-default one (its own results file). */
export function syntheticShape(values: Record<string, unknown>): { options: typeof SYNTHETIC_DEFAULTS; label: string } {
  const options = {
    packages: positiveInteger(values.packages, SYNTHETIC_DEFAULTS.packages, '--packages'),
    commits: positiveInteger(values.commits, SYNTHETIC_DEFAULTS.commits, '--commits'),
    chainDepth: positiveInteger(values['chain-depth'], SYNTHETIC_DEFAULTS.chainDepth, '--chain-depth'),
    seed: typeof values.seed === 'string' ? values.seed : SYNTHETIC_DEFAULTS.seed,
  };
  const custom = [
    options.packages !== SYNTHETIC_DEFAULTS.packages ? `${options.packages}p` : '',
    options.commits !== SYNTHETIC_DEFAULTS.commits ? `${options.commits}c` : '',
    options.chainDepth !== SYNTHETIC_DEFAULTS.chainDepth ? `${options.chainDepth}d` : '',
    options.seed !== SYNTHETIC_DEFAULTS.seed ? `seed-${options.seed.replace(/[^A-Za-z0-9._-]/g, '_')}` : '',
  ].filter(Boolean);
  return { options, label: ['synthetic', ...custom].join('-') };
}

/** The synthetic catalog's flags, for the suites that build one. */
export const SYNTHETIC_FLAGS = {
  synthetic: { type: 'boolean' },
  packages: { type: 'string' },
  commits: { type: 'string' },
  'chain-depth': { type: 'string' },
  seed: { type: 'string' },
} as const;

const ADD_KINDS: readonly AddOne['kind'][] = ['leaf', 'popular', 'advisory'];

/** `--add leaf,popular`: which one-commit builds to run; every kind when the flag is absent. */
function addKinds(value: unknown): readonly AddOne['kind'][] {
  if (value === undefined) return ADD_KINDS;
  const kinds = String(value).split(',').map((kind) => kind.trim());
  const unknown = kinds.filter((kind) => !(ADD_KINDS as readonly string[]).includes(kind));
  if (unknown.length > 0) throw new Error(`--add takes a comma-separated list of ${ADD_KINDS.join(', ')}, not ${JSON.stringify(value)}`);
  return ADD_KINDS.filter((kind) => kinds.includes(kind));
}

function positiveInteger(value: unknown, fallback: number, flag: string): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new Error(`${flag} must be a positive integer, not ${JSON.stringify(value)}`);
  return number;
}

export const suite: Suite = {
  name: 'build',
  description: 'pkgcat build: full history, one new commit, no-op, bytes on disk, peak memory',
  options: {
    corpus: { type: 'string' },
    add: { type: 'string' },
    ...SYNTHETIC_FLAGS,
  },
  usage: [
    `--corpus ${CORPORA.join('|')}   build a corpus bundle from --corpus-dir (default vcpkg-5000 unless --synthetic)`,
    '--synthetic                    build a synthetic catalog (bench/synthetic.ts) instead, or as well with --corpus',
    `--packages N --commits N       synthetic size (default ${SYNTHETIC_DEFAULTS.packages} packages, ${SYNTHETIC_DEFAULTS.commits} commits)`,
    `--chain-depth N --seed S       synthetic dependency chain length and seed (default ${SYNTHETIC_DEFAULTS.chainDepth}, ${SYNTHETIC_DEFAULTS.seed})`,
    `--add ${ADD_KINDS.join(',')}   the one-commit builds to run after the full build, in this order (default all three;`,
    '                               at 50,000 packages a popular or advisory commit took 12 and 14 minutes)',
  ],
  async run(context) {
    const { values } = context;
    const add = addKinds(values.add);
    const synthetic = values.synthetic === true;
    const corpus = typeof values.corpus === 'string' ? values.corpus : synthetic ? null : 'vcpkg-5000';
    if (corpus !== null && !CORPORA.includes(corpus)) throw new Error(`--corpus must be one of ${CORPORA.join(', ')}, not ${corpus}`);
    const targets: Target[] = [];
    if (corpus !== null) {
      const bundle = context.corpusFile(`${corpus}.bundle`);
      targets.push({
        label: corpus,
        async prepare(repo) {
          const started = performance.now();
          const result = await runChild('git', ['clone', '-q', bundle, repo], { cwd: context.work });
          checkChild(`git clone ${bundle}`, result);
          return { seconds: (performance.now() - started) / 1000, how: `cloned ${bundle}` };
        },
      });
    }
    if (synthetic) {
      const { options, label } = syntheticShape(values);
      targets.push({
        label,
        async prepare(repo) {
          const started = performance.now();
          const summary = await makeSyntheticCatalog(repo, options);
          return {
            seconds: (performance.now() - started) / 1000,
            how: `generated a synthetic catalog (${options.packages} packages, ${options.commits} commits, chain ${options.chainDepth}, seed ${options.seed})`,
            synthetic: summary,
            options,
          };
        },
      });
    }
    for (const target of targets) await benchTarget(context, target, add);
  },
};
