/** Resolvers of the floats-latest and alias rows: files the build wrote into the release's public/. */
import { join } from 'node:path';
import { badgeOptions, composeBadge } from '../../src/compose/badge.ts';
import { composeRecentCommits } from '../../src/compose/commits.ts';
import { nameKey } from '../../src/grammar.ts';
import { serialize } from '../../src/serialize.ts';
import { contentHash } from '../../src/store/hash.ts';
import { paths } from '../../src/store/layout.ts';
import { CACHE } from '../../src/http/cache-control.ts';
import type { QueryValues } from '../../src/surfaces/query.ts';
import { fillTemplate, publicFileFor, queryDefault, surface, type SurfaceId } from '../../src/surfaces/registry.ts';
import type { Catalog } from '../catalog.ts';
import type { Release } from '../release.ts';
import { noCommitsFailure, type Answer, type Failure, type ResolveRequest } from '../surface.ts';

/**
 * The public file of registry row `id` (with its parameters; the variant file of `query` when it
 * has one), as an Answer. A published release never changes, so its files are kept in memory like
 * the write-once objects.
 */
async function publicFile(catalog: Catalog, release: Release, id: SurfaceId, params: Record<string, string> = {}, query: QueryValues = {}): Promise<Answer> {
  const file = fillTemplate(publicFileFor(surface(id), query), params);
  const path = join(paths.public(release.dir), file);
  const bytes = await catalog.writeOnceFile(path);
  if (!bytes) throw new Error(`${path} is missing from the release`);
  return { kind: 'bytes', bytes, identity: `release:${release.id}:${file}`, file: path };
}

/** `/api/pkgs/{name}.json`: `name` is already the canonical spelling of a package at the tip (params.ts). */
export async function packageRecord({ catalog, release, params }: ResolveRequest): Promise<Answer> {
  const current = await release();
  if (!current) throw new Error('a package name resolved without a release');
  return publicFile(catalog, current, 'package', { name: params.name });
}

/**
 * `/api/pkgs/{name}/badge.svg`: the build's file for the default style and label (of either
 * metric), else drawn from the tip's record, the one the file and the package JSON come from.
 */
export async function packageBadge({ catalog, release, params, query }: ResolveRequest): Promise<Answer> {
  const current = await release();
  if (!current?.info.tip) throw new Error('a package name resolved without a release');
  const options = badgeOptions(query);
  if (options.style === queryDefault(surface('package-badge'), 'style') && options.label === '') {
    return publicFile(catalog, current, 'package-badge', { name: params.name }, query);
  }
  const root = await catalog.stateRoot(current.info.tip.sha);
  const record = root && (await catalog.record(root, nameKey(params.name)));
  if (!record) throw new Error(`${params.name} is in release ${current.id} but has no record at its tip`);
  const bytes = Buffer.from(composeBadge(record, options), 'utf8');
  return { kind: 'bytes', bytes, identity: `badge:${contentHash(bytes)}` };
}

const NO_COMMITS: Answer = { kind: 'bytes', bytes: Buffer.from('[]'), identity: 'no-commits', cacheControl: CACHE.noStore };

/**
 * `/api/pkgs/recent-commits.json`: the build's file for the default limit, else composed from the
 * release's chain. Empty history or any failure: 200 `[]`, `no-store`, never a 5xx (SPEC.md Errors).
 */
export async function recentCommits({ query, release, catalog }: ResolveRequest): Promise<Answer> {
  try {
    const current = await release();
    if (!current || current.chain.length === 0) return NO_COMMITS;
    const limit = query.limit as number;
    const fallback = queryDefault(surface('recent-commits'), 'limit');
    if (limit === fallback) return await publicFile(catalog, current, 'recent-commits');
    const bytes = Buffer.from(serialize(composeRecentCommits(current.chain, limit)), 'utf8');
    return { kind: 'bytes', bytes, identity: `release:${current.id}:recent-commits:${limit}` };
  } catch (error) {
    catalog.log(`recent commits answered [] after a failure: ${error instanceof Error ? error.message : String(error)}`);
    return NO_COMMITS;
  }
}

/** `/api/pkgs/bundle/latest.json`: 302 to the tip's listing bundle; a failure when nothing has a commit. */
export async function latestBundle({ release }: ResolveRequest): Promise<Answer | Failure> {
  const tip = (await release())?.info.tip;
  if (!tip) return noCommitsFailure;
  return { kind: 'redirect', status: 302, location: fillTemplate(surface('listing-bundle').path, { sha: tip.sha }), cacheControl: CACHE.alias };
}
