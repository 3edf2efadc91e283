/**
 * Every request, once answered: counted in the metrics (metrics.ts) by its route, and, when the
 * access log is on, one `http.request` log line, whose request id the answer carries in `X-Request-Id`. The first middleware of the app, so that it sees
 * every request, errors and 404s included.
 *
 * A request's route is the registry row it matched (its id), one of the gateway's own routes
 * (`healthz`, `auth-login`, `auth-logout`), or `unmatched`: never the raw path, which may hold a
 * package name, a sha or anything a client sends.
 */
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { GatewayMetrics } from './metrics.ts';
import { expressPath, type Route } from './routes.ts';

/** The gateway's own paths, by full path. */
const OWN_ROUTES: ReadonlyMap<string, string> = new Map([
  ['/healthz', 'healthz'],
  ['/auth/login', 'auth-login'],
  ['/auth/logout', 'auth-logout'],
]);

/** A request id a client (or the proxy in front) sent that is safe to keep: short, and no character a log line or a header would mangle. */
const INCOMING_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** What one answered request was, for the access log. */
export interface AccessEntry {
  readonly requestId: string;
  readonly method: string;
  readonly route: string;
  readonly status: number;
  /** Body bytes sent (0 for HEAD, 204 and X-Accel-Redirect answers). */
  readonly bytes: number;
  readonly encoding: string;
  readonly durationMs: number;
  /** The client went away before the answer was sent whole. */
  readonly aborted: boolean;
}

export interface ObserveOptions {
  readonly routes: readonly Route[];
  readonly metrics: GatewayMetrics;
  /** Told of every answered request (the access log); absent: none is logged. */
  readonly access?: (entry: AccessEntry) => void;
}

/** How a sign-in ended, from its answer's status (the auth routes answer each outcome with its own status). */
function signInOutcome(status: number): string {
  if (status === 200 || status === 303) return 'success';
  if (status === 401) return 'rejected';
  if (status === 429) return 'rate_limited';
  if (status === 403) return 'cross_site';
  if (status === 503) return 'store_unavailable';
  if (status >= 400 && status < 500) return 'bad_request';
  return 'error';
}

function bodyBytes(req: Request, res: Response): number {
  if (req.method === 'HEAD' || res.statusCode === 204 || res.statusCode === 304) return 0;
  const length = Number(res.getHeader('content-length'));
  return Number.isFinite(length) ? length : 0;
}

export function observeRequests(options: ObserveOptions): RequestHandler {
  const rowByPath = new Map(options.routes.map((route) => [expressPath(route.row), route.row.id]));
  const routeOf = (req: Request, fullPath: string): string => {
    const own = OWN_ROUTES.get(fullPath);
    if (own) return own;
    const matched = (req.route as { path?: unknown } | undefined)?.path;
    return (typeof matched === 'string' && rowByPath.get(matched)) || 'unmatched';
  };
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const fullPath = req.path;
    // The access log's request id, echoed so that a client (or the proxy) can quote it; none without the log.
    const incoming = options.access ? req.get('x-request-id') : undefined;
    const id = !options.access ? '' : incoming && INCOMING_ID.test(incoming) ? incoming : randomUUID();
    if (options.access) res.setHeader('X-Request-Id', id);
    let done = false;
    const settle = (aborted: boolean) => {
      if (done) return;
      done = true;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeOf(req, fullPath);
      const bytes = aborted ? 0 : bodyBytes(req, res);
      const encoding = String(res.getHeader('content-encoding') ?? 'identity');
      options.metrics.request(route, req.method, res.statusCode, seconds, bytes, encoding);
      if (route === 'auth-login' && req.method === 'POST') options.metrics.signIn(signInOutcome(res.statusCode));
      options.access?.({ requestId: id, method: req.method, route, status: res.statusCode, bytes, encoding, durationMs: Math.round(seconds * 1e4) / 10, aborted });
    };
    res.once('finish', () => settle(false));
    res.once('close', () => settle(!res.writableFinished));
    next();
  };
}
