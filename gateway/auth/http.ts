/**
 * Response helpers for the auth routes' successes (their errors are gateway/errors.ts's, written
 * by the one error handler): every body is written with `res.end`, so Express adds no ETag and no
 * charset guesses, and the bytes come from the project's one serializer.
 */
import type { Request, Response } from 'express';
import { CACHE } from '../../src/http/cache-control.ts';
import { CONTENT_TYPE } from '../../src/http/content-types.ts';
import { serialize } from '../../src/serialize.ts';

/** Sends a JSON body (serialized canonically), never cached. */
export function sendJson(res: Response, status: number, body: unknown): void {
  const text = serialize(body);
  res.status(status);
  res.setHeader('Content-Type', CONTENT_TYPE.json);
  res.setHeader('Cache-Control', CACHE.auth);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Length', String(Buffer.byteLength(text)));
  res.end(text);
}

/** A 303 See Other to a same-site path, with no body. */
export function seeOther(res: Response, location: string): void {
  res.status(303);
  res.setHeader('Location', location);
  res.setHeader('Cache-Control', CACHE.auth);
  res.setHeader('Content-Length', '0');
  res.end();
}

/** A body-less 204. */
export function noContent(res: Response): void {
  res.status(204);
  res.setHeader('Cache-Control', CACHE.auth);
  res.end();
}

/** True for an HTML form post (`application/x-www-form-urlencoded`); such callers get redirects. */
export function isFormPost(req: Request): boolean {
  return Boolean(req.is('application/x-www-form-urlencoded'));
}

/**
 * True when a sign-in's failure goes back to a person as the HTML form: a form post from a
 * browser, which prefers HTML. A script posting form fields with `Accept: application/json` or
 * `*\/*` (curl, fetch) gets the JSON error, like a script posting JSON.
 */
export function wantsFormAnswer(req: Request): boolean {
  return isFormPost(req) && req.accepts(['json', 'html']) === 'html';
}

/**
 * A `next` value that is safe to redirect to: a same-site path (`/...`, not `//host`, no
 * backslash or control character). Anything else gives `/`.
 */
export function safeNext(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048) return '/';
  if (!value.startsWith('/') || value.startsWith('//') || /[\\\u0000-\u001f\u007f]/.test(value)) return '/';
  try {
    const url = new URL(value, 'http://pkgcat.invalid');
    if (url.origin !== 'http://pkgcat.invalid') return '/';
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return '/';
  }
}
