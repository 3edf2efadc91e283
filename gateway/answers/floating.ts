/** Resolvers of the floats-latest and alias rows: the documents of the release's manifest. */
import { badgeOptions, composeBadge } from '../../src/compose/badge.ts';
import { composeRecentCommits } from '../../src/compose/commits.ts';
import { nameKey, PART_NUMBER } from '../../src/grammar.ts';
import { serialize } from '../../src/serialize.ts';
import { contentHash } from '../../src/store/hash.ts';
import { CACHE } from '../../src/http/cache-control.ts';
import type { QueryValues } from '../../src/surfaces/query.ts';
import { fillTemplate, publicFileFor, queryDefault, surface, type SurfaceId } from '../../src/surfaces/registry.ts';
import type { Catalog } from '../catalog.ts';
import type { Release } from '../release.ts';
import { noCommitsFailure, unknownAdvisoryFailure, unknownPartFailure, type Answer, type Failure, type ResolveRequest } from '../surface.ts';

/**
 * The public file of registry row `id` (with its parameters; the variant file of `query` when it
 * has one) at the release's tip, as an Answer; null when the release has no such file.
 */
export async function releaseFile(catalog: Catalog, release: Release, id: SurfaceId, params: Record<string, string> = {}, query: QueryValues = {}): Promise<Answer | null> {
  const document = await catalog.releaseDocument(release, fillTemplate(publicFileFor(surface(id), query), params));
  if (!document) return null;
  return 'body' in document ? { kind: 'assembled', ...document.body } : { kind: 'bytes', bytes: document.bytes, identity: `document:${document.name}`, stableName: document.name };
}

/** The public file of registry row `id` (the variant file of `query` when it has one), which every release has. */
export async function publicFile(catalog: Catalog, release: Release, id: SurfaceId, params: Record<string, string> = {}, query: QueryValues = {}): Promise<Answer> {
  const answer = await releaseFile(catalog, release, id, params, query);
  if (!answer) throw new Error(`${fillTemplate(surface(id).publicFile!, params)} is missing from release ${release.id}`);
  return answer;
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
  if (options.style === queryDefault(surface('package-badge'), 'style') && options.label === '') return publicFile(catalog, current, 'package-badge', { name: params.name }, query);
  const root = await catalog.stateRoot(current.info.tip.sha);
  const record = root && (await catalog.record(root, nameKey(params.name)));
  if (!record) throw new Error(`${params.name} is in release ${current.id} but has no record at its tip`);
  const bytes = Buffer.from(composeBadge(record, options), 'utf8');
  return { kind: 'bytes', bytes, identity: `badge:${contentHash(bytes)}` };
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

/**
 * A document of the release with no parameter but a package name (llms.txt, the sitemap, the
 * feeds, `/pkgs/{name}.md`, the search, package and changes pages): `name` is already the
 * canonical spelling of a package at the tip (params.ts), so `/pkgs/ZLIB.md` answers zlib's
 * mirror and `/pkgs/ZLIB` its page, as `/api/pkgs/ZLIB.json` answers its record.
 */
export function releaseDocument(
  id: 'advisory-feed' | 'changes-feed' | 'package-markdown' | 'llms-txt' | 'llms-full-txt' | 'sitemap' | 'search-page' | 'package-page' | 'changes-page',
) {
  return async ({ catalog, release, params }: ResolveRequest): Promise<Answer | Failure> => {
    const current = await release();
    if (!current?.info.tip) return noCommitsFailure;
    return publicFile(catalog, current, id, params);
  };
}

/**
 * `/advisories/{id}.md` and `/advisories/{id}`: the mirror or the page of an advisory active at
 * the tip; ids are exact (case matters, as in the catalog's file names).
 */
export function advisoryDocument(id: 'advisory-markdown' | 'advisory-page') {
  return async ({ catalog, release, params }: ResolveRequest): Promise<Answer | Failure> => {
    const current = await release();
    if (!current?.info.tip) return noCommitsFailure;
    const answer = await releaseFile(catalog, current, id, { id: params.id });
    return answer ?? unknownAdvisoryFailure(params.id);
  };
}

/** `/llms-full/{part}.txt`: a part of every mirror; how many there are follows the catalog (src/compose/llms.ts). */
export async function llmsFullPart({ catalog, release, params }: ResolveRequest): Promise<Answer | Failure> {
  const current = await release();
  if (!current?.info.tip) return noCommitsFailure;
  const answer = PART_NUMBER.test(params.part) ? await releaseFile(catalog, current, 'llms-full-part', { part: params.part }) : null;
  return answer ?? unknownPartFailure(params.part);
}
