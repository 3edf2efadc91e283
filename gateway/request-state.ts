/**
 * What one request has resolved so far: its release (read once, DECISIONS.md 12) and the
 * canonical values of its path parameters. Kept in `res.locals` under one key.
 */
import type { Response } from 'express';
import type { Release, Releases } from './release.ts';

export interface RequestState {
  /** The release this request reads, resolved on first use and then fixed for the request. */
  release: Promise<Release | null> | null;
  /** Path parameters that were short sha prefixes, by parameter name, with their full sha. */
  expanded: Map<string, string>;
  /** Length of the shortest prefix expanded (for the redirect's Cache-Control). */
  shortestPrefix: number;
  /** The `{pkg}` name key on sha-pinned routes. */
  packageKey: string | null;
}

const KEY = 'pkgcat';

export function requestState(res: Response): RequestState {
  let state = res.locals[KEY] as RequestState | undefined;
  if (!state) {
    state = { release: null, expanded: new Map(), shortestPrefix: Infinity, packageKey: null };
    res.locals[KEY] = state;
  }
  return state;
}

/** The request's release: `current` is read once per request, on first use. */
export function requestRelease(res: Response, releases: Releases): Promise<Release | null> {
  const state = requestState(res);
  state.release ??= releases.current();
  return state.release;
}
