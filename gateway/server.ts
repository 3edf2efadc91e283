/**
 * `pkgcat serve`'s gateway: the session store, the cookie secret, the auth gate and the app,
 * listening. Every setting arrives as an argument; nothing here reads the environment.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createAuth, createSessionStore, loadOrCreateSecret } from './auth/index.ts';
import { checkSecret } from './auth/secret.ts';
import { accelPrefix } from './accel.ts';
import { createGateway } from './app.ts';
import type { CatalogLimits, CatalogStats } from './catalog.ts';
import type { WorkObserver } from './encoding.ts';

export interface ServerOptions {
  out: string;
  /** The users file; null: nobody can sign in, the anonymous surfaces still serve. */
  usersFile: string | null;
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  /** Sessions in Redis when set, else SQLite at `<sessionDir>/sessions.db`. */
  redisUrl?: string;
  /** Signs the session cookie; when absent, generated once into `<sessionDir>/session-secret`. */
  sessionSecret?: string;
  sessionDir: string;
  trustProxy?: boolean | string | number;
  /** DECISIONS.md 13; default: `url` below. */
  siteUrl?: string;
  /** X-Accel-Redirect mode: nginx's internal location for `out` (GatewayOptions.accelRedirect). */
  accelRedirect?: string;
  /** Bounds of the caches and of concurrent work (catalog.ts DEFAULT_LIMITS). */
  limits?: CatalogLimits;
  /** Told of each assembly, compression and composition (the tests count them). */
  observe?: WorkObserver;
  log?: (line: string) => void;
}

export interface RunningServer {
  /** `http://host:port`, with the port actually bound. */
  readonly url: string;
  /** What the caches hold against their bounds, and the work in progress. */
  stats(): CatalogStats;
  close(): Promise<void>;
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

const LISTEN_REASONS: Record<string, string> = {
  EADDRINUSE: 'the address is already in use',
  EADDRNOTAVAIL: 'the address is not available on this machine',
  EACCES: 'permission denied',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve',
};

/** The server could not listen: `code` is the system's (EADDRINUSE, EADDRNOTAVAIL, EACCES, ...). */
export class ListenError extends Error {
  readonly code: string;
  /** `host:port` as asked for (`[::1]:8080` for IPv6). */
  readonly address: string;
  constructor(code: string, host: string, port: number, cause: unknown) {
    const address = `${urlHost(host)}:${port}`;
    super(`cannot listen on ${address}: ${LISTEN_REASONS[code] ?? (cause as Error).message} (${code})`, { cause });
    this.name = 'ListenError';
    this.code = code;
    this.address = address;
  }
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const accelRedirect = options.accelRedirect ? accelPrefix(options.accelRedirect) : undefined;
  const secret = options.sessionSecret
    ? checkSecret(options.sessionSecret, 'the configured session secret')
    : await loadOrCreateSecret(join(options.sessionDir, 'session-secret'));
  const store = await createSessionStore({ redisUrl: options.redisUrl, sqlitePath: join(options.sessionDir, 'sessions.db') });
  try {
    const auth = createAuth({ usersFile: options.usersFile, store, secret });
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      const failed = (error: NodeJS.ErrnoException) => {
        reject(new ListenError(error.code ?? 'EUNKNOWN', options.host, options.port, error));
      };
      server.once('error', failed);
      server.listen(options.port, options.host, () => {
        server.off('error', failed);
        resolve();
      });
    });
    const { port } = server.address() as AddressInfo;
    const url = `http://${urlHost(options.host)}:${port}`;
    // The app is made once the port is known: the site URL defaults to this address (DECISIONS.md 13).
    // No request is lost: connections are served on a later turn of the event loop than this one.
    const siteUrl = options.siteUrl ?? url;
    const { app, catalog } = createGateway({ out: options.out, auth, trustProxy: options.trustProxy, siteUrl, accelRedirect, limits: options.limits, observe: options.observe, log: options.log });
    server.on('request', app);
    let closing: Promise<void> | null = null;
    return {
      url,
      stats: () => catalog.stats(),
      close() {
        closing ??= (async () => {
          await new Promise<void>((resolve) => {
            server.close(() => resolve());
            // Idle keep-alive sockets would hold close() open; requests in flight still finish.
            server.closeIdleConnections();
          });
          await store.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
