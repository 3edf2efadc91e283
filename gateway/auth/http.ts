/**
 * Small response helpers for the auth routes: every body is written with `res.end`, so Express adds
 * no ETag and no charset guesses, and the bytes come from the project's one serializer.
 */
import type { Request, Response } from 'express';
import { serialize } from '../../src/serialize.ts';

export const NO_STORE = 'private, no-store';

/** Sends a JSON body (serialized canonically) with `Cache-Control: private, no-store`. */
export function sendJson(res: Response, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = serialize(body);
  res.status(status);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', NO_STORE);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Length', String(Buffer.byteLength(text)));
  res.end(text);
}

/** Sends `{"error": code, "message": message}`. */
export function sendError(res: Response, status: number, error: string, message: string, headers?: Record<string, string>): void {
  sendJson(res, status, { error, message }, headers);
}

/** A 303 See Other to a same-site path, with no body. */
export function seeOther(res: Response, location: string): void {
  res.status(303);
  res.setHeader('Location', location);
  res.setHeader('Cache-Control', NO_STORE);
  res.setHeader('Content-Length', '0');
  res.end();
}

/** A body-less 204. */
export function noContent(res: Response): void {
  res.status(204);
  res.setHeader('Cache-Control', NO_STORE);
  res.end();
}

/** True for an HTML form post (`application/x-www-form-urlencoded`); such callers get redirects. */
export function isFormPost(req: Request): boolean {
  return Boolean(req.is('application/x-www-form-urlencoded'));
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
