/**
 * `/api/digests/{sha}.json`: the digest of a commit and its history (src/digest/commit-digest.ts),
 * signed by the gateway's signing keys (src/digest/signed-digest.ts), anonymous. The digest is
 * computed from the output's write-once files, so every gateway of one catalog, and every faithful
 * mirror, computes the same one.
 */
import { serialize } from '../../src/serialize.ts';
import { signDigest } from '../../src/digest/signed-digest.ts';
import type { Answer, ResolveRequest } from '../surface.ts';

export async function commitDigest(request: ResolveRequest): Promise<Answer> {
  const { catalog, params } = request;
  const release = await request.release();
  if (!release) throw new Error('a sha resolved without a release');
  const digest = await catalog.digests.of(release.chain, params.sha);
  const body = serialize(await signDigest(digest, catalog.signingKeys));
  return { kind: 'bytes', bytes: Buffer.from(body, 'utf8'), identity: `digest:${params.sha}:${catalog.signingKeys.length}` };
}
