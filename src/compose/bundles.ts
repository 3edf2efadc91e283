/**
 * Whole-catalog payloads. The shapes are written once here; items may be plain arrays (pages,
 * tests, small catalogs) or StoredArray chunk references (the build, which stores each item
 * once and assembles the bundle from chunks); both serialize to the same bytes.
 */
import type { RawJson, StoredArray, StoredValue } from '../serialize.ts';
import { SCHEMA_VERSION } from '../schemas/wire.ts';
import { compareNames } from '../grammar.ts';
import { advisoryMap, transitiveAdvisories, type TransitiveAdvisory } from './advisories.ts';
import { composeCard, composeRecord, type PackageCard, type PackageRecord } from './package.ts';
import type { CatalogAnalysis } from './analysis.ts';
import type { CatalogState, CommitInfo } from './types.ts';

/** Package keys of a state in listing order. */
export function packageKeys(state: CatalogState): string[] {
  return [...state.packages.keys()].sort((a, b) => compareNames(state.packages.get(a)!.manifest.name, state.packages.get(b)!.manifest.name));
}

export function allCategories(state: CatalogState): string[] {
  const categories = new Set<string>();
  for (const { manifest } of state.packages.values()) for (const category of manifest.categories) categories.add(category);
  return [...categories].sort();
}

/** `/api/pkgs/bundle/{sha}.json`. */
export function listingBundle(commit: CommitInfo, packages: readonly PackageCard[] | StoredArray, categories: string[]) {
  return { schemaVersion: SCHEMA_VERSION, commitSha: commit.sha, pushedAt: commit.pushedAt, packages, allCategories: categories };
}

/** `/api/pkgs/bundle/{sha}/full.json`. */
export function fullBundle(
  commit: CommitInfo,
  packages: readonly PackageRecord[] | StoredArray,
  advisories: ReturnType<typeof advisoryMap> | StoredValue | RawJson,
  transitive: readonly TransitiveAdvisory[] | StoredArray,
) {
  return { schemaVersion: SCHEMA_VERSION, commitSha: commit.sha, pushedAt: commit.pushedAt, packages, advisories, transitiveAdvisories: transitive };
}

/** The listing bundle composed whole (what the build's chunked assembly must equal). */
export function composeListingBundle(state: CatalogState, analysis: CatalogAnalysis) {
  const cards = packageKeys(state).map((key) => composeCard(state, analysis, key));
  return listingBundle(state.commit, cards, allCategories(state));
}

/** The full bundle composed whole (what the build's chunked assembly must equal). */
export function composeFullBundle(state: CatalogState, analysis: CatalogAnalysis) {
  const keys = packageKeys(state);
  return fullBundle(
    state.commit,
    keys.map((key) => composeRecord(state, analysis, key)),
    advisoryMap(state, analysis),
    keys.flatMap((key) => transitiveAdvisories(state, analysis, key)),
  );
}

export type ListingBundle = ReturnType<typeof composeListingBundle>;
