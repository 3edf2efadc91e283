/**
 * Writes an Answer: status, the row's Content-Type and Cache-Control, the ETag, `Vary:
 * Accept-Encoding` on every body, the encoding the client accepts, and no body for HEAD. Bodies
 * are written with `res.end`/`res.write`, never `res.send`, so Express adds no ETag, never
 * answers 304 (SPEC.md: no endpoint answers conditional requests) and guesses no charset.
 * In the X-Accel-Redirect mode (accel.ts) the same headers go out with `X-Accel-Redirect` naming
 * the file that holds the body, and nginx sends it.
 */
import type { Request, Response } from 'express';
import { readFile } from 'node:fs/promises';
import { weakEtag } from '../src/store/hash.ts';
import { paths, readObject, assembleBody, type StoredBody } from '../src/store/layout.ts';
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

/** Resolves when `res` can take more data, or has closed (a client that went away). */
function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Streams a stored body segment by segment: a large bundle never sits whole in memory. */
async function streamStored(catalog: Catalog, res: Response, body: StoredBody): Promise<void> {
  for (const segment of body.segments) {
    if (res.destroyed) return;
    const bytes = typeof segment === 'string' ? Buffer.from(segment, 'utf8') : await readObject(catalog.out, segment.object);
    if (!res.write(bytes)) await drained(res);
  }
  res.end();
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
  if (answer.kind === 'bytes') {
    const encoding = encodingFor(wanted, answer.bytes.length);
    if (encoding === 'identity' && answer.file) return { file: answer.file, encoding, etag: answer.etag };
    // Only content-addressed (sha-pinned) bodies are written to the cache: a floats-latest body changes with every release.
    if (!answer.etag) return null;
    const load = encoding === 'identity' ? async () => answer.bytes : () => catalog.compressed.get(answer.identity, encoding, async () => answer.bytes);
    const file = await accel.materialize(etagKey(answer.etag), encoding, load);
    return file ? { file, encoding, etag: answer.etag } : null;
  }
  if (answer.kind === 'stored') {
    const { body } = answer;
    const encoding = encodingFor(wanted, body.length);
    const plain = () => assembleBody(catalog.out, body);
    const load = encoding === 'identity' ? plain : () => catalog.compressed.get(`stored:${body.etag}`, encoding, plain);
    const file = await accel.materialize(etagKey(body.etag), encoding, load);
    return file ? { file, encoding, etag: body.etag } : null;
  }
  const etag = answer.etag ?? weakEtag(answer.hash);
  const object = paths.object(catalog.out, answer.hash);
  if (wanted !== 'identity') {
    const sibling = `${object}.${wanted === 'br' ? 'br' : 'gz'}`;
    if (await accel.exists(sibling, true)) return { file: sibling, encoding: wanted, etag };
    const encoding = encodingFor(wanted, await accel.size(object));
    if (encoding !== 'identity') {
      const file = await accel.materialize(answer.hash, encoding, () => catalog.compressed.get(`object:${answer.hash}`, encoding, () => readFile(object)));
      return file ? { file, encoding, etag } : null;
    }
  }
  return { file: object, encoding: 'identity', etag };
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
    bodyHeaders(res, surface, answer, answer.etag);
    if (wanted === 'identity' || answer.bytes.length < COMPRESS_MIN_BYTES) return finish(req, res, answer.bytes, 'identity');
    return finish(req, res, await catalog.compressed.get(answer.identity, wanted, async () => answer.bytes), wanted);
  }

  if (answer.kind === 'stored') {
    const { body } = answer;
    if (wanted !== 'identity' && body.length >= COMPRESS_MIN_BYTES) {
      const bytes = await catalog.compressed.get(`stored:${body.etag}`, wanted, () => assembleBody(catalog.out, body));
      bodyHeaders(res, surface, answer, body.etag);
      return finish(req, res, bytes, wanted);
    }
    bodyHeaders(res, surface, answer, body.etag);
    res.setHeader('Content-Length', String(body.length));
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    return streamStored(catalog, res, body);
  }

  // A content-addressed object: the build's precompressed sibling when there is one.
  const etag = answer.etag ?? weakEtag(answer.hash);
  const file = paths.object(catalog.out, answer.hash);
  if (wanted !== 'identity') {
    const sibling = await catalog.writeOnceFile(`${file}.${wanted === 'br' ? 'br' : 'gz'}`);
    if (sibling) {
      bodyHeaders(res, surface, answer, etag);
      return finish(req, res, sibling, wanted);
    }
  }
  const bytes = await catalog.writeOnceFile(file);
  if (!bytes) throw new Error(`object ${answer.hash} is missing from objects/`);
  bodyHeaders(res, surface, answer, etag);
  if (wanted === 'identity' || bytes.length < COMPRESS_MIN_BYTES) return finish(req, res, bytes, 'identity');
  return finish(req, res, await catalog.compressed.get(`object:${answer.hash}`, wanted, async () => bytes), wanted);
}
