/**
 * Writes an Answer: status, the row's Content-Type and Cache-Control, the ETag, `Vary:
 * Accept-Encoding` on every body, the encoding the client accepts, and no body for HEAD. Bodies
 * are written with `res.end`/`res.write`, never `res.send`, so Express adds no ETag, never
 * answers 304 (SPEC.md: no endpoint answers conditional requests) and guesses no charset.
 */
import type { Request, Response } from 'express';
import { readFile } from 'node:fs/promises';
import { paths, readObject, assembleBody, type StoredBody } from '../src/store/layout.ts';
import type { Catalog } from './catalog.ts';
import { COMPRESS_MIN_BYTES, negotiateEncoding, type Encoding } from './encoding.ts';
import type { Answer, Surface } from './surface.ts';

function bodyHeaders(res: Response, surface: Surface, answer: Exclude<Answer, { kind: 'redirect' }>, etag: string | undefined): void {
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

async function readSibling(file: string): Promise<Buffer | null> {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
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
  const etag = answer.etag ?? `W/"${answer.hash}"`;
  const file = paths.object(catalog.out, answer.hash);
  if (wanted !== 'identity') {
    const sibling = await readSibling(`${file}.${wanted === 'br' ? 'br' : 'gz'}`);
    if (sibling) {
      bodyHeaders(res, surface, answer, etag);
      return finish(req, res, sibling, wanted);
    }
  }
  const bytes = await readFile(file);
  bodyHeaders(res, surface, answer, etag);
  if (wanted === 'identity' || bytes.length < COMPRESS_MIN_BYTES) return finish(req, res, bytes, 'identity');
  return finish(req, res, await catalog.compressed.get(`object:${answer.hash}`, wanted, async () => bytes), wanted);
}
