/**
 * Failed sign-ins are limited with express-rate-limit: per client address and username (so one
 * account cannot be guessed at), and, more generously, per address alone (so spraying many
 * usernames from one place stops too). Successful sign-ins do not count.
 *
 * The counters live in memory, per gateway process, unless a store is given: with Redis
 * (PKGCAT_REDIS_URL) they live there, next to the sessions, so N gateways behind a balancer allow
 * the attempts of one, not N times as many (redis-store.ts `loginCounters`).
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit, type RateLimitInfo, type Store } from 'express-rate-limit';
import { HttpError, sessionStoreUnavailable, tooManyAttempts } from '../errors.ts';
import { log } from '../../src/log.ts';

/** The two limiters: per address and username, and per address alone. */
export type LoginLimiterName = 'user' | 'ip';

export interface LoginRateLimitOptions {
  /** The window failures are counted in (ms). Default 15 minutes. */
  readonly windowMs?: number;
  /** Failures allowed per address and username within the window. Default 10. */
  readonly limit?: number;
  /** Failures allowed per address, whatever the username. Default 100. */
  readonly perIpLimit?: number;
  /** A store for each limiter's counters (one instance per limiter); default: memory, per process. */
  readonly store?: (limiter: LoginLimiterName) => Store;
}

function clientKey(req: Request): string {
  return ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown');
}

function usernameOf(req: Request): string {
  const username = (req.body as { username?: unknown } | undefined)?.username;
  return typeof username === 'string' ? username.slice(0, 64) : '';
}

function limiter(property: string, windowMs: number, limit: number, key: (req: Request) => string, store: Store | undefined): RequestHandler {
  const counting = rateLimit({
    windowMs,
    limit,
    ...(store ? { store } : {}),
    requestPropertyName: property,
    skipSuccessfulRequests: true,
    standardHeaders: false,
    legacyHeaders: false,
    keyGenerator: (req) => key(req),
    // The one error handler (gateway/errors.ts) writes the 429.
    handler: (req: Request, _res: Response, next: NextFunction) => {
      const info = (req as unknown as Record<string, RateLimitInfo | undefined>)[property];
      const reset = info?.resetTime?.getTime();
      next(tooManyAttempts(((reset ?? Date.now() + windowMs) - Date.now()) / 1000));
    },
  });
  // A store that cannot count (Redis away) fails the sign-in as the session store would: 503, not 500.
  return (req, res, next) => {
    counting(req, res, (error?: unknown) => {
      if (error === undefined || error === null || error instanceof HttpError) return next(error);
      log.error('auth.limiter_store_failed', `sign-in limiter store: ${error instanceof Error ? error.message : String(error)}`);
      next(sessionStoreUnavailable());
    });
  };
}

/** The limiters to run, in order, after the body is parsed and before the password is checked. */
export function createLoginLimiters(options: LoginRateLimitOptions = {}): RequestHandler[] {
  const windowMs = options.windowMs ?? 15 * 60 * 1000;
  return [
    limiter('pkgcatLoginUser', windowMs, options.limit ?? 10, (req) => `${clientKey(req)}|${usernameOf(req)}`, options.store?.('user')),
    limiter('pkgcatLoginIp', windowMs, options.perIpLimit ?? 100, clientKey, options.store?.('ip')),
  ];
}
