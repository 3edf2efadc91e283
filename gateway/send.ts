/**
 * Writes an Answer: status, the row's Content-Type and Cache-Control, the ETag, `Vary:
 * Accept-Encoding` on every body, the encoding the client accepts, and no body for HEAD. Bodies
 * are written with `res.end`/`res.write`, never `res.send`, so Express adds no ETag, never
 * answers 304 (SPEC.md: no endpoint answers conditional requests) and guesses no charset.
 * Every body leaves from memory: a bundle or a joined document is joined from its stored parts
 * once and kept, and a compressed copy is made once and kept (catalog.ts, encoding.ts), so a
 * client that sends no `Accept-Encoding` is served as a file would be, not by reading every part
 * again, and one served a kept compressed copy costs no join.
 * In the X-Accel-Redirect mode (accel.ts) the same headers go out with `X-Accel-Redirect` naming
 * the file that holds the body, and nginx sends it.
 */
import type { Request, Response } from 'express';
import { contentHash, weakEtag } from '../src/store/hash.ts';
import { etagKey, type AccelBodies } from './accel.ts';
import type { Catalog } from './catalog.ts';
import { COMPRESS_MIN_BYTES, negotiateEncoding, type Encoding } from './encoding.ts';
import type { Answer, Surface } from './surface.ts';

function bodyHeaders(res: Response, surface: Surface, answer: BodyAnswer, etag: string | undefined): void {
  res.status(200);
  res.setHeader('Content-Type', answer.contentType ?? surface.contentType);
  res.setHeader('Cache-Control', answer.cacheControl ?? surface.cacheControl);
  if (etag) res.setHeader('ETag', etag);
  // The bytes depend on Accept-Encoding whenever the body is large enough: say so on every body.
  res.setHeader('Vary', 'Accept-Encoding');
}

function finish(req: Request, res: Response, bytes: Buffer, encoding: Encoding): void {
  if (encoding !== 'identity') res.setHeader('Content-Encoding', encoding);
  res.setHeader('Content-Length', String(bytes.length));
  if (req.method === 'HEAD') res.end();
  else res.end(bytes);
}

type BodyAnswer = Exclude<Answer, { kind: 'redirect' }>;

/** The encoding a body of `length` bytes is sent in (the default mode's rule). */
function encodingFor(wanted: Encoding, length: number): Encoding {
  return wanted === 'identity' || length < COMPRESS_MIN_BYTES ? 'identity' : wanted;
}

/**
 * The file holding exactly the bytes the default mode would send for `answer`, with their
 * encoding: see accel.ts for which. Null: the gateway sends the body itself.
 */
async function accelTarget(accel: AccelBodies, catalog: Catalog, answer: BodyAnswer, wanted: Encoding): Promise<{ file: string; encoding: Encoding; etag?: string } | null> {
  if (answer.kind === 'bytes' || answer.kind === 'assembled') {
    const [length, plain] = answer.kind === 'bytes' ? [answer.bytes.length, async () => answer.bytes] : [answer.length, answer.assemble];
    const encoding = encodingFor(wanted, length);
    if (encoding === 'identity' && answer.kind === 'bytes' && answer.file) return { file: answer.file, encoding, etag: answer.etag };
    // Only bodies with a name of their own are written to the cache: a sha-pinned body's ETag, a floats-latest document's object and tip.
    const name = answer.etag ? etagKey(answer.etag) : answer.stableName && contentHash(answer.stableName);
    if (!name) return null;
    const load = encoding === 'identity' ? plain : () => catalog.bodies.compressed(answer.identity, encoding, plain);
    const file = await accel.materialize(name, encoding, load);
    return file ? { file, encoding, etag: answer.etag } : null;
  }
  // A content-addressed object lives in a pack, no file of its own: written once to the cache, as a bundle is.
  const etag = answer.etag ?? weakEtag(answer.hash);
  const load = async () => {
    const bytes = await catalog.storedObject(answer.hash);
    if (!bytes) throw new Error(`object ${answer.hash} is missing from the object store`);
    return bytes;
  };
  if (wanted !== 'identity') {
    const stored = await catalog.storedObject(answer.hash, wanted);
    if (stored) {
      // The build's precompressed copy: the bytes the default mode sends.
      const file = await accel.materialize(answer.hash, wanted, async () => stored);
      return file ? { file, encoding: wanted, etag } : null;
    }
    const encoding = encodingFor(wanted, (await load()).length);
    if (encoding !== 'identity') {
      const file = await accel.materialize(answer.hash, encoding, () => catalog.bodies.compressed(`object:${answer.hash}`, encoding, load));
      return file ? { file, encoding, etag } : null;
    }
  }
  const file = await accel.materialize(answer.hash, 'identity', load);
  return file ? { file, encoding: 'identity', etag } : null;
}

/** The X-Accel-Redirect answer: every header of the body, an empty body; false when the gateway must send the body. */
async function sendAccel(res: Response, surface: Surface, answer: BodyAnswer, catalog: Catalog, accel: AccelBodies, wanted: Encoding): Promise<boolean> {
  const target = await accelTarget(accel, catalog, answer, wanted);
  if (!target) return false;
  bodyHeaders(res, surface, answer, target.etag);
  if (target.encoding !== 'identity') res.setHeader('Content-Encoding', target.encoding);
  res.setHeader('X-Accel-Redirect', accel.uri(target.file));
  res.setHeader('Content-Length', '0');
  res.end();
  return true;
}

export async function sendAnswer(req: Request, res: Response, surface: Surface, answer: Answer, catalog: Catalog): Promise<void> {
  if (answer.kind === 'redirect') {
    res.status(answer.status);
    res.setHeader('Location', answer.location);
    res.setHeader('Cache-Control', answer.cacheControl);
    res.setHeader('Content-Length', '0');
    res.end();
    return;
  }
  const wanted = negotiateEncoding(req.get('accept-encoding'));
  if (catalog.accel && (await sendAccel(res, surface, answer, catalog, catalog.accel, wanted))) return;

  if (answer.kind === 'bytes') {
    const encoding = encodingFor(wanted, answer.bytes.length);
    const bytes = encoding === 'identity' ? answer.bytes : await catalog.bodies.compressed(answer.identity, encoding, async () => answer.bytes);
    bodyHeaders(res, surface, answer, answer.etag);
    return finish(req, res, bytes, encoding);
  }

  if (answer.kind === 'assembled') {
    const encoding = encodingFor(wanted, answer.length);
    if (encoding === 'identity' && req.method === 'HEAD') {
      bodyHeaders(res, surface, answer, answer.etag);
      res.setHeader('Content-Length', String(answer.length));
      res.end();
      return;
    }
    // Kept as sent: the plain bytes for a client that takes them, the compressed ones only otherwise.
    const bytes = encoding === 'identity' ? await catalog.bodies.plain(answer.identity, answer.assemble) : await catalog.bodies.compressed(answer.identity, encoding, answer.assemble);
    bodyHeaders(res, surface, answer, answer.etag);
    return finish(req, res, bytes, encoding);
  }

  // A content-addressed object: the build's precompressed copy when there is one.
  const etag = answer.etag ?? weakEtag(answer.hash);
  if (wanted !== 'identity') {
    const copy = await catalog.storedObject(answer.hash, wanted);
    if (copy) {
      bodyHeaders(res, surface, answer, etag);
      return finish(req, res, copy, wanted);
    }
  }
  const bytes = await catalog.storedObject(answer.hash);
  if (!bytes) throw new Error(`object ${answer.hash} is missing from the object store`);
  const encoding = encodingFor(wanted, bytes.length);
  const sent = encoding === 'identity' ? bytes : await catalog.bodies.compressed(`object:${answer.hash}`, encoding, async () => bytes);
  bodyHeaders(res, surface, answer, etag);
  return finish(req, res, sent, encoding);
}
