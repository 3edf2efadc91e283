/**
 * A deterministic generator of synthetic catalogs (CATALOG-FORMAT.md, format 1) for the shapes
 * the vcpkg corpus lacks: categories, skewed stars, a deep dependency chain, multi-package
 * cycles, dangling dependencies, advisories on low-level packages (so transitive rollups are
 * large), scorecards, and a history that bumps versions, adds and removes packages, publishes,
 * fixes and withdraws advisories and re-scores scorecards.
 *
 *   await makeSyntheticCatalog(dir, { packages: 3000, commits: 1000, chainDepth: 200, seed: 'pkgcat-bench-1' });
 *
 * Everything comes from a seeded PRNG (no Math.random, no clock), and the repository is written
 * with demo/catalog-writer.ts, so the same options give the same shas on any machine.
 *
 * Packages in the first commit:
 *   core-NN        low-level libraries (think zlib, openssl); most packages reach one
 *   tool-N         build helpers (think vcpkg-cmake) that many packages build-depend on
 *   chain-NNNN     chain-0001 -> chain-0002 -> ... -> chain-<chainDepth> -> core-00 (runtime)
 *   <word>-NNNNN   the rest: a random DAG (edges to lower-numbered packages, preferring
 *                  popular ones and the chain), plus rings of 2 to 4 packages (build
 *                  dependencies), a few self-loops and a few dangling names
 */
import { createHash } from 'node:crypto';
import { appendCommits, createCatalogRepo, type CatalogCommit, type FileContent } from '../demo/catalog-writer.ts';

export interface SyntheticOptions {
  /** Packages in the first commit (the history adds and removes some). */
  packages: number;
  /** Commits on main, the first included. */
  commits: number;
  /** Length of the dependency chain chain-0001 -> ... -> chain-<chainDepth>. */
  chainDepth: number;
  seed: string | number;
  /** Commits per fast-import stream (default 250). */
  batch?: number;
  /** Time of the first commit (default 2025-01-01T00:00:00Z). */
  start?: string;
}

export interface SyntheticSummary {
  commits: number;
  tip: string;
  packagesAtStart: number;
  packagesAtTip: number;
  packagesEver: number;
  versionsShipped: number;
  dependencyEdgesAtTip: number;
  cycles: number;
  selfLoops: number;
  danglingAtTip: number;
  chainDepth: number;
  advisories: number;
  advisoriesWithdrawn: number;
  advisoriesOpenAtTip: number;
  scorecardsAtTip: number;
}

/** sfc32 seeded through xmur3: small, fast, and the same on every platform. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: string | number) {
    const text = String(seed);
    let h = 1779033703 ^ text.length;
    for (let i = 0; i < text.length; i++) {
      h = Math.imul(h ^ text.charCodeAt(i), 3432918353);
      h = (h << 13) | (h >>> 19);
    }
    const next = () => {
      h = Math.imul(h ^ (h >>> 16), 2246822507);
      h = Math.imul(h ^ (h >>> 13), 3266489909);
      h ^= h >>> 16;
      return h >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 15; i++) this.next();
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.a >>>= 0;
    this.b >>>= 0;
    this.c >>>= 0;
    this.d >>>= 0;
    let t = (this.a + this.b) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.d = (this.d + 1) | 0;
    t = (t + this.d) | 0;
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Integer in [min, max]. */
  range(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
}

export const CATEGORIES = [
  'compression', 'networking', 'cryptography', 'graphics', 'audio', 'video', 'database', 'serialization',
  'testing', 'logging', 'math', 'gui', 'parsing', 'concurrency', 'filesystem', 'image', 'machine-learning',
  'scientific', 'game-engine', 'build-tools', 'embedded', 'text', 'geospatial', 'web',
] as const;

const LICENSES = ['MIT', 'Apache-2.0', 'BSD-3-Clause', 'BSD-2-Clause', 'Zlib', 'MPL-2.0', 'LGPL-2.1-or-later', 'GPL-3.0-only', 'Apache-2.0 OR MIT', 'BSL-1.0', 'LicenseRef-Vendor'];
const WORDS = ['lib', 'fast', 'tiny', 'open', 'simple', 'nano', 'hyper', 'micro', 'quick', 'safe', 'deep', 'smart', 'pico', 'ultra', 'core', 'easy'];
const NOUNS = ['zip', 'json', 'http', 'png', 'xml', 'sql', 'log', 'math', 'ssl', 'gl', 'audio', 'font', 'regex', 'yaml', 'uuid', 'cache', 'grid', 'mesh', 'tensor', 'queue'];
const SEVERITIES = ['CRITICAL', 'HIGH', 'MODERATE', 'MEDIUM', 'LOW'] as const;
/** CVSS v3.1 vectors of known base score: 9.8 critical, 7.5 high, 5.4 medium, 2.5 low. */
const VECTORS = [
  'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
  'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
  'CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:L/I:L/A:N',
  'CVSS:3.1/AV:L/AC:H/PR:L/UI:N/S:U/C:L/I:N/A:N',
];
const KINDS = ['buffer overflow', 'use after free', 'integer overflow', 'path traversal', 'denial of service', 'out-of-bounds read', 'injection'];
const CHECKS = [
  'Binary-Artifacts', 'Branch-Protection', 'CI-Tests', 'Code-Review', 'Dangerous-Workflow', 'Dependency-Update-Tool',
  'Fuzzing', 'License', 'Maintained', 'Pinned-Dependencies', 'SAST', 'Security-Policy', 'Signed-Releases', 'Token-Permissions', 'Vulnerabilities',
];

type Kind = 'core' | 'tool' | 'chain' | 'lib';

interface Pkg {
  name: string;
  kind: Kind;
  /** Position in the dependency order: edges point to lower ranks (rings aside). */
  rank: number;
  version: [number, number, number];
  description: string;
  license: string;
  repository: string | null;
  categories: string[];
  stars: number;
  build: string[];
  runtime: string[];
  /** Edges that make rings and self-loops; kept through dependency changes. */
  pinnedBuild: string[];
  recipe: number;
  present: boolean;
  scorecard: boolean;
}

interface Advisory {
  id: string;
  packages: string[];
  published: string;
  modified: string;
  introduced: string;
  fixed: string | null;
  withdrawn: string | null;
  severity: string | null;
  vector: string | null;
  kind: string;
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');
const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
const versionText = (version: [number, number, number]) => version.join('.');

class Generator {
  readonly rng: Rng;
  readonly options: Required<SyntheticOptions>;
  readonly pkgs = new Map<string, Pkg>();
  /** Names in rank order (creation order). */
  readonly order: string[] = [];
  readonly advisories: Advisory[] = [];
  cores: string[] = [];
  tools: string[] = [];
  chain: string[] = [];
  cycles = 0;
  selfLoops = 0;
  versionsShipped = 0;
  private nextLib = 0;
  private time: number;

  constructor(options: SyntheticOptions) {
    this.options = { batch: 250, start: '2025-01-01T00:00:00Z', ...options };
    this.rng = new Rng(`pkgcat-synthetic:${options.seed}`);
    this.time = Date.parse(this.options.start) / 1000;
  }

  private tick(): string {
    this.time += this.rng.range(300, 7200);
    return iso(this.time);
  }

  private create(name: string, kind: Kind): Pkg {
    const { rng } = this;
    const categories: string[] = [];
    for (let n = rng.int(4); categories.length < n; ) {
      const category = rng.pick(CATEGORIES);
      if (!categories.includes(category)) categories.push(category);
    }
    // Skewed: most packages have a few stars, a handful have hundreds of thousands.
    const stars = Math.floor(250_000 * rng.next() ** 6) + (kind === 'core' ? rng.int(50_000) : 0);
    const owner = `${rng.pick(WORDS)}${rng.pick(NOUNS)}-org`;
    const hosted = rng.next();
    const pkg: Pkg = {
      name,
      kind,
      rank: this.order.length,
      version: [rng.range(0, 5), rng.int(20), rng.int(10)],
      description: `${name}: a synthetic ${categories[0] ?? 'general-purpose'} library for benchmarks`,
      license: rng.pick(LICENSES),
      repository: hosted < 0.75 ? `https://github.com/${owner}/${name}` : hosted < 0.85 ? `https://gitlab.com/${owner}/${name}` : null,
      categories,
      stars,
      build: [],
      runtime: [],
      pinnedBuild: [],
      recipe: 0,
      present: false,
      scorecard: false,
    };
    this.pkgs.set(name, pkg);
    this.order.push(name);
    return pkg;
  }

  /** A dependency for `pkg` among packages ranked below it, preferring low-level ones. */
  private dependencyFor(pkg: Pkg): string | null {
    const { rng } = this;
    const roll = rng.next();
    let name: string;
    if (roll < 0.3) name = rng.pick(this.cores);
    else if (roll < 0.4) name = this.chain[Math.floor(this.chain.length * rng.next() ** 3)] ?? rng.pick(this.cores);
    else if (roll < 0.42) return `missing-${pad(rng.int(50), 2)}`; // dangling: never a package
    else {
      if (pkg.rank === 0) return null;
      // Preferential: low ranks (created early) are picked far more often.
      name = this.order[Math.floor(pkg.rank * rng.next() ** 2.5)];
    }
    const target = this.pkgs.get(name);
    if (!target || target.rank >= pkg.rank || target.name === pkg.name) return null;
    return name;
  }

  private randomDependencies(pkg: Pkg): void {
    const { rng } = this;
    const runtime = new Set<string>();
    const build = new Set<string>();
    const wanted = Math.floor(7 * rng.next() ** 1.8);
    for (let i = 0; i < wanted; i++) {
      const name = this.dependencyFor(pkg);
      if (name) (rng.chance(0.2) ? build : runtime).add(name);
    }
    for (const tool of this.tools) if (rng.chance(0.45)) build.add(tool);
    for (const name of runtime) build.delete(name);
    pkg.runtime = [...runtime];
    pkg.build = [...new Set([...build, ...pkg.pinnedBuild])];
  }

  private newLib(): Pkg {
    const name = `${this.rng.pick(WORDS)}${this.rng.pick(NOUNS)}-${pad(this.nextLib++, 5)}`;
    const pkg = this.create(name, 'lib');
    this.randomDependencies(pkg);
    return pkg;
  }

  /** The packages and their graph before the first commit. */
  setup(): void {
    const { packages, chainDepth } = this.options;
    const coreCount = Math.max(4, Math.round(packages * 0.01));
    for (let i = 0; i < coreCount; i++) {
      const pkg = this.create(`core-${pad(i, 2)}`, 'core');
      if (i > 0) pkg.runtime = [`core-${pad(this.rng.int(i), 2)}`];
      this.cores.push(pkg.name);
    }
    for (let i = 0; i < 3; i++) this.tools.push(this.create(`tool-${i}`, 'tool').name);
    // Created bottom-up so that every link points to a lower rank.
    for (let i = chainDepth; i >= 1; i--) {
      const pkg = this.create(`chain-${pad(i, 4)}`, 'chain');
      pkg.runtime = [i === chainDepth ? this.cores[0] : `chain-${pad(i + 1, 4)}`];
      this.chain.unshift(pkg.name);
    }
    // `chain` is now top first: chain[0] = chain-0001 depends on all the others.
    while (this.order.length < packages) this.newLib();
    const libs = this.order.filter((name) => this.pkgs.get(name)!.kind === 'lib');
    // Rings of 2 to 4 packages (build tools building each other).
    const rings = Math.max(3, Math.round(packages / 400));
    for (let r = 0; r < rings && libs.length >= 4; r++) {
      const members = new Set<string>();
      for (let size = this.rng.range(2, 4); members.size < size; ) members.add(this.rng.pick(libs));
      const ring = [...members];
      ring.forEach((name, index) => {
        const pkg = this.pkgs.get(name)!;
        const next = ring[(index + 1) % ring.length];
        pkg.pinnedBuild.push(next);
        if (!pkg.build.includes(next)) pkg.build.push(next);
      });
      this.cycles += 1;
    }
    for (let i = 0; i < Math.max(2, Math.round(packages / 500)); i++) {
      const pkg = this.pkgs.get(this.rng.pick(libs))!;
      if (pkg.pinnedBuild.includes(pkg.name)) continue;
      pkg.pinnedBuild.push(pkg.name);
      pkg.build.push(pkg.name);
      this.selfLoops += 1;
    }
  }

  private manifest(pkg: Pkg): Record<string, unknown> {
    const version = versionText(pkg.version);
    const dependencies: Record<string, string[]> = {};
    if (pkg.build.length) dependencies.build = pkg.build;
    if (pkg.runtime.length) dependencies.runtime = pkg.runtime;
    return {
      name: pkg.name,
      version,
      description: pkg.description,
      license: pkg.license,
      ...(pkg.repository ? { homepage: pkg.repository, repository: pkg.repository } : { homepage: `https://example.invalid/${pkg.name}` }),
      categories: pkg.categories,
      stars: pkg.stars,
      archive: {
        url: pkg.repository ? `${pkg.repository}/archive/v${version}.tar.gz` : `https://example.invalid/${pkg.name}/${pkg.name}-${version}.tar.gz`,
        sha256: createHash('sha256').update(`${pkg.name}@${version}`).digest('hex'),
      },
      dependencies,
    };
  }

  /** A build recipe whose lines change with the version and with recipe revisions (real diff stats). */
  private recipe(pkg: Pkg): string {
    const rng = new Rng(`${pkg.name}:${pkg.recipe}`);
    const lines = ['#!/bin/sh', `# ${pkg.name} ${versionText(pkg.version)}`, 'set -eu'];
    for (let i = 0, n = rng.range(8, 40); i < n; i++) lines.push(`step_${rng.int(1000)} --flag=${rng.int(100)} "$PREFIX"`);
    return `${lines.join('\n')}\n`;
  }

  private scorecard(pkg: Pkg, time: string): Record<string, unknown> {
    const { rng } = this;
    const unknown = rng.chance(0.03);
    const checks = CHECKS.map((name) => {
      const score = unknown ? -1 : rng.chance(0.1) ? -1 : rng.int(11);
      return {
        details: null,
        score,
        reason: score < 0 ? 'synthetic: check not run' : `synthetic score ${score}/10`,
        name,
        documentation: {
          short: `Synthetic ${name} check.`,
          url: `https://github.com/ossf/scorecard/blob/main/docs/checks.md#${name.toLowerCase()}`,
        },
      };
    });
    const scored = checks.filter((check) => check.score >= 0);
    const score = scored.length ? Math.round((scored.reduce((sum, check) => sum + check.score, 0) / scored.length) * 10) / 10 : -1;
    return {
      date: time,
      repo: { name: pkg.repository!.replace(/^https:\/\//, ''), commit: createHash('sha1').update(`${pkg.name}:${time}`).digest('hex') },
      scorecard: { version: 'synthetic', commit: 'synthetic' },
      score,
      checks,
      metadata: ['synthetic scorecard for pkgcat benchmarks'],
    };
  }

  private advisoryRecord(advisory: Advisory): Record<string, unknown> {
    const events: Record<string, string>[] = [{ introduced: advisory.introduced }];
    if (advisory.fixed) events.push({ fixed: advisory.fixed });
    const record: Record<string, unknown> = {
      schema_version: '1.6.0',
      id: advisory.id,
      modified: advisory.modified,
      published: advisory.published,
      aliases: [],
      summary: `Synthetic benchmark advisory: ${advisory.kind} in ${advisory.packages.join(', ')}`,
      details: 'Generated by bench/synthetic.ts; it describes no real vulnerability.',
      affected: advisory.packages.map((name) => ({
        package: { ecosystem: 'pkgcat-bench', name },
        ranges: [{ type: 'ECOSYSTEM', events }],
      })),
      database_specific: { ...(advisory.severity ? { severity: advisory.severity } : {}), synthetic: true },
    };
    if (advisory.vector) record.severity = [{ type: 'CVSS_V3', score: advisory.vector }];
    if (advisory.withdrawn) record.withdrawn = advisory.withdrawn;
    return record;
  }

  private present(filter: (pkg: Pkg) => boolean = () => true): Pkg[] {
    const list: Pkg[] = [];
    for (const name of this.order) {
      const pkg = this.pkgs.get(name)!;
      if (pkg.present && filter(pkg)) list.push(pkg);
    }
    return list;
  }

  /** A low-level package (core, the chain's bottom half, a tool) or, less often, any package. */
  private advisoryTarget(): Pkg {
    const { rng } = this;
    const roll = rng.next();
    if (roll < 0.4) return this.pkgs.get(rng.pick(this.cores))!;
    if (roll < 0.6) return this.pkgs.get(this.chain[this.chain.length - 1 - rng.int(Math.ceil(this.chain.length / 2))] ?? this.cores[0])!;
    if (roll < 0.65) return this.pkgs.get(rng.pick(this.tools))!;
    return rng.pick(this.present());
  }

  private putPackage(files: Record<string, FileContent>, pkg: Pkg): void {
    files[`packages/${pkg.name}/manifest.json`] = this.manifest(pkg);
    files[`packages/${pkg.name}/build.sh`] = this.recipe(pkg);
  }

  private bump(pkg: Pkg, files: Record<string, FileContent>): void {
    const roll = this.rng.next();
    const [major, minor, patch] = pkg.version;
    pkg.version = roll < 0.05 ? [major + 1, 0, 0] : roll < 0.3 ? [major, minor + 1, 0] : [major, minor, patch + 1];
    pkg.recipe += 1;
    this.versionsShipped += 1;
    this.putPackage(files, pkg);
  }

  private addAdvisory(files: Record<string, FileContent>, time: string): string {
    const { rng } = this;
    const target = this.advisoryTarget();
    const names = [target.name];
    if (rng.chance(0.05)) {
      const other = rng.pick(this.present());
      if (!names.includes(other.name)) names.push(other.name);
    }
    if (rng.chance(0.02)) names.push(`not-in-catalog-${rng.int(100)}`);
    const hasSeverity = rng.chance(0.85);
    const hasVector = hasSeverity ? rng.chance(0.25) : rng.chance(0.8);
    const band = rng.int(4);
    const advisory: Advisory = {
      id: `SYNB-${time.slice(0, 4)}-${pad(this.advisories.length + 1, 5)}`,
      packages: names,
      published: time,
      modified: time,
      introduced: rng.chance(0.7) ? '0' : `${Math.max(0, target.version[0] - 1)}.0.0`,
      fixed: null,
      withdrawn: null,
      severity: hasSeverity ? [SEVERITIES[0], SEVERITIES[1], rng.pick([SEVERITIES[2], SEVERITIES[3]]), SEVERITIES[4]][band] : null,
      vector: hasVector ? VECTORS[band] : null,
      kind: rng.pick(KINDS),
    };
    this.advisories.push(advisory);
    files[`advisories/${advisory.id}.json`] = this.advisoryRecord(advisory);
    return `${advisory.id}: ${advisory.kind} in ${names[0]}`;
  }

  /** The first commit: every package, scorecards for some, advisories on low-level packages. */
  firstCommit(): CatalogCommit {
    const time = this.tick();
    const files: Record<string, FileContent> = {};
    for (const name of this.order) {
      const pkg = this.pkgs.get(name)!;
      pkg.present = true;
      this.versionsShipped += 1;
      this.putPackage(files, pkg);
      if (pkg.repository?.startsWith('https://github.com/') && this.rng.chance(0.1)) {
        pkg.scorecard = true;
        files[`packages/${pkg.name}/scorecard.json`] = this.scorecard(pkg, time);
      }
    }
    for (let i = 0, n = Math.max(5, Math.round(this.options.packages / 100)); i < n; i++) this.addAdvisory(files, time);
    return { message: `Initial synthetic catalog: ${this.order.length} packages`, time, files };
  }

  /** One later commit, chosen by weight among the things catalog maintainers do. */
  nextCommit(): CatalogCommit {
    const { rng } = this;
    const time = this.tick();
    const files: Record<string, FileContent> = {};
    const roll = rng.next();
    let message: string;
    const open = this.advisories.filter((a) => !a.fixed && !a.withdrawn && a.packages.some((name) => this.pkgs.get(name)?.present));
    if (roll < 0.5) {
      const count = rng.chance(0.1) ? rng.range(2, 5) : 1;
      const bumped = new Set<Pkg>();
      while (bumped.size < count) bumped.add(rng.pick(this.present()));
      for (const pkg of bumped) this.bump(pkg, files);
      message = [...bumped].map((pkg) => `[${pkg.name}] update to ${versionText(pkg.version)}`).join('; ');
    } else if (roll < 0.58) {
      const pkg = this.newLib();
      pkg.present = true;
      this.versionsShipped += 1;
      this.putPackage(files, pkg);
      message = `[${pkg.name}] new package`;
    } else if (roll < 0.62) {
      // Mostly packages nothing depends on; now and then one that leaves dependents dangling.
      const depended = new Set(this.present().flatMap((pkg) => [...pkg.build, ...pkg.runtime].filter((name) => name !== pkg.name)));
      const candidates = this.present((pkg) => pkg.kind === 'lib' && (rng.chance(0.1) || !depended.has(pkg.name)));
      const pkg = candidates.length ? rng.pick(candidates) : rng.pick(this.present((p) => p.kind === 'lib'));
      pkg.present = false;
      files[`packages/${pkg.name}/manifest.json`] = null;
      files[`packages/${pkg.name}/build.sh`] = null;
      if (pkg.scorecard) files[`packages/${pkg.name}/scorecard.json`] = null;
      pkg.scorecard = false;
      message = `[${pkg.name}] remove`;
    } else if (roll < 0.72) {
      message = `advisory ${this.addAdvisory(files, time)}`;
    } else if (roll < 0.79 && open.length) {
      // Fix: the package ships a new version and the advisory records it as fixed.
      const advisory = rng.pick(open);
      const pkg = this.pkgs.get(advisory.packages.find((name) => this.pkgs.get(name)?.present)!)!;
      this.bump(pkg, files);
      advisory.fixed = versionText(pkg.version);
      advisory.modified = time;
      files[`advisories/${advisory.id}.json`] = this.advisoryRecord(advisory);
      message = `[${pkg.name}] update to ${advisory.fixed} (fixes ${advisory.id})`;
    } else if (roll < 0.8 && this.advisories.some((a) => !a.withdrawn)) {
      const advisory = rng.pick(this.advisories.filter((a) => !a.withdrawn));
      advisory.withdrawn = time;
      advisory.modified = time;
      files[`advisories/${advisory.id}.json`] = this.advisoryRecord(advisory);
      message = `advisory ${advisory.id}: withdrawn`;
    } else if (roll < 0.85) {
      const candidates = this.present((pkg) => Boolean(pkg.repository?.startsWith('https://github.com/')));
      const pkg = rng.pick(candidates);
      message = `[${pkg.name}] ${pkg.scorecard ? 're-score' : 'add'} scorecard`;
      pkg.scorecard = true;
      files[`packages/${pkg.name}/scorecard.json`] = this.scorecard(pkg, time);
    } else if (roll < 0.92) {
      // A new version with different dependencies.
      const pkg = rng.pick(this.present((p) => p.kind === 'lib'));
      this.randomDependencies(pkg);
      this.bump(pkg, files);
      message = `[${pkg.name}] update to ${versionText(pkg.version)} with new dependencies`;
    } else if (roll < 0.97) {
      // Metadata only: no version ships.
      const pkg = rng.pick(this.present());
      pkg.stars = Math.floor(pkg.stars * (0.9 + rng.next() * 0.5)) + rng.int(20);
      const category = rng.pick(CATEGORIES);
      if (!pkg.categories.includes(category)) pkg.categories = [...pkg.categories, category];
      pkg.description = `${pkg.name}: a synthetic ${pkg.categories[0]} library for benchmarks (revised)`;
      this.putPackage(files, pkg);
      message = `[${pkg.name}] metadata`;
    } else {
      message = 'Update documentation (no catalog change)';
    }
    return { message, time, files };
  }

  summary(tip: string, commits: number): SyntheticSummary {
    const present = this.present();
    const names = new Set(present.map((pkg) => pkg.name));
    let edges = 0;
    let dangling = 0;
    for (const pkg of present) {
      for (const name of [...pkg.build, ...pkg.runtime]) {
        edges += 1;
        if (!names.has(name)) dangling += 1;
      }
    }
    return {
      commits,
      tip,
      packagesAtStart: this.options.packages,
      packagesAtTip: present.length,
      packagesEver: this.order.length,
      versionsShipped: this.versionsShipped,
      dependencyEdgesAtTip: edges,
      cycles: this.cycles,
      selfLoops: this.selfLoops,
      danglingAtTip: dangling,
      chainDepth: this.chain.length,
      advisories: this.advisories.length,
      advisoriesWithdrawn: this.advisories.filter((a) => a.withdrawn).length,
      advisoriesOpenAtTip: this.advisories.filter((a) => !a.fixed && !a.withdrawn).length,
      scorecardsAtTip: present.filter((pkg) => pkg.scorecard).length,
    };
  }
}

/** Writes a synthetic catalog repository (branch main) at `dir`, which must not hold one yet. */
export async function makeSyntheticCatalog(dir: string, options: SyntheticOptions): Promise<SyntheticSummary> {
  if (!(options.packages >= 10)) throw new Error('synthetic catalog: packages must be at least 10');
  if (!(options.commits >= 1)) throw new Error('synthetic catalog: commits must be at least 1');
  if (!(options.chainDepth >= 1) || options.chainDepth > options.packages / 2) {
    throw new Error('synthetic catalog: chainDepth must be between 1 and half the packages');
  }
  const generator = new Generator(options);
  generator.setup();
  const batchSize = generator.options.batch;
  let batch: CatalogCommit[] = [generator.firstCommit()];
  let written = 0;
  let tip = '';
  const flush = async () => {
    const shas = written === 0 ? await createCatalogRepo(dir, batch) : await appendCommits(dir, batch);
    written += batch.length;
    tip = shas[shas.length - 1];
    batch = [];
  };
  for (let index = 1; index < options.commits; index++) {
    batch.push(generator.nextCommit());
    if (batch.length >= batchSize) await flush();
  }
  if (batch.length) await flush();
  return generator.summary(tip, written);
}
