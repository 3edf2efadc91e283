/**
 * Mounts the route table: a method guard (405 before any parameter is looked at), then one
 * router whose `param` handlers resolve names and shas before any route runs, and whose
 * sha-pinned rows redirect expanded prefixes and then pass the session gate, in that order.
 */
import express, { type RequestHandler, type Router } from 'express';
import type { Auth } from './auth/index.ts';
import { CACHE } from '../src/http/cache-control.ts';
import type { Catalog } from './catalog.ts';
import { methodNotAllowed } from './errors.ts';
import { registerParams } from './params.ts';
import { requestRelease, requestState } from './request-state.ts';
import { sendAnswer } from './send.ts';
import type { Surface } from './surface.ts';

const ROUTER_OPTIONS = { strict: true, caseSensitive: true } as const;
const ALLOW = 'GET, HEAD';

/** Other methods on a known path: 405 with `Allow`, whatever the parameters say. */
export function methodGuard(surfaces: readonly Surface[]): Router {
  const router = express.Router(ROUTER_OPTIONS);
  const guard: RequestHandler = (req, _res, next) => next(req.method === 'GET' || req.method === 'HEAD' ? undefined : methodNotAllowed(ALLOW));
  for (const surface of surfaces) router.all(surface.path, guard);
  return router;
}

/** `pattern` with its `:param`s filled in. */
function fillPath(pattern: string, params: Readonly<Record<string, string>>): string {
  return pattern.replace(/:(\w+)/g, (_match, key: string) => encodeURIComponent(params[key]));
}

/** SPEC.md Errors: a unique prefix answers 301 to the canonical 40-hex URL, query string kept as sent. */
function canonicalRedirect(surface: Surface, catalog: Catalog): RequestHandler {
  return async (req, res, next) => {
    const state = requestState(res);
    if (state.expanded.size === 0) return next();
    const query = req.originalUrl.indexOf('?');
    const location = fillPath(surface.path, req.params as Record<string, string>) + (query >= 0 ? req.originalUrl.slice(query) : '');
    const cacheControl = state.shortestPrefix >= 12 ? CACHE.longPrefixRedirect : CACHE.pinned;
    await sendAnswer(req, res, surface, { kind: 'redirect', status: 301, location, cacheControl }, catalog);
  };
}

function serve(surface: Surface, catalog: Catalog): RequestHandler {
  return async (req, res) => {
    const answer = await surface.resolve({
      req,
      catalog,
      release: () => requestRelease(res, catalog.releases),
      params: req.params as Record<string, string>,
      packageKey: requestState(res).packageKey,
    });
    await sendAnswer(req, res, surface, answer, catalog);
  };
}

export function surfaceRouter(surfaces: readonly Surface[], catalog: Catalog, auth: Auth): Router {
  const router = express.Router(ROUTER_OPTIONS);
  registerParams(router, catalog.releases);
  for (const surface of surfaces) {
    if (surface.family === 'pinned') {
      // Anonymous rows never see the session middleware: no Set-Cookie, the same bytes for everyone.
      router.get(surface.path, canonicalRedirect(surface, catalog), auth.sessionMiddleware, auth.requireSession, serve(surface, catalog));
    } else {
      router.get(surface.path, serve(surface, catalog));
    }
  }
  return router;
}
