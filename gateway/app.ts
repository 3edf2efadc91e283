/**
 * The gateway as an Express app, without `listen` (server.ts listens; tests drive the app over
 * real HTTP). Order: the request observer (metrics, access log, X-Request-Id), security headers, /healthz, /auth (with its session), the method guard, the
 * route table, 404, the page shown while nothing is built yet, the one error handler.
 */
import type { KeyObject } from 'node:crypto';
import { lstat } from 'node:fs/promises';
import express, { type RequestHandler } from 'express';
import { log as processLog } from '../src/log.ts';
import { paths } from '../src/store/layout.ts';
import type { Auth } from './auth/index.ts';
import { Catalog, type CatalogLimits } from './catalog.ts';
import type { Dependencies } from './dependencies.ts';
import type { WorkObserver } from './encoding.ts';
import { errorHandler, methodNotAllowed, unknownPath } from './errors.ts';
import { HEALTH_PATH, healthRoute, type BuildStatus } from './health.ts';
import type { GatewayMetrics } from './metrics.ts';
import { observeRequests, type AccessEntry } from './observe.ts';
import { buildingPage, type BuildingStatus } from './building-page.ts';
import { methodGuard, surfaceRouter } from './routes.ts';
import { servedSurfaces } from './surfaces.ts';

export interface GatewayOptions {
  /** The build output directory (`pkgcat build --out`). */
  out: string;
  auth: Auth;
  /** Express `trust proxy`; a string from the command line (`true`, `2`, `loopback, 10.0.0.0/8`) is understood too. */
  trustProxy?: boolean | string | number;
  /** The hostnames the tool server answers in `Host` and `Origin` (gateway/mcp/allowed-hosts.ts). */
  toolServerHosts: readonly string[];
  /** Ed25519 private keys that sign commit digests (CatalogOptions.signingKeys). */
  signingKeys?: readonly KeyObject[];
  /** Where unexpected errors are reported (default: stderr). */
  log?: (line: string) => void;
  /** Bounds of the caches and of concurrent work (catalog.ts DEFAULT_LIMITS). */
  limits?: CatalogLimits;
  /** Told of each assembly, compression and composition (the tests count them). */
  observe?: WorkObserver;
  /**
   * X-Accel-Redirect mode: the internal location (e.g. `/_pkgcat`) under which nginx serves `out`.
   * Bodies that are files leave with `X-Accel-Redirect: <prefix>/<path in out>` and no bytes (accel.ts).
   */
  accelRedirect?: string;
  /** The builds this process runs, for `/healthz` (`serve --repo`'s follower); absent: none. */
  buildStatus?: () => BuildStatus | null;
  /** The clock of `/healthz` (ms since the epoch); tests inject one. */
  now?: () => number;
  /** What the server depends on while running, for `/healthz` (dependencies.ts); absent: none reported. */
  dependencies?: Dependencies;
  /** Where requests, tool calls and sign-ins are counted (metrics.ts); default: a registry of its own. */
  metrics?: GatewayMetrics;
  /** How far the build of this process has got, for the page a person sees before there are pages (building-page.ts). */
  building?: () => BuildingStatus | null;
  /** The access log: told of every answered request; absent: none is logged. */
  accessLog?: (entry: AccessEntry) => void;
}

/** `trust proxy` as Express wants it: booleans and hop counts typed, anything else (addresses, names) as is. */
export function trustProxySetting(value: boolean | string | number | undefined): boolean | string | number {
  if (value === undefined) return false;
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (text === '' || text === 'false') return false;
  if (text === 'true') return true;
  if (/^\d+$/.test(text)) return Number(text);
  return text;
}

const noSniff: RequestHandler = (_req, res, next) => {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  next();
};

export interface Gateway {
  readonly app: express.Express;
  /** What the app reads; `catalog.stats()` says what its caches hold. */
  readonly catalog: Catalog;
}

export function createGateway(options: GatewayOptions): Gateway {
  const log = options.log ?? ((line: string) => processLog.error('gateway.error', line));
  const catalog = new Catalog(options.out, log, { signingKeys: options.signingKeys, limits: options.limits, accelRedirect: options.accelRedirect, observe: options.observe, metrics: options.metrics });
  const routes = servedSurfaces();
  catalog.metrics.watch({ release: () => releaseFigures(options.out, catalog), caches: () => catalog.cacheFigures(), now: options.now });
  // A signing origin computes its digests at start, in the background: the first request for the
  // tip's digest would otherwise read every state root (about a minute on vcpkg-16193, loaded).
  if (catalog.signingKeys.length > 0) void catalog.warmDigests();
  const app = express();
  app.disable('x-powered-by');
  // ETags are set per surface (send.ts); Express must not add its own or answer 304.
  app.set('etag', false);
  app.set('trust proxy', trustProxySetting(options.trustProxy));
  app.set('strict routing', true);
  app.set('case sensitive routing', true);

  app.use(observeRequests({ routes, metrics: catalog.metrics, access: options.accessLog }));
  app.use(noSniff);
  app.get(
    HEALTH_PATH,
    healthRoute({ out: options.out, releases: catalog.releases, buildStatus: options.buildStatus, dependencies: options.dependencies, composedFigures: () => ({ ...catalog.composed.stats().disk }), now: options.now ?? Date.now }),
  );
  app.all(HEALTH_PATH, (_req, _res, next) => next(methodNotAllowed('GET, HEAD')));
  app.use('/auth', options.auth.sessionMiddleware, options.auth.router);
  app.use(methodGuard(routes));
  app.use(surfaceRouter(routes, catalog, options.auth, { toolServerHosts: options.toolServerHosts }));
  app.use(unknownPath);
  app.use(buildingPage({ releases: catalog.releases, building: options.building }));
  app.use(errorHandler(log));
  return { app, catalog };
}

/** What the release gauges read: when `current` was switched (the symlink's own time), the tip's commit time, the chain's length. */
async function releaseFigures(out: string, catalog: Catalog): Promise<{ publishedAtMs: number; tipCommittedAtMs: number; commits: number } | null> {
  const release = await catalog.releases.current();
  if (!release?.info.tip) return null;
  const { mtimeMs } = await lstat(paths.current(out));
  return { publishedAtMs: mtimeMs, tipCommittedAtMs: Date.parse(release.info.tip.pushedAt), commits: release.info.commitCount };
}

export function createApp(options: GatewayOptions): express.Express {
  return createGateway(options).app;
}
