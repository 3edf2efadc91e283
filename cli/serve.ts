/**
 * `pkgcat serve`: the gateway over a build output, optionally building and following main.
 *
 * Order: check the directories, listen and say so (a port in use fails at once, and a restart is
 * serving the last published release within a moment), then, with --repo, build and follow main
 * in the background. Until a build is published, the gateway answers 404 (and /healthz 503).
 *
 * SIGTERM or SIGINT stops it gracefully: no new connections, the requests in flight finish, the
 * follower stops and its build ends; then exit 0. A second signal exits at once.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { CatalogRepo } from '../src/catalog/git.ts';
import { keyId } from '../src/digest/signed-digest.ts';
import { currentReleaseId } from '../src/store/layout.ts';
import { loadUsers, UsersFileError } from '../gateway/auth/users.ts';
import { Dependencies } from '../gateway/dependencies.ts';
import { checkDirectory, Failure } from './errors.ts';
import { MainFollower } from './follow.ts';
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
  const log = (line: string) => process.stderr.write(`pkgcat: ${line}\n`);
  const { out, repo } = settings;
  // With --repo, serve's builds write --out; without, another process does and serve only reads it.
  await checkDirectory(out, 'the output directory', { writable: Boolean(repo) });
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
  const { startServer, ListenError } = await import('../gateway/server.ts');
  let server;
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
      log,
    });
  } catch (error) {
    if (error instanceof ListenError) throw new Failure(listenFailure(error.code, error.address));
    throw error;
  }

  // From here on, SIGTERM and SIGINT stop gracefully (before, their default action ends the process).
  const signalled = new Promise<NodeJS.Signals>((stop) => {
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  try {
    // Said once, at start; serve keeps going (404 until a build appears), as docs/decisions.md explains.
    if (!repo && (await currentReleaseId(out).catch(() => null)) === null) {
      log(`${out} holds no published build yet; run pkgcat build --repo <catalog> --out ${out}, or serve with --repo`);
    }
    log(`serving ${out} on ${server.url}${repo ? `, following main of ${repo}` : ''}`);
    for (const key of signingKeys) log(`commit digests (/api/digests/{sha}.json) are signed by key ${await keyId(key)}`);
    if (settings.accelRedirect) log(`X-Accel-Redirect mode: nginx sends the bodies from its internal location ${settings.accelRedirect} (an alias of ${out})`);
    log(
      settings.users
        ? `sign in at ${server.url}/auth/login; add a user with: npx pkgcat user add <name> --users ${settings.users}`
        : 'no --users file: anonymous surfaces only; sha-pinned bundles need: --users <file> and npx pkgcat user add <name> --users <file>',
    );
    if (repo) {
      // The builds write the configured site URL (never this listen address) into the documents that carry one.
      log(`the builds write ${settings.siteUrl} into the sitemap, feeds, llms.txt and mirrors (--site-url)`);
      follower = new MainFollower({ repo, out, pollSeconds: settings.pollSeconds, siteUrl: settings.siteUrl, log, dependencies });
      await follower.start();
    }
    const signal = await signalled;
    const second = () => {
      log('a second signal: stopping now');
      process.exit(1);
    };
    process.once('SIGINT', second);
    process.once('SIGTERM', second);
    const inFlight = server.inFlight();
    const stopped = Promise.all([follower?.stop(), server.close({ graceMs: SHUTDOWN_GRACE_MS })]);
    log(`${signal}: stopping; no new connections, finishing ${inFlight} requests in flight${follower ? ', ending the build' : ''}`);
    await stopped;
    log('stopped');
    return 0;
  } finally {
    await follower?.stop();
    await server.close();
  }
}

/** Why the gateway could not listen, and what the operator can change. */
function listenFailure(code: string, address: string): string {
  switch (code) {
    case 'EADDRINUSE':
      return `cannot listen on ${address}: another process is using that port; stop it, or choose another --port (or PORT)`;
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${address}: that address is not one of this machine's; choose another --host (or HOST)`;
    case 'EACCES':
      return `cannot listen on ${address}: permission denied (ports below 1024 need privileges); choose another --port (or PORT)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot listen on ${address}: the host name does not resolve; choose another --host (or HOST)`;
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
