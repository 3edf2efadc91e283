/**
 * The resolver of every served registry row (src/surfaces/registry.ts), by row id. A new surface
 * is a registry row plus one entry here; tests/gateway/registry.test.ts fails when a served row
 * has no resolver or a resolver has no served row.
 */
import { SERVED, type SurfaceRow } from '../src/surfaces/registry.ts';
import { latestBundle, packageRecord, recentCommits } from './answers/floating.ts';
import { diff, fullBundle, listingBundle, packageDeps, packageVersions } from './answers/pinned.ts';
import { advisoryPage, changesPage, packagePage, searchPage } from './answers/pages.ts';
import type { Resolver } from './surface.ts';

export const RESOLVERS: Readonly<Record<string, Resolver>> = {
  'recent-commits': recentCommits,
  'latest-bundle': latestBundle,
  'listing-bundle': listingBundle,
  'full-bundle': fullBundle,
  'pinned-deps': packageDeps,
  'pinned-versions': packageVersions,
  diff,
  package: packageRecord,
  'search-page': searchPage,
  'package-page': packagePage,
  'advisory-page': advisoryPage,
  'changes-page': changesPage,
};

/** The served rows with their resolvers, in registry order (the order routes match in). */
export function servedSurfaces(): { row: SurfaceRow; resolve: Resolver }[] {
  return SERVED.map((row) => {
    const resolve = RESOLVERS[row.id];
    if (!resolve) throw new Error(`the registry serves ${row.id} (${row.path}) but the gateway has no resolver for it`);
    return { row, resolve };
  });
}
