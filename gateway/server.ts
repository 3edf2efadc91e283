/**
 * `pkgcat serve`'s gateway: the session store, the cookie secret, the auth gate and the app,
 * listening. Every setting arrives as an argument; nothing here reads the environment.
 */
import type { KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { createAuth, createSessionStore, loadOrCreateSecret, type PkgcatSessionStore } from './auth/index.ts';
import { checkSecret } from './auth/secret.ts';
import { accelPrefix } from './accel.ts';
import { createGateway } from './app.ts';
import { toolServerHostnames } from './mcp/allowed-hosts.ts';
import { log as processLog } from '../src/log.ts';
import type { CatalogLimits, CatalogStats } from './catalog.ts';
import type { WorkObserver } from './encoding.ts';
import { Dependencies } from './dependencies.ts';
import type { BuildStatus } from './health.ts';
import type { GatewayMetrics } from './metrics.ts';
import type { AccessEntry } from './observe.ts';
import type { BuildingStatus } from './building-page.ts';

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
  /** The site's public address: its host is one the tool server answers (default: `url` below). */
  siteUrl?: string;
  /** Hostnames the tool server answers besides the site URL's host and, on a loopback address, the local names (gateway/mcp/allowed-hosts.ts). */
  mcpAllowedHosts?: readonly string[];
  /** Ed25519 private keys that sign commit digests (GatewayOptions.signingKeys). */
  signingKeys?: readonly KeyObject[];
  /** X-Accel-Redirect mode: nginx's internal location for `out` (GatewayOptions.accelRedirect). */
  accelRedirect?: string;
  /** Bounds of the caches and of concurrent work (catalog.ts DEFAULT_LIMITS). */
  limits?: CatalogLimits;
  /** Told of each assembly, compression and composition (the tests count them). */
  observe?: WorkObserver;
  /** The builds this process runs, for `/healthz` (GatewayOptions.buildStatus). */
  buildStatus?: () => BuildStatus | null;
  /** The clock of `/healthz` (GatewayOptions.now); tests inject one. */
  now?: () => number;
  log?: (line: string) => void;
  /** What the server depends on while running (cli/serve.ts shares it with its follower); default: its own, logging to `log`. */
  dependencies?: Dependencies;
  /** Where requests, tool calls, sign-ins and the session store are counted (GatewayOptions.metrics). */
  metrics?: GatewayMetrics;
  /** The access log (GatewayOptions.accessLog). */
  accessLog?: (entry: AccessEntry) => void;
  /** How far this process's build has got (GatewayOptions.building). */
  building?: () => BuildingStatus | null;
}

export interface RunningServer {
  /** `http://host:port`, with the port actually bound. */
  readonly url: string;
  /** What the caches hold against their bounds, and the work in progress. */
  stats(): CatalogStats;
  /** Requests being answered now. */
  inFlight(): number;
  /**
   * Stops accepting connections and lets the requests in flight finish (each connection is closed
   * once its response is sent), then closes the session store. Connections still open after
   * `graceMs` (a client reading very slowly) are cut. Default grace: none needed by an idle server.
   */
  close(options?: { graceMs?: number }): Promise<void>;
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

/**
 * Closing without losing a request. `server.close()` would not do: it also destroys every
 * connection Node deems idle, and in Node 24 that includes one whose response has called `end()`
 * while its bytes still wait in the socket (a large body to a slow reader), so that body would be
 * cut. So: stop listening (net.Server's close, without that sweep); close each connection once no
 * response on it is in flight (`finish`: every byte handed to the system), gently (`end()`); once
 * closing, every new response says `Connection: close`. After the grace period, cut what is left.
 */
function drain(server: Server): { readonly inFlight: number; close(graceMs: number): Promise<void> } {
  /** Responses in flight on each open connection. */
  const active = new Map<Socket, number>();
  let inFlight = 0;
  let closing = false;
  const endIfIdle = (socket: Socket) => {
    if (closing && (active.get(socket) ?? 0) === 0) socket.end();
  };
  server.on('connection', (socket: Socket) => {
    active.set(socket, 0);
    socket.once('close', () => active.delete(socket));
  });
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    inFlight += 1;
    active.set(socket, (active.get(socket) ?? 0) + 1);
    if (closing) res.setHeader('Connection', 'close');
    let done = false;
    const settle = () => {
      if (done) return;
      done = true;
      inFlight -= 1;
      if (active.has(socket)) active.set(socket, active.get(socket)! - 1);
      endIfIdle(socket);
    };
    res.once('finish', settle);
    res.once('close', settle);
  });
  return {
    get inFlight() {
      return inFlight;
    },
    close(graceMs) {
      closing = true;
      return new Promise<void>((resolve) => {
        const cut = setTimeout(() => server.closeAllConnections(), graceMs);
        cut.unref();
        // Calls back once every connection has closed.
        net.Server.prototype.close.call(server, () => {
          clearTimeout(cut);
          resolve();
        });
        for (const socket of active.keys()) endIfIdle(socket);
      });
    },
  };
}

/** Whether the session store answers: SQLite is a file in this process; Redis, its client's connection. */
function sessionStoreUp(store: PkgcatSessionStore): boolean {
  return store.kind === 'sqlite' || (store as unknown as { client?: { isReady?: boolean } }).client?.isReady === true;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const accelRedirect = options.accelRedirect ? accelPrefix(options.accelRedirect) : undefined;
  const secret = options.sessionSecret
    ? checkSecret(options.sessionSecret, 'the configured session secret')
    : await loadOrCreateSecret(join(options.sessionDir, 'session-secret'));
  const log = options.log ?? ((line: string) => processLog.error('gateway.error', line));
  const dependencies = options.dependencies ?? new Dependencies(processLog, options.now);
  const store = await createSessionStore({ redisUrl: options.redisUrl, sqlitePath: join(options.sessionDir, 'sessions.db'), reporter: dependencies.reporter('sessionStore') });
  try {
    // With Redis, the sign-in limiter counts on it too: every gateway sees the same failures.
    const auth = createAuth({ usersFile: options.usersFile, store, secret, loginRateLimit: { store: store.loginCounters }, dependencies });
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
    // No request is lost: connections are served on a later turn of the event loop than this one.
    const draining = drain(server);
    const toolServerHosts = toolServerHostnames({ siteUrl: options.siteUrl ?? url, listenHost: options.host, extra: options.mcpAllowedHosts });
    const { app, catalog } = createGateway({
      out: options.out, auth, trustProxy: options.trustProxy, toolServerHosts, signingKeys: options.signingKeys, accelRedirect, limits: options.limits, observe: options.observe,
      buildStatus: options.buildStatus, dependencies, now: options.now, log, metrics: options.metrics, accessLog: options.accessLog, building: options.building,
    });
    catalog.metrics.watch({ sessionStore: () => ({ kind: store.kind, up: sessionStoreUp(store) }) });
    server.on('request', app);
    let closing: Promise<void> | null = null;
    return {
      url,
      stats: () => catalog.stats(),
      inFlight: () => draining.inFlight,
      close({ graceMs = 30_000 } = {}) {
        closing ??= (async () => {
          await draining.close(graceMs);
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
