/**
 * Answers of the sha-pinned rows, read from the commit's state root: `sha`/`base` are full shas
 * on the request's chain (params.ts) and the session gate has passed.
 */
import type { StateRoot } from '../../src/store/layout.ts';
import { CACHE } from '../../src/http/cache-control.ts';
import { unknownPackage } from '../errors.ts';
import type { Answer, SurfaceRequest } from '../surface.ts';

async function stateOf({ catalog, params }: SurfaceRequest, param = 'sha'): Promise<StateRoot> {
  const root = await catalog.stateRoot(params[param]);
  // The chain lists only built commits: a missing root is a broken output directory, not a 404.
  if (!root) throw new Error(`commit ${params[param]} is on the release's chain but states/${params[param]}.json is missing`);
  return root;
}

export async function listingBundle(request: SurfaceRequest): Promise<Answer> {
  return { kind: 'stored', body: (await stateOf(request)).listing };
}

export async function fullBundle(request: SurfaceRequest): Promise<Answer> {
  return { kind: 'stored', body: (await stateOf(request)).full };
}

/** deps.json / versions.json: the commit's package index entry, 404 when it has no such body. */
async function packageObject(request: SurfaceRequest, member: 'deps' | 'versions'): Promise<Answer> {
  const root = await stateOf(request);
  const entry = request.packageKey === null ? null : await request.catalog.packageEntry(root, request.packageKey);
  const hash = entry?.[member];
  if (!hash) throw unknownPackage(request.params.pkg, CACHE.pinned);
  return { kind: 'object', hash };
}

export const packageDeps = (request: SurfaceRequest) => packageObject(request, 'deps');
export const packageVersions = (request: SurfaceRequest) => packageObject(request, 'versions');

export async function diff(request: SurfaceRequest): Promise<Answer> {
  const { sha, base } = request.params;
  const body = await request.catalog.diffs.get(sha, base);
  if (!body) throw new Error(`the listing of ${sha} or ${base} is missing from states/`);
  return { kind: 'bytes', bytes: body.bytes, etag: body.etag, identity: `diff:${sha}/${base}`, file: body.file };
}
