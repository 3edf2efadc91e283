/**
 * Path parameters, validated in one place (SPEC.md "Path parameter grammar"). Registered with
 * `router.param`, so they run before any route handler, and so before the session gate: the
 * 301, 400 and 404 outcomes of a sha are the same for every caller (SPEC.md Authentication 3).
 *
 *   :name  a package on a floats-latest route: grammar, not reserved under /api/pkgs/, present at the tip
 *          (case-insensitive); replaced by its canonical spelling.
 *   :pkg   a package on a sha-pinned route: grammar only; whether the commit knows it is the
 *          route's business (its 404 comes after the gate, with the payload).
 *   :sha, :base  40-hex on the chain, or a unique 7 to 39 hex prefix (expanded; the route
 *          redirects), else 400 ambiguous / 404.
 */
import type { Request, Response, NextFunction, Router } from 'express';
import { isPackageName, isReservedName, nameKey } from '../src/grammar.ts';
import { CACHE } from '../src/http/cache-control.ts';
import { ambiguousSha, malformedSha, unknownPackage, unknownSha } from './errors.ts';
import type { Releases } from './release.ts';
import { requestRelease, requestState } from './request-state.ts';
import { resolveSha } from './sha.ts';

const API_PREFIX = '/api/pkgs/';

type ParamHandler = (req: Request, res: Response, next: NextFunction, value: string, name: string) => Promise<void> | void;

function floatingName(releases: Releases): ParamHandler {
  return async (req, res, next, value) => {
    // A reserved name is shadowed by a fixed route under /api/pkgs/ (DECISIONS.md 4): never served
    // there, so one name does not answer on some /api/pkgs/ routes and not others. Elsewhere it is.
    const shadowed = req.path.startsWith(API_PREFIX) && isReservedName(value);
    if (!isPackageName(value) || shadowed) return next(unknownPackage(value, CACHE.negative));
    const canonical = (await requestRelease(res, releases))?.names.get(nameKey(value));
    if (canonical === undefined) return next(unknownPackage(value, CACHE.negative));
    req.params.name = canonical;
    next();
  };
}

const pinnedName: ParamHandler = (_req, res, next, value) => {
  if (!isPackageName(value)) return next(unknownPackage(value, CACHE.pinned));
  requestState(res).packageKey = nameKey(value);
  next();
};

function commitSha(releases: Releases): ParamHandler {
  return async (req, res, next, value, param) => {
    const release = await requestRelease(res, releases);
    const resolved = resolveSha(release?.sortedShas ?? [], value);
    switch (resolved.kind) {
      case 'exact':
        return next();
      case 'prefix': {
        const state = requestState(res);
        state.expanded.set(param, resolved.sha);
        state.shortestPrefix = Math.min(state.shortestPrefix, value.length);
        req.params[param] = resolved.sha;
        return next();
      }
      case 'ambiguous':
        return next(ambiguousSha(value, resolved.matches));
      case 'unknown':
        return next(unknownSha(value));
      case 'malformed':
        return next(malformedSha());
    }
  };
}

export function registerParams(router: Router, releases: Releases): void {
  router.param('name', floatingName(releases));
  router.param('pkg', pinnedName);
  router.param('sha', commitSha(releases));
  router.param('base', commitSha(releases));
}
