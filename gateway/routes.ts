/**
 * Mounts the served rows of the surface registry: a method guard (405 before any parameter is
 * looked at), then one router whose `param` handlers resolve names and shas before any route
 * runs, and whose sha-pinned rows redirect expanded prefixes and then pass the session gate,
 * in that order. Resolvers see parsed parameters and query values, never the request.
 */
import express, { type RequestHandler, type Router } from 'express';
import type { Auth } from './auth/index.ts';
import { CACHE } from '../src/http/cache-control.ts';
import { resolveQuery } from '../src/surfaces/query.ts';
import { fillTemplate, type SurfaceRow } from '../src/surfaces/registry.ts';
import type { Catalog } from './catalog.ts';
import { httpErrorOf, methodNotAllowed } from './errors.ts';
import { registerParams } from './params.ts';
import { requestRelease, requestState } from './request-state.ts';
import { sendAnswer } from './send.ts';
import type { Resolver } from './surface.ts';

const ROUTER_OPTIONS = { strict: true, caseSensitive: true } as const;
const ALLOW = 'GET, HEAD';

/** What a row with its own handler is told besides the catalog. */
export interface RowHandlerOptions {
  /** The hostnames the tool server answers (gateway/mcp/allowed-hosts.ts). */
  readonly toolServerHosts: readonly string[];
}

/** A row that answers every method on its path itself (the tool server, POST), as an Express handler. */
export type RowHandler = (catalog: Catalog, row: SurfaceRow, options: RowHandlerOptions) => RequestHandler;

/** A served row: a GET row with its resolver, or a row with its own handler. */
export type Route = { readonly row: SurfaceRow; readonly resolve: Resolver } | { readonly row: SurfaceRow; readonly handle: RowHandler };

/**
 * The Express path of a row: `{param}` becomes `:param`, except that a sha-pinned row's `{name}`
 * is `:pkg` (its name is checked against the commit, not the tip: params.ts).
 */
export function expressPath(row: SurfaceRow): string {
  return row.path.replace(/\{(\w+)\}/g, (_match, key: string) => `:${key === 'name' && row.family === 'pinned' ? 'pkg' : key}`);
}

/** Other methods on a known GET path: 405 with `Allow`, whatever the parameters say. (A row with its own handler answers them itself.) */
export function methodGuard(routes: readonly Route[]): Router {
  const router = express.Router(ROUTER_OPTIONS);
  const guard: RequestHandler = (req, _res, next) => next(req.method === 'GET' || req.method === 'HEAD' ? undefined : methodNotAllowed(ALLOW));
  for (const route of routes) if ('resolve' in route) router.all(expressPath(route.row), guard);
  return router;
}

/** The request's path parameters under the registry's names. */
function templateParams(row: SurfaceRow, params: Readonly<Record<string, string>>): Record<string, string> {
  const values: Record<string, string> = { ...params };
  if (row.family === 'pinned' && params.pkg !== undefined) values.name = params.pkg;
  delete values.pkg;
  return values;
}

/** SPEC.md Errors: a unique prefix answers 301 to the canonical 40-hex URL, query string kept as sent. */
function canonicalRedirect(row: SurfaceRow, catalog: Catalog): RequestHandler {
  return async (req, res, next) => {
    const state = requestState(res);
    if (state.expanded.size === 0) return next();
    const query = req.originalUrl.indexOf('?');
    const location = fillTemplate(row.path, templateParams(row, req.params as Record<string, string>)) + (query >= 0 ? req.originalUrl.slice(query) : '');
    const cacheControl = state.shortestPrefix >= 12 ? CACHE.longPrefixRedirect : CACHE.pinned;
    await sendAnswer(req, res, row, { kind: 'redirect', status: 301, location, cacheControl }, catalog);
  };
}

function serve({ row, resolve }: Extract<Route, { resolve: Resolver }>, catalog: Catalog): RequestHandler {
  return async (req, res, next) => {
    const result = await resolve({
      catalog,
      release: () => requestRelease(res, catalog.releases),
      params: templateParams(row, req.params as Record<string, string>),
      packageKey: requestState(res).packageKey,
      query: resolveQuery(row, req.query as Record<string, unknown>),
    });
    if (result.kind === 'failure') return next(httpErrorOf(result, row));
    await sendAnswer(req, res, row, result, catalog);
  };
}

export function surfaceRouter(routes: readonly Route[], catalog: Catalog, auth: Auth, handlerOptions: RowHandlerOptions): Router {
  const router = express.Router(ROUTER_OPTIONS);
  registerParams(router, catalog.releases);
  for (const route of routes) {
    const path = expressPath(route.row);
    if ('handle' in route) {
      router.all(path, route.handle(catalog, route.row, handlerOptions));
    } else if (route.row.family === 'pinned') {
      // Anonymous rows never see the session middleware: no Set-Cookie, the same bytes for everyone.
      router.get(path, canonicalRedirect(route.row, catalog), auth.sessionMiddleware, auth.requireSession, serve(route, catalog));
    } else {
      router.get(path, serve(route, catalog));
    }
  }
  return router;
}
