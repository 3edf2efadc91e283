/**
 * Resolvers of the sha-pinned rows, read from the commit's state root: `sha`/`base` are full
 * shas on the request's chain (params.ts) and the session gate has passed.
 */
import { composeDiff, type DiffSide } from '../../src/compose/diff.ts';
import { serialize } from '../../src/serialize.ts';
import { paths, type StateRoot } from '../../src/store/layout.ts';
import { unknownPackageFailure, type Answer, type Failure, type ResolveRequest } from '../surface.ts';

async function stateOf({ catalog, params }: ResolveRequest, param = 'sha'): Promise<StateRoot> {
  const root = await catalog.stateRoot(params[param]);
  // The chain lists only built commits: a missing root is a broken output directory, not a 404.
  if (!root) throw new Error(`commit ${params[param]} is on the release's chain but its state root is missing from the packs`);
  return root;
}

export async function listingBundle(request: ResolveRequest): Promise<Answer> {
  return { kind: 'assembled', ...request.catalog.bundle((await stateOf(request)).listing) };
}

export async function fullBundle(request: ResolveRequest): Promise<Answer> {
  return { kind: 'assembled', ...request.catalog.bundle((await stateOf(request)).full) };
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

/**
 * The diff of a commit against its parent is an object the build stored (the state root's
 * `parentDiff`); any other pair is composed on its first request from the two listing bundles and
 * kept within the cache's cap (composed-store.ts).
 */
export async function diff(request: ResolveRequest): Promise<Answer> {
  const { catalog, params } = request;
  const { sha, base } = params;
  const head = await stateOf(request);
  if (head.parent === base && head.parentDiff !== null) return { kind: 'object', hash: head.parentDiff };
  const older = await stateOf(request, 'base');
  const compose = async () => {
    const [baseListing, headListing] = await Promise.all([catalog.bundle(older.listing).assemble(), catalog.bundle(head.listing).assemble()]);
    return Buffer.from(serialize(composeDiff(JSON.parse(baseListing.toString('utf8')) as DiffSide, JSON.parse(headListing.toString('utf8')) as DiffSide)), 'utf8');
  };
  const body = await catalog.composed.get(paths.composedDiff(catalog.out, sha, base), compose);
  if (!body) throw new Error(`the diff of ${sha} against ${base} could not be composed`);
  return { kind: 'bytes', bytes: body.bytes, etag: body.etag, identity: `diff:${sha}/${base}`, file: body.file };
}
