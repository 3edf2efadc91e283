/**
 * Named errors and the one error handler. Routes and parameter handlers only `next(error)`; the
 * handler writes SPEC.md's JSON bodies (`{"error", "message"}`) with the Cache-Control the error
 * carries, and never a stack trace or an HTML page.
 */
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { quoted } from '../src/quote.ts';
import { serialize } from '../src/serialize.ts';
import { CACHE } from '../src/http/cache-control.ts';
import { CONTENT_TYPE } from '../src/http/content-types.ts';
import { ERROR_BODY } from '../src/http/error-bodies.ts';
import type { ErrorBody } from '../src/schemas/wire.ts';
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

/** The error of an API body (src/http/error-bodies.ts) with its status and Cache-Control. */
function apiError(status: number, body: ErrorBody, cacheControl: string): HttpError {
  return new HttpError(status, body.error, body.message, cache(cacheControl));
}

/** 404 with the given Cache-Control (CACHE.error unless the caller knows better). */
export function notFound(message = ERROR_BODY.unknownPath().message, cacheControl: string = CACHE.error): HttpError {
  return new HttpError(404, 'not_found', message, cache(cacheControl));
}

/** 404 for a `{name}` that breaks the grammar or is not in the catalog. */
export function unknownPackage(name: string, cacheControl: string): HttpError {
  return apiError(404, ERROR_BODY.unknownPackage(name), cacheControl);
}

/** 404 for a well-formed sha (7 to 40 hex) that is not on main's first-parent chain: DECISIONS.md 8. */
export function unknownSha(value: string): HttpError {
  return apiError(404, ERROR_BODY.unknownSha(value), CACHE.negative);
}

/** 404 for a `{sha}`/`{base}` that is not 7 to 40 lowercase hex characters. */
export function malformedSha(): HttpError {
  return apiError(404, ERROR_BODY.malformedSha(), CACHE.pinned);
}

/** 400 `ambiguous sha`: SPEC.md Errors. */
export function ambiguousSha(prefix: string, matches: number): HttpError {
  return apiError(400, ERROR_BODY.ambiguousSha(prefix, matches), CACHE.pinned);
}

/**
 * The HTTP error of a resolver's Failure on registry row `row` (SPEC.md Errors, DECISIONS.md 8).
 * Nothing published: the alias keeps its own Cache-Control (SPEC.md); any other row (the OpenAPI
 * document before the first build) the short negative cache, as the first build is moments away.
 */
export function httpErrorOf(failure: Failure, row: SurfaceRow): HttpError {
  switch (failure.reason) {
    case 'unknown-package':
      return unknownPackage(failure.name, row.family === 'pinned' ? CACHE.pinned : CACHE.negative);
    case 'no-commits':
      return apiError(404, ERROR_BODY.noCommits(), row.family === 'alias' ? row.cacheControl : CACHE.negative);
    case 'unknown-advisory':
      // Like an unknown name: an advisory may become active with the next commit (DECISIONS.md 8).
      return notFound(`No advisory ${quoted(failure.id)} is active at the latest commit.`, CACHE.negative);
    case 'unknown-part':
      // The number of parts follows the catalog's size: a part may come with the next commit.
      return notFound(`No part ${quoted(failure.part)} of llms-full.txt at the latest commit; /llms.txt lists every part.`, CACHE.negative);
  }
}

export function methodNotAllowed(allow: string): HttpError {
  return new HttpError(405, 'method_not_allowed', `This resource answers ${allow} only.`, { ...cache(CACHE.error), Allow: allow });
}

export function internalError(): HttpError {
  return new HttpError(500, 'internal', 'The gateway could not answer this request; the error is in its log.', cache(CACHE.error));
}

/** The message of the 401 `auth_required` (SPEC.md Authentication 4). */
export const AUTH_REQUIRED_MESSAGE = ERROR_BODY.authRequired().message;

/** 401 `auth_required`: a sha-pinned endpoint without a live session (SPEC.md Errors). No WWW-Authenticate: the credential is a cookie. */
export function authRequired(): HttpError {
  return apiError(401, ERROR_BODY.authRequired(), CACHE.pinned);
}

/** 401 `invalid_credentials`: a sign-in with an unknown username or a wrong password (CLI.md "Signing in"). */
export function invalidCredentials(message: string): HttpError {
  return new HttpError(401, 'invalid_credentials', message, cache(CACHE.auth));
}

/** 429 `too_many_attempts`: too many failed sign-ins; `Retry-After` says when to try again. */
export function tooManyAttempts(retryAfterSeconds: number): HttpError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new HttpError(429, 'too_many_attempts', `Too many failed sign-in attempts; try again in ${seconds} seconds.`, {
    ...cache(CACHE.auth),
    'Retry-After': String(seconds),
  });
}

/** 403 `cross_site_request`: a sign-in or sign-out a browser marked as coming from another site. */
export function crossSiteRequest(): HttpError {
  return new HttpError(403, 'cross_site_request', 'Sign-in and sign-out are not accepted from another site.', cache(CACHE.auth));
}

/** 400 `bad_request`: a request body that is unreadable or lacks what the route needs. */
export function badRequest(message: string): HttpError {
  return new HttpError(400, 'bad_request', message, cache(CACHE.error));
}

/** 413 `payload_too_large`: a request body over the route's limit. */
export function payloadTooLarge(message: string): HttpError {
  return new HttpError(413, 'payload_too_large', message, cache(CACHE.error));
}

/** 415 `unsupported_media_type`: a request body of a type or encoding the route does not read. */
export function unsupportedMediaType(message: string): HttpError {
  return new HttpError(415, 'unsupported_media_type', message, cache(CACHE.error));
}

/** 503 `session_store_unavailable`: the session store (SQLite or Redis) cannot be reached. */
export function sessionStoreUnavailable(): HttpError {
  return new HttpError(503, 'session_store_unavailable', 'The session store is not reachable; try again shortly.', {
    ...cache(CACHE.error),
    'Retry-After': '5',
  });
}

/**
 * The errors of Express's body parsers (`express.json`, `express.urlencoded`: a `type`, a 4xx
 * `status`, the `limit` that was exceeded) as the gateway's; null for any other error.
 */
export function requestBodyError(error: unknown): HttpError | null {
  const { type, status, limit } = (error ?? {}) as { type?: unknown; status?: unknown; limit?: unknown };
  if (typeof type !== 'string') return null;
  if (type === 'entity.too.large') {
    return payloadTooLarge(typeof limit === 'number' ? `The request body is larger than ${limit} bytes.` : 'The request body is too large.');
  }
  if (type === 'parameters.too.many') {
    return payloadTooLarge(typeof limit === 'number' ? `The request body has more than ${limit} fields.` : 'The request body has too many fields.');
  }
  if (type === 'entity.parse.failed') return badRequest('The request body is not valid JSON.');
  if (type === 'charset.unsupported' || type === 'encoding.unsupported') {
    return unsupportedMediaType('Send the body as UTF-8 JSON or an HTML form, uncompressed.');
  }
  if (typeof status === 'number' && status >= 400 && status < 500) return badRequest('The request body could not be read.');
  return null;
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

/** Headers set for every answer before any route runs (app.ts), kept when an error replaces the body. */
export const KEPT_ON_ERROR: ReadonlySet<string> = new Set(['x-content-type-options', 'x-request-id']);

export function errorHandler(log: (line: string) => void): ErrorRequestHandler {
  // Four parameters: Express recognizes an error handler by its arity.
  return (error: unknown, req, res, _next) => {
    let answer =
      error instanceof HttpError ? error : isBadParam(error) ? notFound('The path is not valid percent-encoded UTF-8.') : requestBodyError(error);
    if (answer === null) {
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
    for (const name of res.getHeaderNames()) if (!KEPT_ON_ERROR.has(name)) res.removeHeader(name);
    sendJsonError(res, answer);
  };
}
