/**
 * Resolvers of the HTML pages (docs/site.md): files the build rendered into the release's
 * public/, served as they are, like every other floats-latest file.
 */
import { join } from 'node:path';
import { paths } from '../../src/store/layout.ts';
import { ADVISORY_PAGE_ID } from '../../src/site/frame.ts';
import { fillTemplate, surface } from '../../src/surfaces/registry.ts';
import type { Catalog } from '../catalog.ts';
import { noCommitsFailure, unknownAdvisoryFailure, type Answer, type Failure, type ResolveRequest } from '../surface.ts';

type PageRow = 'search-page' | 'package-page' | 'advisory-page' | 'changes-page';

/** The page of row `id` in the request's release; null when the release has no such file. */
async function pageFile(catalog: Catalog, request: ResolveRequest, id: PageRow, params: Record<string, string> = {}): Promise<Answer | null> {
  const release = await request.release();
  if (!release) return null;
  const file = fillTemplate(surface(id).publicFile!, params);
  const path = join(paths.public(release.dir), file);
  const bytes = await catalog.writeOnceFile(path);
  return bytes && { kind: 'bytes', bytes, identity: `release:${release.id}:${file}`, file: path };
}

/** `/`: the search page; nothing published yet is the catalog's "no commits". */
export async function searchPage(request: ResolveRequest): Promise<Answer | Failure> {
  return (await pageFile(request.catalog, request, 'search-page')) ?? noCommitsFailure;
}

/** `/changes`. */
export async function changesPage(request: ResolveRequest): Promise<Answer | Failure> {
  return (await pageFile(request.catalog, request, 'changes-page')) ?? noCommitsFailure;
}

/** `/pkgs/{name}`: `name` is the canonical spelling of a package at the tip (gateway/params.ts). */
export async function packagePage(request: ResolveRequest): Promise<Answer | Failure> {
  const answer = await pageFile(request.catalog, request, 'package-page', { name: request.params.name });
  if (!answer) throw new Error(`the page of ${request.params.name} is missing from the release`);
  return answer;
}

/** `/advisories/{id}`: an advisory active at the tip. */
export async function advisoryPage(request: ResolveRequest): Promise<Answer | Failure> {
  const { id } = request.params;
  const answer = ADVISORY_PAGE_ID.test(id) ? await pageFile(request.catalog, request, 'advisory-page', { id }) : null;
  return answer ?? unknownAdvisoryFailure(id);
}
