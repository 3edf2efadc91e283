/**
 * Resolvers of the sha-pinned rows, read from the commit's state root: `sha`/`base` are full
 * shas on the request's chain (params.ts) and the session gate has passed.
 */
import { composeDiff } from '../../src/compose/diff.ts';
import { serialize } from '../../src/serialize.ts';
import { paths, readListing, type StateRoot } from '../../src/store/layout.ts';
import { unknownPackageFailure, type Answer, type Failure, type ResolveRequest } from '../surface.ts';

async function stateOf({ catalog, params }: ResolveRequest, param = 'sha'): Promise<StateRoot> {
  const root = await catalog.stateRoot(params[param]);
  // The chain lists only built commits: a missing root is a broken output directory, not a 404.
  if (!root) throw new Error(`commit ${params[param]} is on the release's chain but states/${params[param]}.json is missing`);
  return root;
}

export async function listingBundle(request: ResolveRequest): Promise<Answer> {
  return { kind: 'stored', body: (await stateOf(request)).listing };
}

export async function fullBundle(request: ResolveRequest): Promise<Answer> {
  return { kind: 'stored', body: (await stateOf(request)).full };
}

/** deps.json / versions.json: the commit's package index entry; a failure when it has no such body. */
async function packageObject(request: ResolveRequest, member: 'deps' | 'versions'): Promise<Answer | Failure> {
  const root = await stateOf(request);
  const entry = request.packageKey === null ? null : await request.catalog.packageEntry(root, request.packageKey);
  const hash = entry?.[member];
  if (!hash) return unknownPackageFailure(request.params.name);
  return { kind: 'object', hash };
}

export const packageDeps = (request: ResolveRequest) => packageObject(request, 'deps');
export const packageVersions = (request: ResolveRequest) => packageObject(request, 'versions');

/** A diff is composed on its first request (the build writes each commit's against its parent) and kept. */
export async function diff({ catalog, params }: ResolveRequest): Promise<Answer> {
  const { sha, base } = params;
  const body = await catalog.composed.get(paths.diff(catalog.out, sha, base), async () => {
    const [baseListing, headListing] = await Promise.all([readListing(catalog.out, base), readListing(catalog.out, sha)]);
    return baseListing && headListing ? Buffer.from(serialize(composeDiff(baseListing, headListing)), 'utf8') : null;
  });
  if (!body) throw new Error(`the listing of ${sha} or ${base} is missing from states/`);
  return { kind: 'bytes', bytes: body.bytes, etag: body.etag, identity: `diff:${sha}/${base}`, file: body.file };
}
