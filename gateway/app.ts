/**
 * The gateway as an Express app, without `listen` (server.ts listens; tests drive the app over
 * real HTTP). Order: security headers, /healthz, /auth (with its session), the method guard, the
 * route table, 404, the one error handler.
 */
import express, { type RequestHandler } from 'express';
import type { Auth } from './auth/index.ts';
import { Catalog, type CatalogLimits } from './catalog.ts';
import type { ObjectBackend } from '../src/store/objects.ts';
import type { WorkObserver } from './encoding.ts';
import { errorHandler, methodNotAllowed, unknownPath } from './errors.ts';
import { HEALTH_PATH, healthRoute, type BuildStatus } from './health.ts';
import { methodGuard, surfaceRouter } from './routes.ts';
import { servedSurfaces } from './surfaces.ts';

export interface GatewayOptions {
  /** The build output directory (`pkgcat build --out`). */
  out: string;
  auth: Auth;
  /** Express `trust proxy`; a string from the command line (`true`, `2`, `loopback, 10.0.0.0/8`) is understood too. */
  trustProxy?: boolean | string | number;
  /** The public address of the site (DECISIONS.md 13), for the surfaces that print absolute URLs. */
  siteUrl?: string;
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
  /** Where the objects are read from (CatalogOptions.objects); default: the output's own. */
  objects?: ObjectBackend;
  /** The builds this process runs, for `/healthz` (`serve --repo`'s follower); absent: none. */
  buildStatus?: () => BuildStatus | null;
  /** The clock of `/healthz` (ms since the epoch); tests inject one. */
  now?: () => number;
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
  const log = options.log ?? ((line: string) => process.stderr.write(`pkgcat: ${line}\n`));
  const catalog = new Catalog(options.out, log, { siteUrl: options.siteUrl, limits: options.limits, accelRedirect: options.accelRedirect, objects: options.objects, observe: options.observe });
  const app = express();
  app.disable('x-powered-by');
  // ETags are set per surface (send.ts); Express must not add its own or answer 304.
  app.set('etag', false);
  app.set('trust proxy', trustProxySetting(options.trustProxy));
  app.set('strict routing', true);
  app.set('case sensitive routing', true);

  app.use(noSniff);
  app.get(
    HEALTH_PATH,
    healthRoute({ out: options.out, releases: catalog.releases, buildStatus: options.buildStatus, composedFigures: () => ({ ...catalog.composed.stats().disk }), now: options.now ?? Date.now }),
  );
  app.all(HEALTH_PATH, (_req, _res, next) => next(methodNotAllowed('GET, HEAD')));
  app.use('/auth', options.auth.sessionMiddleware, options.auth.router);
  const routes = servedSurfaces();
  app.use(methodGuard(routes));
  app.use(surfaceRouter(routes, catalog, options.auth));
  app.use(unknownPath);
  app.use(errorHandler(log));
  return { app, catalog };
}

export function createApp(options: GatewayOptions): express.Express {
  return createGateway(options).app;
}
