/** `pkgcat serve`: the gateway over a build output, optionally building and following main first. */
import { basename, dirname, join, resolve } from 'node:path';
import type { Settings } from './main.ts';
import { MainFollower } from './follow.ts';

export interface ServeSettings extends Settings {
  out: string;
}

export async function runServe(settings: ServeSettings): Promise<number> {
  const log = (line: string) => process.stderr.write(`pkgcat: ${line}\n`);
  let follower: MainFollower | null = null;
  if (settings.repo) {
    follower = new MainFollower({ repo: settings.repo, out: settings.out, pollSeconds: settings.pollSeconds, log });
    await follower.start();
  }
  const { startServer } = await import('../gateway/server.ts');
  const server = await startServer({
    out: settings.out,
    usersFile: settings.users ?? null,
    host: settings.host,
    port: settings.port,
    redisUrl: settings.redisUrl,
    sessionSecret: settings.sessionSecret,
    sessionDir: settings.sessionDir ? resolve(settings.sessionDir) : join(dirname(settings.out), `${basename(settings.out)}-sessions`),
    trustProxy: settings.trustProxy,
    siteUrl: settings.siteUrl,
    accelRedirect: settings.accelRedirect,
  });
  log(`serving ${settings.out} on ${server.url}${follower ? `, following main of ${settings.repo}` : ''}`);
  if (settings.accelRedirect) log(`X-Accel-Redirect mode: nginx sends the bodies from its internal location ${settings.accelRedirect} (an alias of ${settings.out})`);
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
  await follower?.stop();
  await server.close();
  return 0;
}
