/** Whole-catalog payloads composed from a state (their shapes are in shapes.ts). */
import { compareNames } from '../grammar.ts';
import { advisoryMap } from './advisories.ts';
import { transitiveRollups } from './transitive.ts';
import { fullBundle, listingBundle } from './shapes.ts';
import { composeCard, composeRecord } from './package.ts';
import type { CatalogAnalysis } from './analysis.ts';
import type { CatalogState } from './types.ts';

export { fullBundle, listingBundle };

/** Package keys of a state in listing order. */
export function packageKeys(state: CatalogState): string[] {
  return [...state.packages.keys()].sort((a, b) => compareNames(state.packages.get(a)!.manifest.name, state.packages.get(b)!.manifest.name));
}

export function allCategories(state: CatalogState): string[] {
  const categories = new Set<string>();
  for (const { manifest } of state.packages.values()) for (const category of manifest.categories) categories.add(category);
  return [...categories].sort();
}

/** The listing bundle composed whole (what the build's chunked assembly must equal). */
export function composeListingBundle(state: CatalogState, analysis: CatalogAnalysis) {
  const cards = packageKeys(state).map((key) => composeCard(state, analysis, key));
  return listingBundle(state.commit, cards, allCategories(state));
}

/** The full bundle composed whole (what the build's chunked assembly must equal). */
export function composeFullBundle(state: CatalogState, analysis: CatalogAnalysis) {
  const keys = packageKeys(state);
  const rollups = new Map(transitiveRollups(state, analysis, keys));
  return fullBundle(
    state.commit,
    keys.map((key) => composeRecord(state, analysis, key)),
    advisoryMap(state, analysis),
    keys.flatMap((key) => rollups.get(key)!),
  );
}

export type ListingBundle = ReturnType<typeof composeListingBundle>;
