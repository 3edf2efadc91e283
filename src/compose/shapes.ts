/**
 * The two whole-catalog shapes, written once. Items may be plain arrays (pages, tests, small
 * catalogs) or StoredArray chunk references (the build, which stores each item once and
 * assembles the bundle from chunks); both serialize to the same bytes. A leaf module: reading a
 * stored state needs the shape without loading composition.
 */
import type { RawJson, StoredArray, StoredValue } from '../serialize.ts';
import { SCHEMA_VERSION } from '../schemas/version.ts';
import type { FullAdvisory, PackageCard, PackageRecord, TransitiveAdvisory } from '../schemas/wire.ts';
import type { CommitInfo } from './types.ts';

/** `/api/pkgs/bundle/{sha}.json`. */
export function listingBundle(commit: CommitInfo, packages: readonly PackageCard[] | StoredArray, categories: string[]) {
  return { schemaVersion: SCHEMA_VERSION, commitSha: commit.sha, pushedAt: commit.pushedAt, packages, allCategories: categories };
}

/** `/api/pkgs/bundle/{sha}/full.json`. */
export function fullBundle(
  commit: CommitInfo,
  packages: readonly PackageRecord[] | StoredArray,
  advisories: Record<string, FullAdvisory> | StoredValue | RawJson,
  transitive: readonly TransitiveAdvisory[] | StoredArray,
) {
  return { schemaVersion: SCHEMA_VERSION, commitSha: commit.sha, pushedAt: commit.pushedAt, packages, advisories, transitiveAdvisories: transitive };
}

