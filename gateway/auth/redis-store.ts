/**
 * Sessions in Redis, shared by every gateway pointed at the same server: connect-redis's
 * RedisStore with a `redis` (node-redis) client. The sign-in limiter's counters live on the same
 * connection (rate-limit-redis), so every gateway counts the same failures.
 */
import { RedisStore } from 'connect-redis';
import type { Store as RateLimitStore } from 'express-rate-limit';
import { RedisStore as RateLimitRedisStore, type RedisReply } from 'rate-limit-redis';
import { createClient } from 'redis';
import { Dependencies, type DependencyReporter } from '../dependencies.ts';
import { log } from '../../src/log.ts';
import type { LoginLimiterName } from './rate-limit.ts';
import type { PkgcatSessionStore } from './session-store.ts';

export const REDIS_PREFIX = 'pkgcat:sess:';
/** Keys of the sign-in limiter's counters: `pkgcat:login:user:<address>|<username>`, `pkgcat:login:ip:<address>`. */
export const LOGIN_COUNTER_PREFIX = 'pkgcat:login:';

export interface RedisSessionStoreOptions {
  readonly url: string;
  readonly prefix?: string;
  /** How long the first connection may take before startup fails (ms). Default 10 s. */
  readonly connectTimeoutMs?: number;
  /** How long one command may take before the request fails instead of hanging (ms). Default 5 s. */
  readonly commandTimeoutMs?: number;
  /** Told when the connection is lost (logged once, shown by /healthz) and when it is back. Default: logs to stderr. */
  readonly reporter?: DependencyReporter;
}

/** The URL with any password replaced, fit for messages and logs. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparsable Redis URL>';
  }
}

/** Sends one raw command on the connection (what rate-limit-redis needs). */
type SendCommand = (command: string[]) => Promise<RedisReply>;

class PkgcatRedisStore extends RedisStore implements PkgcatSessionStore {
  readonly kind = 'redis' as const;
  #close: () => Promise<void>;
  #sendCommand: SendCommand;

  constructor(options: ConstructorParameters<typeof RedisStore>[0], close: () => Promise<void>, sendCommand: SendCommand) {
    super(options);
    this.#close = close;
    this.#sendCommand = sendCommand;
  }

  /** A store for one sign-in limiter's counters, on this connection. */
  readonly loginCounters = (limiter: LoginLimiterName): RateLimitStore =>
    new RateLimitRedisStore({ sendCommand: (...command: string[]) => this.#sendCommand(command), prefix: `${LOGIN_COUNTER_PREFIX}${limiter}:` });

  close(): Promise<void> {
    return this.#close();
  }
}

/** Connects to Redis and returns a session store on it; rejects with a clear error if it cannot. */
export async function createRedisSessionStore(options: RedisSessionStoreOptions): Promise<PkgcatSessionStore> {
  const shown = redactRedisUrl(options.url);
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const reporter = options.reporter ?? new Dependencies(log).reporter('sessionStore');
  const client = createClient({
    url: options.url,
    // While Redis is away, fail session look-ups at once (the gateway answers 503) instead of
    // queueing them; reconnect with a capped back-off.
    disableOfflineQueue: true,
    commandOptions: { timeout: options.commandTimeoutMs ?? 5_000 },
    socket: {
      connectTimeout: Math.min(connectTimeoutMs, 5_000),
      reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 5_000),
    },
  });
  // node-redis emits an error per failed reconnect, and `ready` once connected again: said once each.
  client.on('error', (error: Error) => reporter.degraded(`the session store Redis ${shown} is not reachable: ${error.message || error.name}`));
  client.on('ready', () => reporter.ok());

  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.connect(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no connection within ${connectTimeoutMs} ms`)), connectTimeoutMs);
      }),
    ]);
  } catch (error) {
    client.destroy();
    throw new Error(`cannot connect to the session Redis at ${shown} (PKGCAT_REDIS_URL): ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
  }

  const close = async (): Promise<void> => {
    if (!client.isOpen) return;
    if (!client.isReady) {
      // Reconnecting: there is nothing to flush, and close() would wait for Redis to come back.
      client.destroy();
      return;
    }
    try {
      await client.close();
    } catch {
      client.destroy();
    }
  };
  const sendCommand: SendCommand = (command) => client.sendCommand(command) as Promise<RedisReply>;
  return new PkgcatRedisStore({ client, prefix: options.prefix ?? REDIS_PREFIX }, close, sendCommand);
}
