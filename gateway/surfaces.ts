/**
 * The resolver of every served registry row (src/surfaces/registry.ts), by row id. A new surface
 * is a registry row plus one entry here; tests/gateway/registry.test.ts fails when a served row
 * has no resolver or a resolver has no served row.
 */
import { SERVED, type SurfaceRow } from '../src/surfaces/registry.ts';
import { advisoryDocument, latestBundle, openapiDocument, packageRecord, recentCommits, releaseDocument } from './answers/floating.ts';
import { diff, fullBundle, listingBundle, packageDeps, packageVersions } from './answers/pinned.ts';
import { floatingSbom, pinnedSbom } from './answers/sbom.ts';
import type { Resolver } from './surface.ts';

export const RESOLVERS: Readonly<Record<string, Resolver>> = {
  'recent-commits': recentCommits,
  openapi: openapiDocument,
  'latest-bundle': latestBundle,
  'listing-bundle': listingBundle,
  'full-bundle': fullBundle,
  'pinned-deps': packageDeps,
  'pinned-versions': packageVersions,
  'pinned-sbom': pinnedSbom,
  diff,
  'package-sbom': floatingSbom,
  package: packageRecord,
  'advisory-feed': releaseDocument('advisory-feed'),
  'changes-feed': releaseDocument('changes-feed'),
  'package-markdown': releaseDocument('package-markdown'),
  'advisory-markdown': advisoryDocument('advisory-markdown'),
  'llms-txt': releaseDocument('llms-txt'),
  'llms-full-txt': releaseDocument('llms-full-txt'),
  sitemap: releaseDocument('sitemap'),
  'search-page': releaseDocument('search-page'),
  'package-page': releaseDocument('package-page'),
  'advisory-page': advisoryDocument('advisory-page'),
  'changes-page': releaseDocument('changes-page'),
};

/** The served rows with their resolvers, in registry order (the order routes match in). */
export function servedSurfaces(): { row: SurfaceRow; resolve: Resolver }[] {
  return SERVED.map((row) => {
    const resolve = RESOLVERS[row.id];
    if (!resolve) throw new Error(`the registry serves ${row.id} (${row.path}) but the gateway has no resolver for it`);
    return { row, resolve };
  });
}
