/**
 * `pkgcat serve`: the gateway over a build output, optionally building and following main.
 *
 * Order: check the directories, listen (so a port in use fails at once, not after a long build),
 * then, with --repo, build and follow main. Until a build is published, the gateway answers 404;
 * an output that already holds a build serves it while the first build runs.
 */
import { CatalogRepo } from '../src/catalog/git.ts';
import { currentReleaseId } from '../src/store/layout.ts';
import { checkDirectory, Failure } from './errors.ts';
import { MainFollower } from './follow.ts';
import type { Settings } from './main.ts';

export interface ServeSettings extends Settings {
  out: string;
  sessionDir: string;
}

export async function runServe(settings: ServeSettings): Promise<number> {
  const log = (line: string) => process.stderr.write(`pkgcat: ${line}\n`);
  const { out, repo } = settings;
  // With --repo, serve's builds write --out; without, another process does and serve only reads it.
  await checkDirectory(out, 'the output directory', { writable: Boolean(repo) });
  if (!settings.redisUrl || !settings.sessionSecret) await checkDirectory(settings.sessionDir, 'the session directory', { writable: true });
  if (repo) (await CatalogRepo.open(repo)).close(); // An unusable repository fails here, in one line, before anything starts.

  const { startServer, ListenError } = await import('../gateway/server.ts');
  let server;
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
      accelRedirect: settings.accelRedirect,
      limits: { composedDiskBytes: settings.composedCacheMb * 1024 * 1024 },
    });
  } catch (error) {
    if (error instanceof ListenError) throw new Failure(listenFailure(error.code, error.address));
    throw error;
  }

  let follower: MainFollower | null = null;
  try {
    // Said once, at start; serve keeps going (404 until a build appears), as docs/decisions.md explains.
    if (!repo && (await currentReleaseId(out).catch(() => null)) === null) {
      log(`${out} holds no published build yet; run pkgcat build --repo <catalog> --out ${out}, or serve with --repo`);
    }
    if (repo) {
      // The builds write the site URL into the release: the configured one, else this address.
      follower = new MainFollower({ repo, out, pollSeconds: settings.pollSeconds, siteUrl: settings.siteUrl ?? server.url, log });
      await follower.start();
    }
    log(`serving ${out} on ${server.url}${follower ? `, following main of ${repo}` : ''}`);
    if (settings.accelRedirect) log(`X-Accel-Redirect mode: nginx sends the bodies from its internal location ${settings.accelRedirect} (an alias of ${out})`);
    log(
      settings.users
        ? `sign in at ${server.url}/auth/login; add a user with: npx pkgcat user add <name> --users ${settings.users}`
        : 'no --users file: anonymous surfaces only; sha-pinned bundles need: --users <file> and npx pkgcat user add <name> --users <file>',
    );
    await new Promise<void>((done) => {
      const stop = () => done();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
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
