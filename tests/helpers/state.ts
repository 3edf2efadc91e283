/**
 * Builders for in-memory catalog states, so a composition test tells its story in a few lines:
 *
 *   const state = catalogState({
 *     packages: [manifest('app', { build: ['zlib'] }), manifest('zlib', { version: '1.2.11' })],
 *     advisories: [advisory('OSV-1', { package: 'zlib', fixed: '1.2.12', severity: 'HIGH' })],
 *   });
 *
 * Every default is valid per CATALOG-FORMAT.md (a 64-hex archive sha256, a license, a version),
 * and every value is deterministic, so payloads can be compared byte for byte.
 */
import { nameKey } from '../../src/grammar.ts';
import type {
  CatalogState,
  CommitInfo,
  DependencySets,
  Manifest,
  OsvAffected,
  OsvRecord,
  PackageState,
  Scorecard,
  VersionEvent,
} from '../../src/compose/types.ts';

/** A canonical 40-hex sha made from a small number: sha(1) = '000…001'. */
export function sha(n: number): string {
  return n.toString(16).padStart(40, '0');
}

export const ARCHIVE_SHA256 = '0123456789abcdef'.repeat(4);

export const DEFAULT_COMMIT: CommitInfo = { sha: sha(1), pushedAt: '2026-03-01T12:00:00Z', message: 'Update catalog' };

export function commit(overrides: Partial<CommitInfo> = {}): CommitInfo {
  return { ...DEFAULT_COMMIT, ...overrides };
}

export type ManifestOverrides = Omit<Partial<Manifest>, 'dependencies'> & {
  dependencies?: Partial<DependencySets>;
  /** Shorthand for `dependencies.build`. */
  build?: string[];
  /** Shorthand for `dependencies.runtime`. */
  runtime?: string[];
};

/** A validated manifest with defaults filled in, as src/catalog/parse.ts would return it. */
export function manifest(name: string, overrides: ManifestOverrides = {}): Manifest {
  const { dependencies, build, runtime, ...rest } = overrides;
  const version = rest.version ?? '1.0.0';
  const result: Manifest = {
    name,
    version,
    description: `The ${name} package.`,
    license: 'MIT',
    categories: [],
    stars: 0,
    archive: { url: `https://example.org/${name}-${version}.tar.gz`, sha256: ARCHIVE_SHA256 },
    ...rest,
    dependencies: {
      build: build ?? dependencies?.build ?? [],
      runtime: runtime ?? dependencies?.runtime ?? [],
    },
  };
  return result;
}

export interface AdvisoryOptions {
  /** The catalog package(s) it names; each gets the same `versions`/range. */
  package: string | string[];
  /** Start of the ECOSYSTEM range (default "0" when a range is written). */
  introduced?: string;
  /** End of the ECOSYSTEM range. */
  fixed?: string;
  /** Explicitly listed affected versions. */
  versions?: string[];
  /** `database_specific.severity`, e.g. `HIGH`, `MODERATE`. */
  severity?: string;
  /** A CVSS vector for `severity[]`. */
  cvss?: string;
  /** The `withdrawn` timestamp. */
  withdrawn?: string;
  /** Default `Advisory <id>`; null leaves it out. */
  summary?: string | null;
  modified?: string;
  /** Raw `affected[]` entries appended after the ones built from `package`. */
  affected?: OsvAffected[];
  [extra: string]: unknown;
}

/**
 * An OSV record. Without `introduced`, `fixed` or `versions`, it affects every version
 * (`introduced: "0"`); with `versions` only, just those versions.
 */
export function advisory(id: string, options: AdvisoryOptions): OsvRecord {
  const {
    package: pkg,
    introduced,
    fixed,
    versions,
    severity,
    cvss,
    withdrawn,
    summary = `Advisory ${id}`,
    modified = '2026-01-01T00:00:00Z',
    affected: extraAffected = [],
    ...extra
  } = options;
  const names = Array.isArray(pkg) ? pkg : [pkg];
  const writeRange = introduced !== undefined || fixed !== undefined || versions === undefined;
  const affected: OsvAffected[] = names.map((name) => {
    const entry: OsvAffected = { package: { name, ecosystem: 'pkgcat' } };
    if (versions !== undefined) entry.versions = versions;
    if (writeRange) {
      entry.ranges = [{ type: 'ECOSYSTEM', events: [{ introduced: introduced ?? '0' }, ...(fixed !== undefined ? [{ fixed }] : [])] }];
    }
    return entry;
  });
  const record: OsvRecord = { id, modified, affected: [...affected, ...extraAffected], ...extra };
  if (summary !== null) record.summary = summary;
  if (severity !== undefined) record.database_specific = { severity };
  if (cvss !== undefined) record.severity = [{ type: cvss.startsWith('CVSS:4.0/') ? 'CVSS_V4' : 'CVSS_V3', score: cvss }];
  if (withdrawn !== undefined) record.withdrawn = withdrawn;
  return record;
}

/** A `scorecard --format=json` result with the given overall score. */
export function scorecard(score: number): Scorecard {
  return {
    date: '2026-02-01T00:00:00Z',
    repo: { name: 'github.com/example/project', commit: 'f'.repeat(40) },
    scorecard: { version: 'v5.0.0', commit: 'e'.repeat(40) },
    score,
    checks: [
      {
        name: 'Maintained',
        score: 10,
        reason: '30 commit(s) out of 30 and 0 issue activity out of 0 found in the last 90 days',
        details: null,
        documentation: { short: 'Determines if the project is "actively maintained".', url: 'https://github.com/ossf/scorecard/blob/main/docs/checks.md#maintained' },
      },
    ],
  };
}

export interface EventOptions extends Partial<Omit<VersionEvent, 'version' | 'dependencies'>> {
  build?: string[];
  runtime?: string[];
}

/** One shipping event (CATALOG-FORMAT.md version history). */
export function shipped(version: string, options: EventOptions = {}): VersionEvent {
  const { build = [], runtime = [], ...rest } = options;
  return {
    version,
    sha: DEFAULT_COMMIT.sha,
    pushedAt: DEFAULT_COMMIT.pushedAt,
    filesChanged: 1,
    linesAdded: 10,
    linesRemoved: 0,
    ...rest,
    dependencies: { build, runtime },
  };
}

export interface StateOptions {
  commit?: Partial<CommitInfo>;
  packages: (Manifest | PackageState)[];
  advisories?: OsvRecord[];
  /**
   * Shipping events by package name, oldest first. A present package without an entry gets one
   * event at this commit for its current version. A name with history but no package is a removed
   * package: it keeps its history, and its spelling here is its canonical one.
   */
  history?: Record<string, VersionEvent[]>;
}

/** A CatalogState with `names` and `history` filled in as the build would fill them. */
export function catalogState(options: StateOptions): CatalogState {
  const info = commit(options.commit);
  const packages = new Map<string, PackageState>();
  for (const item of options.packages) {
    const pkg: PackageState = 'manifest' in item ? item : { manifest: item, scorecard: null };
    const key = nameKey(pkg.manifest.name);
    if (packages.has(key)) throw new Error(`catalogState: two packages named ${key}`);
    packages.set(key, pkg);
  }
  const advisories = new Map<string, OsvRecord>();
  for (const osv of options.advisories ?? []) {
    if (advisories.has(osv.id)) throw new Error(`catalogState: two advisories ${osv.id}`);
    advisories.set(osv.id, osv);
  }
  const history = new Map<string, VersionEvent[]>();
  const names = new Map<string, string>();
  for (const [name, events] of Object.entries(options.history ?? {})) {
    history.set(nameKey(name), events);
    names.set(nameKey(name), name);
  }
  for (const [key, { manifest: m }] of packages) {
    names.set(key, m.name);
    if (!history.has(key)) {
      history.set(key, [
        shipped(m.version, { sha: info.sha, pushedAt: info.pushedAt, build: m.dependencies.build, runtime: m.dependencies.runtime }),
      ]);
    }
  }
  return { commit: info, packages, advisories, history, names };
}
