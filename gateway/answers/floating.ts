/** Resolvers of the floats-latest and alias rows: files the build wrote into the release's public/. */
import { join } from 'node:path';
import { composeRecentCommits } from '../../src/compose/commits.ts';
import { serialize } from '../../src/serialize.ts';
import { paths } from '../../src/store/layout.ts';
import { CACHE } from '../../src/http/cache-control.ts';
import { fillTemplate, surface } from '../../src/surfaces/registry.ts';
import type { Catalog } from '../catalog.ts';
import type { Release } from '../release.ts';
import { noCommitsFailure, type Answer, type Failure, type ResolveRequest } from '../surface.ts';

/**
 * The public file of registry row `id` (with its parameters), as an Answer. A published release
 * never changes, so its files are kept in memory like the write-once objects.
 */
async function publicFile(catalog: Catalog, release: Release, id: 'package' | 'recent-commits' | 'openapi', params: Record<string, string> = {}): Promise<Answer> {
  const file = fillTemplate(surface(id).publicFile!, params);
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

/** `/api/pkgs/openapi.json`: the document the build prerendered; a failure before anything is published. */
export async function openapiDocument({ catalog, release }: ResolveRequest): Promise<Answer | Failure> {
  const current = await release();
  return current ? publicFile(catalog, current, 'openapi') : noCommitsFailure;
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
    const fallback = surface('recent-commits').query![0].default;
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
