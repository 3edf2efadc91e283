/**
 * THE route table: one row per surface of SPEC.md "Endpoints". Rows are matched in order, so
 * fixed routes come before the `{name}` patterns they would otherwise lose to (DECISIONS.md 4).
 * A later document (SBOMs, badges, openapi.json, markdown mirrors, llms.txt, the sitemap, the
 * feed, pages) is one more row: its path, family, Content-Type, Cache-Control and resolver.
 */
import { CACHE } from '../src/http/cache-control.ts';
import { CONTENT_TYPE } from '../src/http/content-types.ts';
import { latestBundle, packageRecord, recentCommits } from './answers/floating.ts';
import { diff, fullBundle, listingBundle, packageDeps, packageVersions } from './answers/pinned.ts';
import type { Surface } from './surface.ts';

const pinned = (path: string, resolve: Surface['resolve']): Surface => ({
  path,
  family: 'pinned',
  contentType: CONTENT_TYPE.json,
  cacheControl: CACHE.pinned,
  resolve,
});

export const SURFACES: readonly Surface[] = [
  // Fixed routes under /api/pkgs/ first.
  { path: '/api/pkgs/recent-commits.json', family: 'floating', contentType: CONTENT_TYPE.json, cacheControl: CACHE.floating, resolve: recentCommits },
  { path: '/api/pkgs/bundle/latest.json', family: 'alias', contentType: CONTENT_TYPE.json, cacheControl: CACHE.alias, resolve: latestBundle },
  // Sha-pinned: `:pkg` rows before diff, so the package named `diff` keeps its deps.json and versions.json.
  pinned('/api/pkgs/bundle/:sha.json', listingBundle),
  pinned('/api/pkgs/bundle/:sha/full.json', fullBundle),
  pinned('/api/pkgs/bundle/:sha/:pkg/deps.json', packageDeps),
  pinned('/api/pkgs/bundle/:sha/:pkg/versions.json', packageVersions),
  pinned('/api/pkgs/bundle/:sha/diff/:base.json', diff),
  // Floats-latest by name, last.
  { path: '/api/pkgs/:name.json', family: 'floating', contentType: CONTENT_TYPE.json, cacheControl: CACHE.floating, resolve: packageRecord },
];
