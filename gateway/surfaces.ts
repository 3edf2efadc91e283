/**
 * The resolver of every served GET row of the registry (src/surfaces/registry.ts), by row id. A new
 * surface is a registry row plus one entry here (or in HANDLERS); tests/surfaces/registry.test.ts
 * fails when a served row has neither, or an entry has no served row.
 */
import { SERVED } from '../src/surfaces/registry.ts';
import { advisoryDocument, latestBundle, llmsFullPart, openapiDocument, packageBadge, packageRecord, recentCommits, releaseDocument } from './answers/floating.ts';
import { diff, fullBundle, listingBundle, packageDeps, packageVersions } from './answers/pinned.ts';
import { floatingSbom, pinnedSbom } from './answers/sbom.ts';
import { commitDigest } from './answers/digest.ts';
import { toolServerHandler } from './mcp/transport.ts';
import type { Route, RowHandler } from './routes.ts';
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
  'package-badge': packageBadge,
  'advisory-feed': releaseDocument('advisory-feed'),
  'changes-feed': releaseDocument('changes-feed'),
  'package-markdown': releaseDocument('package-markdown'),
  'advisory-markdown': advisoryDocument('advisory-markdown'),
  'llms-txt': releaseDocument('llms-txt'),
  'llms-full-txt': releaseDocument('llms-full-txt'),
  'llms-full-part': llmsFullPart,
  sitemap: releaseDocument('sitemap'),
  'search-page': releaseDocument('search-page'),
  'package-page': releaseDocument('package-page'),
  'advisory-page': advisoryDocument('advisory-page'),
  'changes-page': releaseDocument('changes-page'),
  'commit-digest': commitDigest,
};

/** The handlers of the served rows that answer every method on their path themselves, by row id: the tool server (POST). */
export const HANDLERS: Readonly<Record<string, RowHandler>> = {
  'tool-server': toolServerHandler,
};

/** The served rows with their resolvers or handlers, in registry order (the order routes match in). */
export function servedSurfaces(): Route[] {
  return SERVED.map((row): Route => {
    const resolve: Resolver | undefined = RESOLVERS[row.id];
    if (resolve !== undefined) return { row, resolve };
    const handle: RowHandler | undefined = HANDLERS[row.id];
    if (handle !== undefined) return { row, handle };
    throw new Error(`the registry serves ${row.id} (${row.path}) but the gateway has no resolver or handler for it`);
  });
}
