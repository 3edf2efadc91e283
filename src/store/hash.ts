/**
 * The one content hash of the output directory: the first 32 hex characters (128 bits) of the
 * SHA-256 of a body's bytes. It names content-addressed objects (objects.ts) and
 * it is the value of every weak ETag the build and the gateway send, so it is part of the output:
 * changing it changes every object name and every ETag.
 */
import { hash } from 'node:crypto';

/** Hex characters of the content hash. */
export const CONTENT_HASH_LENGTH = 32;

/** The content hash of bytes (a string is hashed as its UTF-8 bytes). */
export function contentHash(data: string | Uint8Array): string {
  // One call, not a Hash object: a release hashes hundreds of thousands of small inputs. Encoded
  // from the digest's first bytes, not cut from its 64 hex characters: a cut string keeps the whole
  // one alive, and a release keeps hundreds of thousands of these (120 bytes each cut, 48 made whole).
  return hash('sha256', data, 'buffer').toString('hex', 0, CONTENT_HASH_LENGTH / 2);
}

/** The weak ETag of a content hash: `W/"<hash>"` (SPEC.md Endpoints, additional rule 3). */
export function weakEtag(hash: string): string {
  return `W/"${hash}"`;
}

/** The weak ETag of bytes: `W/"<contentHash(bytes)>"`. */
export function contentEtag(data: string | Uint8Array): string {
  return weakEtag(contentHash(data));
}

/**
 * The full SHA-256 of bytes as `sha256:<64 hex>`: the commit digests (src/digest/), which sign the
 * store's hash tree and so take the whole hash, not the 128-bit names of the objects.
 */
export function sha256Digest(data: string | Uint8Array): string {
  return `sha256:${hash('sha256', data, 'hex')}`;
}
