/**
 * A commit digest as a JWS (RFC 7515) in the general JSON serialization, with its payload
 * unencoded (RFC 7797: `"b64": false`, listed in `crit`), the way formulae.brew.sh signs its JSON:
 * the payload stays readable JSON, and `signatures` holds one signature per configured key, so a
 * second key can sign beside the first while clients move to it. Each signature's protected
 * header names its key by `kid`, the key's RFC 7638 JWK thumbprint. Ed25519 (`EdDSA`) signatures
 * are deterministic: one key and one payload always give the same bytes.
 *
 * Without a key the document is the same shape with no signature, so a mirror can be compared
 * with an origin that signs nothing (over a channel the reader trusts).
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, GeneralSign, generalVerify, type GeneralJWS } from 'jose';
import { serialize } from '../serialize.ts';
import { CommitDigest as CommitDigestSchema, type CommitDigest, type SignedDigest } from '../schemas/wire.ts';

export const SIGNATURE_ALGORITHM = 'EdDSA';

/** The `kid` of a key (private or public): its RFC 7638 JWK thumbprint (SHA-256, base64url). */
export async function keyId(key: KeyObject): Promise<string> {
  return calculateJwkThumbprint(await exportJWK(key.type === 'private' ? createPublicKey(key) : key));
}

/** `digest` signed by each of `keys` (Ed25519 private keys), in their order. */
export async function signDigest(digest: CommitDigest, keys: readonly KeyObject[]): Promise<SignedDigest> {
  const payload = serialize(digest);
  if (keys.length === 0) return { payload, signatures: [] };
  const jws = new GeneralSign(new TextEncoder().encode(payload));
  for (const key of keys) {
    jws.addSignature(key).setProtectedHeader({ alg: SIGNATURE_ALGORITHM, b64: false, crit: ['b64'], kid: await keyId(key) });
  }
  const { signatures } = await jws.sign();
  return { payload, signatures: signatures.map((entry) => ({ protected: entry.protected!, signature: entry.signature })) };
}

/** Why a signed digest was not accepted, in a sentence for the person running `pkgcat verify`. */
export class DigestRejected extends Error {}

/**
 * The digest `document` carries, once one of its signatures verifies with one of `keys` (public
 * keys the verifier trusts); with no keys, the payload unchecked. Throws DigestRejected.
 */
export async function openSignedDigest(document: unknown, keys: readonly KeyObject[]): Promise<{ digest: CommitDigest; kid: string | null }> {
  const jws = document as Partial<GeneralJWS> | null;
  if (typeof jws !== 'object' || jws === null || typeof jws.payload !== 'string' || !Array.isArray(jws.signatures)) {
    throw new DigestRejected('it is not a pkgcat commit digest (a JWS in the JSON serialization with "payload" and "signatures")');
  }
  let payload: unknown;
  try {
    payload = JSON.parse(jws.payload);
  } catch {
    throw new DigestRejected('its payload is not JSON');
  }
  const parsed = CommitDigestSchema.safeParse(payload);
  if (!parsed.success) throw new DigestRejected(`its payload is not a commit digest (${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'payload'}: ${issue.message}`).join('; ')})`);
  const digest = parsed.data;
  if (keys.length === 0) return { digest, kid: null };
  if (jws.signatures.length === 0) throw new DigestRejected('it carries no signature (the origin serves it unsigned: it has no --signing-key)');
  const wanted = new Map(await Promise.all(keys.map(async (key) => [await keyId(key), key] as const)));
  for (const entry of jws.signatures) {
    const kid = kidOf(entry);
    const key = kid === null ? undefined : wanted.get(kid);
    if (!key) continue;
    try {
      await generalVerify({ payload: jws.payload, signatures: [entry] } as GeneralJWS, key, { algorithms: [SIGNATURE_ALGORITHM] });
      return { digest, kid: kid! };
    } catch {
      throw new DigestRejected(`its signature by key ${kid} does not verify: the digest was changed after it was signed, or signed by another key of that id`);
    }
  }
  const kids = jws.signatures.map((entry) => kidOf(entry) ?? '(no kid)');
  throw new DigestRejected(`none of its signatures is by a key given (it is signed by ${kids.join(', ') || 'no key'}; the keys given are ${[...wanted.keys()].join(', ')})`);
}

/** The `kid` of a signature's protected header; null when it has none. */
function kidOf(entry: { protected?: string }): string | null {
  try {
    const kid = (JSON.parse(Buffer.from(entry.protected ?? '', 'base64url').toString('utf8')) as { kid?: unknown }).kid;
    return typeof kid === 'string' ? kid : null;
  } catch {
    return null;
  }
}
