/** Answers of the floats-latest and alias rows: files the build wrote into the release's public/. */
import { join } from 'node:path';
import { clampLimit, composeRecentCommits, COMMITS_LIMIT } from '../../src/compose/commits.ts';
import { serialize } from '../../src/serialize.ts';
import { paths } from '../../src/store/layout.ts';
import { CACHE } from '../../src/http/cache-control.ts';
import { notFound } from '../errors.ts';
import type { Catalog } from '../catalog.ts';
import type { Release } from '../release.ts';
import type { Answer, SurfaceRequest } from '../surface.ts';

/**
 * A file of the release's public tree, as an Answer (`file` is a URL path without the leading slash).
 * A published release never changes, so its files are kept in memory like the write-once objects.
 */
async function publicFile(catalog: Catalog, release: Release, file: string): Promise<Answer> {
  const path = join(paths.public(release.dir), file);
  const bytes = await catalog.writeOnceFile(path);
  if (!bytes) throw new Error(`${path} is missing from the release`);
  return { kind: 'bytes', bytes, identity: `release:${release.id}:${file}`, file: path };
}

/** `/api/pkgs/{name}.json`: `name` is already the canonical spelling of a package at the tip (params.ts). */
export async function packageRecord({ catalog, release, params }: SurfaceRequest): Promise<Answer> {
  const current = await release();
  if (!current) throw new Error('a package name resolved without a release');
  return publicFile(catalog, current, paths.publicFile.packageRecord(params.name));
}

const NO_COMMITS: Answer = { kind: 'bytes', bytes: Buffer.from('[]'), identity: 'no-commits', cacheControl: CACHE.noStore };

/**
 * `/api/pkgs/recent-commits.json`: the build's file for the default limit, else composed from the
 * release's chain. Empty history or any failure: 200 `[]`, `no-store`, never a 5xx (SPEC.md Errors).
 */
export async function recentCommits({ req, release, catalog }: SurfaceRequest): Promise<Answer> {
  try {
    const current = await release();
    if (!current || current.chain.length === 0) return NO_COMMITS;
    const limit = clampLimit(req.query.limit);
    if (limit === COMMITS_LIMIT.default) return await publicFile(catalog, current, paths.publicFile.recentCommits());
    const bytes = Buffer.from(serialize(composeRecentCommits(current.chain, limit)), 'utf8');
    return { kind: 'bytes', bytes, identity: `release:${current.id}:recent-commits:${limit}` };
  } catch (error) {
    catalog.log(`recent commits answered [] after a failure: ${error instanceof Error ? error.message : String(error)}`);
    return NO_COMMITS;
  }
}

/** `/api/pkgs/bundle/latest.json`: 302 to the tip's listing bundle; 404 when nothing has a commit. */
export async function latestBundle({ release }: SurfaceRequest): Promise<Answer> {
  const tip = (await release())?.info.tip;
  if (!tip) throw notFound('The catalog has no commits yet.', CACHE.alias);
  return { kind: 'redirect', status: 302, location: `/api/pkgs/bundle/${tip.sha}.json`, cacheControl: CACHE.alias };
}
