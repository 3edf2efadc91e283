/**
 * The data composition works on: one catalog state, as plain values. The build derives it from
 * git (src/catalog); composition (this folder) turns it into payloads without touching fs, git,
 * the clock or the environment.
 */
import type { Manifest } from '../schemas/catalog.ts';

/** Lowercase severity, everywhere (DECISIONS.md 9). */
export type Severity = 'critical' | 'high' | 'medium' | 'low' | 'unknown';

export const SEVERITIES: readonly Severity[] = ['critical', 'high', 'medium', 'low', 'unknown'];

/** One first-parent commit of `main`. */
export interface CommitInfo {
  sha: string;
  /** Committer time, ISO-8601 UTC without fractional seconds. */
  pushedAt: string;
  /** First line of the message; null when empty or not valid UTF-8. */
  message: string | null;
}

export interface DependencySets {
  build: string[];
  runtime: string[];
}

/**
 * A validated `packages/<name>/manifest.json` (CATALOG-FORMAT.md), with defaults filled in: the
 * output of its schema in src/schemas/catalog.ts.
 */
export type { Manifest };

export interface OsvEvent {
  introduced?: string;
  fixed?: string;
  last_affected?: string;
  limit?: string;
}

export interface OsvRange {
  type: string;
  events: OsvEvent[];
  repo?: string;
}

export interface OsvAffected {
  package?: { name?: string; ecosystem?: string; purl?: string };
  versions?: string[];
  ranges?: OsvRange[];
  [key: string]: unknown;
}

/** An `advisories/<id>.json` OSV record, as read (validated for `id` and `modified`). */
export interface OsvRecord {
  id: string;
  modified: string;
  summary?: string;
  details?: string;
  aliases?: string[];
  published?: string;
  withdrawn?: string;
  severity?: { type: string; score: string }[];
  affected?: OsvAffected[];
  references?: { type?: string; url?: string }[];
  database_specific?: Record<string, unknown>;
  [key: string]: unknown;
}

/** A `packages/<name>/scorecard.json` (the shape `scorecard --format=json` prints). */
export interface Scorecard {
  date?: string;
  repo?: { name?: string; commit?: string };
  scorecard?: { version?: string; commit?: string };
  score: number;
  checks: {
    name: string;
    score: number;
    reason?: string;
    details?: string[] | null;
    documentation?: { short?: string; url?: string };
  }[];
  [key: string]: unknown;
}

/** A package present at a commit. */
export interface PackageState {
  manifest: Manifest;
  scorecard: Scorecard | null;
}

/** One shipping event of a package (CATALOG-FORMAT.md "version history"). */
export interface VersionEvent {
  version: string;
  sha: string;
  pushedAt: string;
  filesChanged: number;
  linesAdded: number;
  linesRemoved: number;
  dependencies: DependencySets;
}

/** Everything composition needs to answer for one commit. Maps are keyed by nameKey / advisory id. */
export interface CatalogState {
  commit: CommitInfo;
  packages: ReadonlyMap<string, PackageState>;
  advisories: ReadonlyMap<string, OsvRecord>;
  /** Shipping events per package, oldest first, up to and including this commit (removed packages keep theirs). */
  history: ReadonlyMap<string, readonly VersionEvent[]>;
  /** Canonical spelling of every package present at or before this commit (its latest spelling). */
  names: ReadonlyMap<string, string>;
}

/** A problem in the catalog data, reported by the build and kept in the diagnostics file. */
export interface Diagnostic {
  commit: string;
  path: string;
  /** `error`: the record was left out of the commit. `warning`: kept, but worth fixing. */
  level: 'error' | 'warning';
  message: string;
}
