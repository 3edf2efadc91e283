/**
 * The session gate (SPEC.md "Authentication", CLI.md "Signing in").
 *
 * - `sessionMiddleware`: express-session, cookie `pkgcat.sid` (HttpOnly, SameSite=Lax, Secure over
 *   TLS, 7 days). Mount it ONLY on `/auth` and the sha-pinned routes: anonymous surfaces must never
 *   see it, so they stay byte-identical for every caller and never send Set-Cookie. It sets a
 *   cookie only when a sign-in wrote the session.
 * - `router` (mount at `/auth`): GET /login (form), POST /login (JSON or form), POST /logout.
 * - `requireSession`: 401 `auth_required` unless the request carries a live signed-in session.
 *
 * Every error is one of gateway/errors.ts's, passed to `next`: the app's one error handler
 * (`errorHandler`, mounted last) writes it, and logs and answers 500 `internal` for anything else.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import session from 'express-session';
import {
  authRequired, badRequest, crossSiteRequest, HttpError, invalidCredentials, methodNotAllowed, sessionStoreUnavailable, unsupportedMediaType,
} from '../errors.ts';
import { isFormPost, noContent, safeNext, seeOther, sendJson, wantsFormAnswer } from './http.ts';
import { sendLoginPage } from './login-page.ts';
import { createLoginLimiters, type LoginRateLimitOptions } from './rate-limit.ts';
import { UsersFile, verifyUser } from './users.ts';
import { Dependencies } from '../dependencies.ts';
import { SESSION_COOKIE } from '../../src/http/session.ts';
import { log } from '../../src/log.ts';

declare module 'express-session' {
  interface SessionData {
    /** Who signed in. */
    username?: string;
    /** When (ms since the epoch): a session lives at most `maxAgeMs` from here, however used. */
    signedInAt?: number;
  }
}

export { SESSION_COOKIE };
export const SESSION_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
export const BODY_LIMIT = '16kb';

export { AUTH_REQUIRED_MESSAGE } from '../errors.ts';
export const NO_USERS_MESSAGE =
  'No users are configured on this gateway; an operator adds one with `pkgcat user add <name> --users <file>` and serves with `--users <file>`.';
export const INVALID_CREDENTIALS_MESSAGE = 'Unknown username or wrong password.';

export type { LoginRateLimitOptions } from './rate-limit.ts';

export interface AuthOptions {
  /** The users file (`--users`, PKGCAT_USERS); null when none is configured: nobody can sign in. */
  readonly usersFile: string | null;
  /** Where sessions live (see `createSessionStore`). */
  readonly store: session.Store;
  /** Signs the cookie; several (newest first) to rotate without signing everyone out. */
  readonly secret: string | readonly string[];
  /** `'auto'` (default): Secure when the request came over TLS, as `trust proxy` tells. */
  readonly secureCookies?: 'auto' | boolean;
  /** Session lifetime, absolute from sign-in (ms). Default 7 days. */
  readonly maxAgeMs?: number;
  readonly loginRateLimit?: LoginRateLimitOptions;
  /**
   * Where a users file or session store that breaks while serving is reported (logged once,
   * shown by /healthz). Default: a tracker of its own that logs to stderr.
   */
  readonly dependencies?: Dependencies;
}

export interface Auth {
  readonly sessionMiddleware: RequestHandler;
  readonly router: Router;
  readonly requireSession: RequestHandler;
}

function logFailure(event: string, message: string, error: unknown): void {
  log.error(event, `${message}: ${error instanceof Error ? error.message : String(error)}`);
}

/** Browsers mark cross-site requests; a sign-in or sign-out from another site is refused. */
const sameSiteOnly: RequestHandler = (req, _res, next) => {
  next(req.get('sec-fetch-site') === 'cross-site' ? crossSiteRequest() : undefined);
};

const requireCredentialBody: RequestHandler = (req, _res, next) => {
  if (!req.is('application/json') && !isFormPost(req)) {
    return next(unsupportedMediaType('Send {"username", "password"} as application/json, or as an HTML form.'));
  }
  const body = req.body as { username?: unknown; password?: unknown } | undefined;
  if (typeof body !== 'object' || body === null || typeof body.username !== 'string' || typeof body.password !== 'string') {
    return next(badRequest('The body needs a string "username" and a string "password".'));
  }
  next();
};

/** 405 with `Allow` for the other methods on a sign-in path. */
function otherMethods(allow: string): RequestHandler {
  return (_req, _res, next) => next(methodNotAllowed(allow));
}

function promisify(run: (done: (error?: unknown) => void) => void): Promise<void> {
  return new Promise((resolve, reject) => run((error) => (error ? reject(error) : resolve())));
}

export function createAuth(options: AuthOptions): Auth {
  const dependencies = options.dependencies ?? new Dependencies(log);
  const users = options.usersFile === null ? null : new UsersFile(options.usersFile, dependencies.reporter('usersFile'));
  const sessionStore = dependencies.reporter('sessionStore');
  // /healthz looks at the users file (a stat; read again only when it changed), so a fix shows without a sign-in.
  if (users !== null) dependencies.probe(() => users.get());
  const maxAgeMs = options.maxAgeMs ?? SESSION_MAX_AGE_MS;
  const secure = options.secureCookies ?? 'auto';
  const secrets = typeof options.secret === 'string' ? [options.secret] : [...options.secret];
  if (secrets.length === 0 || secrets.some((secret) => typeof secret !== 'string' || secret.length === 0)) {
    throw new Error('createAuth: a non-empty session secret is required');
  }

  const expressSession = session({
    name: SESSION_COOKIE,
    secret: secrets,
    store: options.store,
    resave: false,
    saveUninitialized: false,
    rolling: false,
    cookie: { httpOnly: true, sameSite: 'lax', secure, maxAge: maxAgeMs, path: '/' },
  });

  /**
   * express-session, with a store failure answered 503 instead of reaching the app's 500 path, and
   * reported once (not logged per request); a request whose session the store did look up says it works.
   */
  const sessionMiddleware: RequestHandler = (req, res, next) => {
    expressSession(req, res, (error?: unknown) => {
      if (error === undefined || error === null || error === 'route' || error === 'router') {
        if (req.session && req.headers.cookie?.includes(`${SESSION_COOKIE}=`)) sessionStore.ok();
        return next(error);
      }
      sessionStore.degraded(`the session store failed: ${error instanceof Error ? error.message : String(error)}`);
      // express-session reports a failed save or touch after the response is written: nothing more to answer.
      if (res.headersSent) return;
      next(sessionStoreUnavailable());
    });
  };

  /** A call of the session store: a failure is reported (once) and answered 503, as the middleware's. */
  const storeCall = (run: (done: (error?: unknown) => void) => void): Promise<void> =>
    promisify(run).catch((error: unknown) => {
      sessionStore.degraded(`the session store failed: ${error instanceof Error ? error.message : String(error)}`);
      throw sessionStoreUnavailable();
    });

  let warnedInsecure = false;
  const cookieSecure = (req: Request): boolean => (secure === 'auto' ? req.secure : secure);

  const signIn = async (req: Request, res: Response): Promise<void> => {
    const { username, password, next } = req.body as { username: string; password: string; next?: unknown };
    const loaded = users === null ? null : await users.get();
    if (loaded === null || loaded.users.size === 0) throw invalidCredentials(NO_USERS_MESSAGE);
    if (!(await verifyUser(loaded, username, password))) throw invalidCredentials(INVALID_CREDENTIALS_MESSAGE);
    if (!req.session) throw new Error('createAuth: mount sessionMiddleware before the auth router');
    if (secure === true && !req.secure && !warnedInsecure) {
      warnedInsecure = true;
      log.warn('auth.insecure_sign_in', 'secure cookies are required but this sign-in came over plain HTTP; the browser gets no cookie (set trust proxy behind a TLS proxy)');
    }
    // A fresh session id at every sign-in: a session id planted before sign-in is worth nothing.
    await storeCall((done) => req.session.regenerate(done));
    req.session.username = username;
    req.session.signedInAt = Date.now();
    await storeCall((done) => req.session.save(done));
    if (isFormPost(req)) return seeOther(res, safeNext(next));
    sendJson(res, 200, { ok: true, username });
  };

  const signOut = async (req: Request, res: Response): Promise<void> => {
    if (req.session) await storeCall((done) => req.session.destroy(done));
    res.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure: cookieSecure(req) });
    if (isFormPost(req)) return seeOther(res, '/');
    noContent(res);
  };

  const asyncRoute = (handler: (req: Request, res: Response) => Promise<void>): RequestHandler => {
    return (req: Request, res: Response, next: NextFunction) => {
      handler(req, res).catch(next);
    };
  };

  const router = express.Router();
  router.get('/login', async (req, res) => {
    const username = req.session?.username;
    const loaded = users === null ? null : await users.get().catch((error: unknown) => (logFailure('auth.users_file_failed', 'users file', error), null));
    sendLoginPage(res, {
      base: req.baseUrl,
      next: safeNext(req.query.next),
      username: typeof username === 'string' ? username : undefined,
      usersConfigured: loaded !== null && loaded.users.size > 0,
    });
  });
  router.post(
    '/login',
    sameSiteOnly,
    express.json({ limit: BODY_LIMIT, type: 'application/json', strict: true }),
    express.urlencoded({ limit: BODY_LIMIT, extended: false, parameterLimit: 20 }),
    requireCredentialBody,
    ...createLoginLimiters(options.loginRateLimit),
    asyncRoute(signIn),
  );
  router.all('/login', otherMethods('GET, HEAD, POST'));
  router.post(
    '/logout',
    sameSiteOnly,
    express.urlencoded({ limit: BODY_LIMIT, extended: false, parameterLimit: 20 }),
    asyncRoute(signOut),
  );
  router.all('/logout', otherMethods('POST'));
  // A person whose form sign-in failed gets the form again, with the reason and what they typed
  // (and the failure's status); scripts keep their JSON errors (the app's one error handler).
  router.use(async (error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'POST' || req.path !== '/login' || !(error instanceof HttpError) || !wantsFormAnswer(req) || res.headersSent) return next(error);
    const body = (req.body ?? {}) as { username?: unknown; next?: unknown };
    const loaded = users === null ? null : await users.get().catch(() => null);
    const { 'Cache-Control': _cache, ...headers } = error.headers;
    sendLoginPage(
      res,
      {
        base: req.baseUrl,
        next: safeNext(body.next),
        usersConfigured: loaded !== null && loaded.users.size > 0,
        error: error.message,
        typedUsername: typeof body.username === 'string' ? body.username.slice(0, 64) : undefined,
      },
      error.status,
      headers,
    );
  });

  const requireSession: RequestHandler = (req, _res, next) => {
    const check = async (): Promise<boolean> => {
      const current = req.session;
      const username = current?.username;
      if (typeof username !== 'string') return false;
      const signedInAt = current.signedInAt;
      const live = typeof signedInAt === 'number' && Date.now() - signedInAt < maxAgeMs;
      // A removed user is signed out at once, on every gateway reading the same users file.
      const known = live && users !== null && (await users.get()).users.has(username);
      if (!known) await storeCall((done) => current.destroy(done)).catch(() => {});
      return known;
    };
    // The users file keeps its last good list when it breaks (users.ts): a failure here is unexpected, logged, 500 `internal`.
    check().then((ok) => next(ok ? undefined : authRequired()), next);
  };

  return { sessionMiddleware, router, requireSession };
}

export { createSessionStore, SqliteSessionStore, type PkgcatSessionStore, type SessionStoreOptions } from './session-store.ts';
export { loadOrCreateSecret } from './secret.ts';
export { addUser, loadUsers, verifyUser, UsersFile, UsersFileError } from './users.ts';
