/**
 * Named errors and the one error handler. Routes and parameter handlers only `next(error)`; the
 * handler writes SPEC.md's JSON bodies (`{"error", "message"}`) with the Cache-Control the error
 * carries, and never a stack trace or an HTML page.
 */
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { serialize } from '../src/serialize.ts';
import { CACHE } from '../src/http/cache-control.ts';
import { CONTENT_TYPE } from '../src/http/content-types.ts';
import type { SurfaceRow } from '../src/surfaces/registry.ts';
import type { Failure } from './surface.ts';

export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, code: string, message: string, headers: Record<string, string>) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

const cache = (value: string) => ({ 'Cache-Control': value });

/** 404 with the given Cache-Control (CACHE.error unless the caller knows better). */
export function notFound(message = 'Nothing is served at this path.', cacheControl: string = CACHE.error): HttpError {
  return new HttpError(404, 'not_found', message, cache(cacheControl));
}

/** 404 for a `{name}` that breaks the grammar or is not in the catalog. */
export function unknownPackage(name: string, cacheControl: string): HttpError {
  return notFound(`No package named ${JSON.stringify(name)} in the catalog.`, cacheControl);
}

/** 404 for a well-formed sha (7 to 40 hex) that is not on main's first-parent chain: DECISIONS.md 8. */
export function unknownSha(value: string): HttpError {
  return notFound(`No commit ${value} on the main branch.`, CACHE.negative);
}

/** 404 for a `{sha}`/`{base}` that is not 7 to 40 lowercase hex characters. */
export function malformedSha(): HttpError {
  return notFound('A commit is named by 40 lowercase hex characters, or a unique prefix of 7 or more.', CACHE.pinned);
}

/** 400 `ambiguous sha`: SPEC.md Errors. */
export function ambiguousSha(prefix: string, matches: number): HttpError {
  return new HttpError(400, 'ambiguous sha', `The prefix ${prefix} matches ${matches} commits on the main branch; use more characters.`, cache(CACHE.pinned));
}

/** The HTTP error of a resolver's Failure on registry row `row` (SPEC.md Errors, DECISIONS.md 8). */
export function httpErrorOf(failure: Failure, row: SurfaceRow): HttpError {
  switch (failure.reason) {
    case 'unknown-package':
      return unknownPackage(failure.name, row.family === 'pinned' ? CACHE.pinned : CACHE.negative);
    case 'no-commits':
      return notFound('The catalog has no commits yet.', row.cacheControl);
  }
}

export function methodNotAllowed(allow: string): HttpError {
  return new HttpError(405, 'method_not_allowed', `This resource answers ${allow} only.`, { ...cache(CACHE.error), Allow: allow });
}

export function internalError(): HttpError {
  return new HttpError(500, 'internal', 'The gateway could not answer this request; the error is in its log.', cache(CACHE.error));
}

export function sendJsonError(res: Response, error: HttpError): void {
  const body = serialize({ error: error.code, message: error.message });
  res.status(error.status);
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', CONTENT_TYPE.json);
  res.setHeader('Content-Length', String(Buffer.byteLength(body)));
  res.end(body);
}

/** The last route: any path nothing answered. */
export const unknownPath: RequestHandler = (_req, _res, next) => next(notFound());

/** Express marks a path parameter it cannot percent-decode with a URIError: a charset violation. */
function isBadParam(error: unknown): boolean {
  return error instanceof URIError || (error as { cause?: unknown } | null)?.cause instanceof URIError;
}

export function errorHandler(log: (line: string) => void): ErrorRequestHandler {
  // Four parameters: Express recognizes an error handler by its arity.
  return (error: unknown, req, res, _next) => {
    let answer: HttpError;
    if (error instanceof HttpError) answer = error;
    else if (isBadParam(error)) answer = notFound('The path is not valid percent-encoded UTF-8.');
    else {
      // Method and path only: a query string or a header may carry something private.
      log(`${req.method} ${req.path} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      answer = internalError();
    }
    if (res.headersSent) {
      // A body was streaming when it failed: cut the connection so the client sees a short body.
      res.destroy();
      return;
    }
    // Headers set for the body that was never sent (ETag, Vary, Content-Encoding) must not leak.
    for (const name of res.getHeaderNames()) if (name !== 'x-content-type-options') res.removeHeader(name);
    sendJsonError(res, answer);
  };
}
