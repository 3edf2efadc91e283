/**
 * `pkgcat serve`: the gateway over a build output, optionally building and following main.
 *
 * Order: check the directories, listen and say so (a port in use fails at once, and a restart is
 * serving the last published release within a moment), open the metrics listener when asked
 * (--metrics-port), then, with --repo, build and follow main in the background. Until a build is
 * published, the gateway answers 404 (and /healthz 503), and a browser gets the first-build page.
 *
 * SIGTERM or SIGINT stops it gracefully: no new connections, the requests in flight finish, the
 * follower stops and its build ends; then exit 0. A second signal exits at once.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { CatalogRepo } from '../src/catalog/git.ts';
import { keyId } from '../src/digest/signed-digest.ts';
import { currentReleaseId, otherLayout } from '../src/store/layout.ts';
import { loadUsers, UsersFileError } from '../gateway/auth/users.ts';
import { Dependencies } from '../gateway/dependencies.ts';
import { log } from '../src/log.ts';
import { checkDirectory, Failure } from './errors.ts';
import { MainFollower } from './follow.ts';
import type { AccessEntry } from '../gateway/observe.ts';
import type { Settings } from './main.ts';

/** How long requests in flight may take to finish after SIGTERM before their connections are cut (ms). */
const SHUTDOWN_GRACE_MS = 20_000;

export interface ServeSettings extends Settings {
  out: string;
  sessionDir: string;
  /** The configured site URL, or the default one: the builds of --repo write it (docs/decisions.md). */
  siteUrl: string;
}

export async function runServe(settings: ServeSettings): Promise<number> {
  const { out, repo } = settings;
  // With --repo, serve's builds write --out; without, another process does and serve only reads it.
  await checkDirectory(out, 'the output directory', { writable: Boolean(repo) });
  // An output of another layout has objects this pkgcat cannot read: refuse it before listening.
  const problem = await otherLayout(out).catch(() => null);
  if (problem) throw new Failure(problem);
  if (!settings.redisUrl || !settings.sessionSecret) await checkDirectory(settings.sessionDir, 'the session directory', { writable: true });
  if (repo) (await CatalogRepo.open(repo)).close(); // An unusable repository fails here, in one line, before anything starts.
  // So does an unusable users file; one that breaks later keeps its last good users (gateway/dependencies.ts).
  if (settings.users) {
    try {
      await loadUsers(settings.users);
    } catch (error) {
      throw error instanceof UsersFileError ? new Failure(error.message) : error;
    }
  }
  const dependencies = new Dependencies(log);

  const signingKeys = await Promise.all(settings.signingKeys.map(readSigningKey));
  const [{ startServer, ListenError }, { GatewayMetrics }, { startMetricsServer }] = await Promise.all([
    import('../gateway/server.ts'),
    import('../gateway/metrics.ts'),
    import('../gateway/metrics-server.ts'),
  ]);
  const metrics = new GatewayMetrics({ processMetrics: true });
  let server;
  let metricsServer;
  let follower: MainFollower | null = null;
  try {
    server = await startServer({
      out,
      usersFile: settings.users ?? null,
      host: settings.host,
      port: settings.port,
      redisUrl: settings.redisUrl,
      sessionSecret: settings.sessionSecret,
      sessionDir: settings.sessionDir,
      trustProxy: settings.trustProxy,
      siteUrl: settings.siteUrl,
      mcpAllowedHosts: settings.mcpAllowedHosts,
      accelRedirect: settings.accelRedirect,
      signingKeys,
      limits: { composedDiskBytes: settings.composedCacheMb * 1024 * 1024 },
      buildStatus: repo ? () => follower?.status() ?? null : undefined,
      dependencies,
      building: repo ? () => follower?.building() ?? { running: true, publishing: false, failed: false } : undefined,
      metrics,
      accessLog: settings.accessLog ? accessLine : undefined,
    });
  } catch (error) {
    if (error instanceof ListenError) throw new Failure(listenFailure(error.code, error.address));
    throw error;
  }
  metrics.watch({ buildRunning: () => follower?.status().running ?? false });
  if (settings.metricsPort !== undefined) {
    try {
      metricsServer = await startMetricsServer(metrics, settings.metricsHost, settings.metricsPort);
    } catch (error) {
      await server.close();
      const code = (error as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
      const address = `${settings.metricsHost.includes(':') ? `[${settings.metricsHost}]` : settings.metricsHost}:${settings.metricsPort}`;
      throw new Failure(listenFailure(code, address, METRICS_LISTENER));
    }
  }

  // From here on, SIGTERM and SIGINT stop gracefully (before, their default action ends the process).
  const signalled = new Promise<NodeJS.Signals>((stop) => {
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  try {
    const published = (await currentReleaseId(out).catch(() => null)) !== null;
    // Said once, at start; serve keeps going (404 until a build appears), as docs/decisions.md explains.
    if (!repo && !published) {
      log.warn('serve.no_release', `${out} holds no published build yet; run pkgcat build --repo <catalog> --out ${out}, or serve with --repo`, { out });
    }
    log.info('serve.listening', `serving ${out} on ${server.url}${repo ? `, following main of ${repo}` : ''}`, { out, url: server.url, repo: repo ?? null });
    if (metricsServer) log.info('serve.metrics_listening', `metrics for Prometheus on ${metricsServer.url}/metrics`, { url: `${metricsServer.url}/metrics` });
    for (const key of signingKeys) log.info('serve.signing_key', `commit digests (/api/digests/{sha}.json) are signed by key ${await keyId(key)}`, { kid: await keyId(key) });
    if (settings.accelRedirect) log.info('serve.accel_redirect', `X-Accel-Redirect mode: nginx sends the bodies from its internal location ${settings.accelRedirect} (an alias of ${out})`);
    log.info(
      'serve.sign_in',
      settings.users
        ? `sign in at ${server.url}/auth/login; add a user with: npx pkgcat user add <name> --users ${settings.users}`
        : 'no --users file: anonymous surfaces only; sha-pinned bundles need: --users <file> and npx pkgcat user add <name> --users <file>',
    );
    // Where a person goes: at once when a release is there; else once the first build has published one.
    const ready = () => log.info('serve.ready', `the catalog is ready: open ${server.url}/`, { url: `${server.url}/` });
    if (published) ready();
    else if (repo) log.info('serve.first_build', `the first build is running: ${server.url}/ shows how far it has got, and the catalog in a few seconds`, { url: `${server.url}/` });
    if (repo) {
      // The builds write the configured site URL (never this listen address) into the documents that carry one.
      log.info('serve.site_url', `the builds write ${settings.siteUrl} into the sitemap, feeds, llms.txt and mirrors (--site-url)`, { siteUrl: settings.siteUrl });
      follower = new MainFollower({
        repo, out, pollSeconds: settings.pollSeconds, buildIdleSeconds: settings.buildIdleSeconds, siteUrl: settings.siteUrl, exportDir: settings.exportDir, buildEnv: settings.buildProcessEnv, log, dependencies, metrics,
        onFirstPublished: published ? undefined : ready,
      });
      await follower.start();
    }
    const signal = await signalled;
    const second = () => {
      log.warn('serve.second_signal', 'a second signal: stopping now');
      process.exit(1);
    };
    process.once('SIGINT', second);
    process.once('SIGTERM', second);
    const inFlight = server.inFlight();
    const stopped = Promise.all([follower?.stop(), server.close({ graceMs: SHUTDOWN_GRACE_MS })]);
    log.info('serve.stopping', `${signal}: stopping; no new connections, finishing ${inFlight} requests in flight${follower ? ', ending the build' : ''}`, { signal, inFlight });
    await stopped;
    log.info('serve.stopped', 'stopped');
    return 0;
  } finally {
    await follower?.stop();
    await server.close();
    await metricsServer?.close();
  }
}

/** The access log's line: the route (a registry row id), never the path, which may hold anything a client sends. */
function accessLine(entry: AccessEntry): void {
  const aborted = entry.aborted ? ' (the client went away)' : '';
  log.access(`${entry.method} ${entry.route} ${entry.status} ${entry.bytes} B ${entry.durationMs} ms ${entry.requestId}${aborted}`, { ...entry });
}

/** The flags that choose a listener's port and address, as a message names them. */
interface ListenerFlags {
  readonly port: string;
  readonly host: string;
}

const GATEWAY_LISTENER: ListenerFlags = { port: '--port (or PORT)', host: '--host (or HOST)' };
const METRICS_LISTENER: ListenerFlags = { port: '--metrics-port (or PKGCAT_METRICS_PORT)', host: '--metrics-host (or PKGCAT_METRICS_HOST)' };

/** Why a listener could not listen, and what the operator can change. */
function listenFailure(code: string, address: string, flags: ListenerFlags = GATEWAY_LISTENER): string {
  switch (code) {
    case 'EADDRINUSE':
      return `cannot listen on ${address}: another process is using that port; stop it, or choose another ${flags.port}`;
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${address}: that address is not one of this machine's; choose another ${flags.host}`;
    case 'EACCES':
      return `cannot listen on ${address}: permission denied (ports below 1024 need privileges); choose another ${flags.port}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot listen on ${address}: the host name does not resolve; choose another ${flags.host}`;
    default:
      return `cannot listen on ${address}: ${code}`;
  }
}

/** An Ed25519 private key in PEM (`openssl genpkey -algorithm ed25519`), or a Failure saying why not. */
async function readSigningKey(file: string): Promise<KeyObject> {
  let key: KeyObject;
  try {
    key = createPrivateKey(await readFile(file));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'not a private key in PEM';
    throw new Failure(`--signing-key ${file}: ${reason}; make one with: openssl genpkey -algorithm ed25519 -out ${file}`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Failure(`--signing-key ${file}: an ${key.asymmetricKeyType} key; commit digests are signed with Ed25519 (openssl genpkey -algorithm ed25519)`);
  return key;
}
