/**
 * `GET /healthz`: what a load balancer (and an operator) asks a gateway process. Not a catalog
 * surface, so not a registry row (docs/decisions.md "The health endpoint"): it describes this
 * process (the release it serves now, the builds it runs, its clock), no static host can answer
 * it, and it is no part of the API's contract (no public file, not in the OpenAPI document).
 *
 * 200 while a release is published (a failed last build, or a dependency that broke, still serves
 * the last release: the body says so), 503 before the first one. JSON (src/schemas/wire.ts
 * `Health`), `Cache-Control: no-store`.
 */
import { lstat } from 'node:fs/promises';
import type { RequestHandler } from 'express';
import { CACHE } from '../src/http/cache-control.ts';
import { CONTENT_TYPE } from '../src/http/content-types.ts';
import { serialize } from '../src/serialize.ts';
import type { Health } from '../src/schemas/wire.ts';
import { paths } from '../src/store/layout.ts';
import { isoSeconds, type Dependencies, type DependencyHealth, type DependencyName } from './dependencies.ts';
import type { Releases } from './release.ts';

const NO_DEPENDENCIES: Record<DependencyName, DependencyHealth | null> = { disk: null, repository: null, sessionStore: null, usersFile: null };

export const HEALTH_PATH = '/healthz';

/** The builds a process runs (`serve --repo`: cli/follow.ts MainFollower). */
export interface BuildStatus {
  /** A build is running (or waiting for another build of the output to finish). */
  readonly running: boolean;
  /** The pid of the other build this one waits for; null when not waiting. */
  readonly waitingFor: number | null;
  /** Why the last build failed, in one line; null when it succeeded or none ran yet. */
  readonly lastFailure: string | null;
}

export interface HealthSources {
  readonly out: string;
  readonly releases: Releases;
  /** Null (or absent): this process runs no builds. */
  readonly buildStatus?: () => BuildStatus | null;
  /** The users file, repository, session store and disk this process depends on (dependencies.ts). */
  readonly dependencies?: Dependencies;
  /** Figures of the store of bodies composed on request, when it has some to give. */
  readonly composedFigures?: () => Record<string, number> | null;
  /** Milliseconds since the epoch (injected by tests). */
  readonly now: () => number;
}

/** When `current` was switched to its release: the symlink's own time (it is created, then renamed into place). */
async function publishedAtMs(out: string): Promise<number | null> {
  try {
    return (await lstat(paths.current(out))).mtimeMs;
  } catch {
    return null;
  }
}

export async function health(sources: HealthSources): Promise<Health> {
  const [release, published, dependencies] = await Promise.all([
    sources.releases.current().catch(() => null),
    publishedAtMs(sources.out),
    sources.dependencies?.report() ?? NO_DEPENDENCIES,
  ]);
  const build = sources.buildStatus?.() ?? null;
  const composed = sources.composedFigures?.() ?? null;
  const degraded = Object.values(dependencies).some((dependency) => dependency?.status === 'degraded');
  const status = release === null ? 'no-release' : degraded ? 'degraded' : build?.lastFailure ? 'build-failed' : 'ok';
  const tip = release?.info.tip ?? null;
  return {
    status,
    tip: tip && { sha: tip.sha, pushedAt: tip.pushedAt },
    release:
      release && published !== null
        ? { id: release.id, publishedAt: isoSeconds(published), ageSeconds: Math.max(0, Math.floor((sources.now() - published) / 1000)) }
        : null,
    build: build && { running: build.running, waitingFor: build.waitingFor, lastFailure: build.lastFailure },
    dependencies,
    ...(composed ? { composed } : {}),
  };
}

/** The route's handler (GET and HEAD; app.ts answers 405 to other methods). */
export function healthRoute(sources: HealthSources): RequestHandler {
  return async (_req, res) => {
    const body = await health(sources);
    const bytes = serialize(body);
    res.status(body.status === 'no-release' ? 503 : 200);
    res.setHeader('Cache-Control', CACHE.health);
    res.setHeader('Content-Type', CONTENT_TYPE.json);
    res.setHeader('Content-Length', String(Buffer.byteLength(bytes)));
    res.end(bytes);
  };
}
