/**
 * Faults under a running `pkgcat serve` (a real process, real HTTP): Redis killed and started
 * again, the users file replaced with garbage and restored, the catalog repository moved away and
 * back, the output's disk full (a small tmpfs), a build frozen with SIGSTOP. In each, the server
 * says once what broke and what it does meanwhile, `/healthz` reports it degraded with the reason
 * and since when, the last good state keeps serving the same bytes, nothing answers 5xx but the
 * specified 503 of a missing session store, and the server recovers by itself once the cause has
 * gone (gateway/dependencies.ts; docs/deployment.md "When a dependency fails").
 *
 * No timing is assumed: the tests wait for log lines and for /healthz states (a bounded number of looks).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServeProcess, type ServeProcess } from '../../bench/helpers/serve-process.ts';
import { appendCommits, createCatalogRepo } from '../../demo/catalog-writer.ts';
import { addUser } from '../../gateway/auth/users.ts';
import { paths } from '../../src/store/layout.ts';
import { signIn, USER } from '../gateway/harness.ts';
import { advisory, hoursLater, manifest, temporaryDirectory } from '../helpers/catalog.ts';
import { findRedisServer, startRedisServer, type RedisServer } from '../helpers/redis.ts';
import { cleanEnv, lockHolder, pkgcat } from './run.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A catalog of two packages and an advisory active at its tip. */
async function catalog(repo: string): Promise<string[]> {
  return createCatalogRepo(repo, [
    { message: 'zlib', time: hoursLater(0), files: { 'packages/zlib/manifest.json': manifest('zlib') } },
    {
      message: 'openssl',
      time: hoursLater(1),
      files: {
        'packages/openssl/manifest.json': manifest('openssl', { dependencies: { runtime: ['zlib'] } }),
        'advisories/FAULT-0001.json': advisory('FAULT-0001', { package: 'openssl', severity: 'HIGH' }),
      },
    },
  ]);
}

interface Answer {
  status: number;
  headers: Headers;
  body: Buffer;
}

/** Every answer the tests saw, to check that none was a 5xx but the specified 503s. */
const seen: { path: string; status: number; error: string | null }[] = [];

async function get(base: string, path: string, cookie?: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(`${base}${path}`, { redirect: 'manual', ...init, headers: { 'accept-encoding': 'identity', ...(cookie ? { cookie } : {}), ...(init.headers as Record<string, string>) } });
  const body = Buffer.from(await response.arrayBuffer());
  const error = response.headers.get('content-type')?.startsWith('application/json') && response.status >= 400 ? (JSON.parse(body.toString()) as { error: string }).error : null;
  seen.push({ path, status: response.status, error });
  return { status: response.status, headers: response.headers, body };
}

const postSignIn = (base: string) =>
  get(base, '/auth/login', undefined, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(USER) });

/** The paths whose bodies must not change through a fault: anonymous surfaces, and sha-pinned ones of `tip`. */
const anonymousPaths = ['/api/pkgs/zlib.json', '/api/pkgs/openssl/sbom.json', '/pkgs/openssl', '/advisories/FAULT-0001.md', '/api/pkgs/recent-commits.json'];
const pinnedPaths = (tip: string) => [`/api/pkgs/bundle/${tip}.json`, `/api/pkgs/bundle/${tip}/openssl/deps.json`, `/api/pkgs/bundle/${tip}/openssl/sbom.json?format=spdx`];

async function bodies(base: string, paths: readonly string[], cookie?: string): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const path of paths) {
    const answer = await get(base, path, cookie);
    found.set(path, `${answer.status} ${answer.body.toString('base64')}`);
  }
  return found;
}

interface Health {
  status: string;
  tip: { sha: string } | null;
  build: { running: boolean; lastFailure: string | null } | null;
  dependencies: Record<'disk' | 'repository' | 'sessionStore' | 'usersFile', { status: string; since: string; reason: string | null } | null>;
}

/** GET /healthz until `ready` holds (a bounded number of looks); every look must be a 200. */
async function healthWhen(base: string, ready: (health: Health) => boolean): Promise<Health> {
  let health: Health | null = null;
  for (let look = 0; look < 1500 && !(health && ready(health)); look++) {
    if (health) await sleep(20);
    const answer = await get(base, '/healthz');
    expect(answer.status).toBe(200);
    health = JSON.parse(answer.body.toString()) as Health;
  }
  if (!ready(health!)) throw new Error(`/healthz never got there: ${JSON.stringify(health)}`);
  return health!;
}

/** How many lines of the log match `pattern` (anchored per line). */
const linesMatching = (serve: ServeProcess, pattern: RegExp) => serve.log().split('\n').filter((line) => pattern.test(line)).length;

const SINCE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

/** Stops the serve with SIGTERM and resolves with its exit code. */
async function stopped(serve: ServeProcess): Promise<number | null> {
  const exit = new Promise<number | null>((resolve) => (serve.child.exitCode !== null ? resolve(serve.child.exitCode) : serve.child.once('exit', (code) => resolve(code))));
  await serve.stop();
  return exit;
}

/** A served output of the catalog, its users file, and the env of a serve over it. */
async function served(): Promise<{ dir: string; repo: string; out: string; users: string; shas: string[] }> {
  const dir = await temporaryDirectory();
  const repo = join(dir, 'catalog');
  const out = join(dir, 'out');
  const users = join(dir, 'users.json');
  const shas = await catalog(repo);
  expect((await pkgcat(['build', '--repo', repo, '--out', out, '--quiet'])).code).toBe(0);
  await addUser(users, USER.username, USER.password);
  return { dir, repo, out, users, shas };
}

afterAll(() => {
  // Only the specified 503 (the session store away) may be a 5xx.
  expect(seen.filter((answer) => answer.status >= 500 && answer.error !== 'session_store_unavailable')).toEqual([]);
});

const redisBinary = findRedisServer();

describe.skipIf(redisBinary === null)('Redis killed, then started again', () => {
  it('answers the quick 503 and says so once, /healthz reports the session store, and it recovers by itself', async () => {
    const { dir, out, users, shas } = await served();
    const tip = shas.at(-1)!;
    let redis: RedisServer = await startRedisServer(redisBinary);
    const serve = await startServeProcess(['--out', out, '--users', users, '--redis-url', redis.url, '--session-dir', join(dir, 'sessions')], cleanEnv());
    try {
      const cookie = await signIn(serve.url);
      const anonymous = await bodies(serve.url, anonymousPaths);
      const pinned = await bodies(serve.url, pinnedPaths(tip), cookie);

      await redis.kill();
      const down = /^pkgcat: the session store Redis redis:\/\/127\.0\.0\.1:\d+ is not reachable: .+; sign-in and sha-pinned requests answer 503 session_store_unavailable until it is back; the anonymous surfaces serve as usual$/;
      await serve.waitForLog(new RegExp(down.source, 'm'));
      for (const path of pinnedPaths(tip)) {
        const answer = await get(serve.url, path, cookie);
        expect({ path, status: answer.status, retryAfter: answer.headers.get('retry-after'), body: JSON.parse(answer.body.toString()) }).toEqual({
          path,
          status: 503,
          retryAfter: '5',
          body: { error: 'session_store_unavailable', message: 'The session store is not reachable; try again shortly.' },
        });
      }
      expect((await postSignIn(serve.url)).status).toBe(503);
      expect(await bodies(serve.url, anonymousPaths)).toEqual(anonymous);
      const degraded = await healthWhen(serve.url, (health) => health.dependencies.sessionStore?.status === 'degraded');
      expect(degraded).toMatchObject({ status: 'degraded', tip: { sha: tip }, dependencies: { sessionStore: { status: 'degraded', reason: expect.stringMatching(/^the session store Redis redis:\/\/127\.0\.0\.1:\d+ is not reachable: /) }, usersFile: { status: 'ok' } } });
      expect(degraded.dependencies.sessionStore!.since).toMatch(SINCE);
      // Said once, however many requests failed and reconnections were tried.
      expect(linesMatching(serve, down)).toBe(1);

      redis = await startRedisServer(redisBinary, { port: redis.port });
      await serve.waitForLog(/^pkgcat: the session store is reachable again; sign-in and sha-pinned requests are served again$/m);
      expect(await healthWhen(serve.url, (health) => health.status === 'ok')).toMatchObject({ dependencies: { sessionStore: { status: 'ok', reason: null } } });
      // This Redis keeps nothing on disk: the old session is gone, so sign in again.
      expect((await get(serve.url, pinnedPaths(tip)[0]!, cookie)).status).toBe(401);
      expect(await bodies(serve.url, pinnedPaths(tip), await signIn(serve.url))).toEqual(pinned);
      expect(linesMatching(serve, down)).toBe(1);
      expect(serve.log()).not.toMatch(/ failed: |\n\s+at /);
    } finally {
      expect(await stopped(serve)).toBe(0);
      await redis.stop();
    }
  });
});

describe('the users file replaced with garbage, then restored', () => {
  it('keeps the last good users, says so once, /healthz reports it, and takes the file back once fixed', async () => {
    const { dir, out, users, shas } = await served();
    const tip = shas.at(-1)!;
    const serve = await startServeProcess(['--out', out, '--users', users, '--session-dir', join(dir, 'sessions')], cleanEnv());
    try {
      const cookie = await signIn(serve.url);
      const anonymous = await bodies(serve.url, anonymousPaths);
      const pinned = await bodies(serve.url, pinnedPaths(tip), cookie);
      const good = await readFile(users);

      await writeFile(users, '{"version":1,"users":{"alice":');
      // The session signed in before, and a new sign-in, both use the users last read.
      expect(await bodies(serve.url, pinnedPaths(tip), cookie)).toEqual(pinned);
      expect((await postSignIn(serve.url)).status).toBe(200);
      expect(await bodies(serve.url, anonymousPaths)).toEqual(anonymous);
      const down = new RegExp(
        `^pkgcat: users file ${users} is not valid JSON: .+; signing in and checking sessions with the users last read; the file is read again at the next request once it changes$`,
      );
      expect(linesMatching(serve, down)).toBe(1);
      const degraded = await healthWhen(serve.url, () => true);
      expect(degraded).toMatchObject({ status: 'degraded', dependencies: { usersFile: { status: 'degraded', reason: expect.stringMatching(new RegExp(`^users file ${users} is not valid JSON: `)) } } });
      expect(degraded.dependencies.usersFile!.since).toMatch(SINCE);

      await writeFile(users, good);
      // /healthz looks at the file itself: the fix shows without a sign-in.
      expect(await healthWhen(serve.url, () => true)).toMatchObject({ status: 'ok', dependencies: { usersFile: { status: 'ok', reason: null } } });
      expect(linesMatching(serve, /^pkgcat: the users file is usable again; signing in with it$/)).toBe(1);
      expect(await bodies(serve.url, pinnedPaths(tip), cookie)).toEqual(pinned);
      expect(linesMatching(serve, down)).toBe(1);
      expect(serve.log()).not.toMatch(/UsersFileError| failed: |\n\s+at /);
    } finally {
      expect(await stopped(serve)).toBe(0);
    }
  });

  it('garbage at start: serve exits 1 with one line, before listening', async () => {
    const { dir, out } = await served();
    const users = join(dir, 'garbage.json');
    await writeFile(users, 'not json');
    const run = await pkgcat(['serve', '--out', out, '--users', users, '--port', '0'], { env: cleanEnv() });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^pkgcat: users file ${users} is not valid JSON: [^\\n]+\\n$`));
  });
});

describe('the catalog repository moved away, then back', () => {
  it('says so once, keeps serving the last release, /healthz reports it, and follows main again once back', async () => {
    const dir = await temporaryDirectory();
    const repo = join(dir, 'catalog');
    const away = join(dir, 'moved-away');
    const out = join(dir, 'out');
    const users = join(dir, 'users.json');
    const shas = await catalog(repo);
    const tip = shas.at(-1)!;
    await addUser(users, USER.username, USER.password);
    const serve = await startServeProcess(['--out', out, '--repo', repo, '--users', users, '--poll-seconds', '0.2'], cleanEnv());
    try {
      await serve.waitForLog(new RegExp(`published ${tip.slice(0, 12)}`));
      await healthWhen(serve.url, (health) => health.tip?.sha === tip && health.build?.running === false);
      const cookie = await signIn(serve.url);
      const anonymous = await bodies(serve.url, anonymousPaths);
      const pinned = await bodies(serve.url, pinnedPaths(tip), cookie);

      await rename(repo, away);
      const down = new RegExp(`^pkgcat: the catalog repository is unusable: ${repo} does not exist; still serving the last release; following main again once the repository is back$`);
      await serve.waitForLog(new RegExp(down.source, 'm'));
      const degraded = await healthWhen(serve.url, () => true);
      expect(degraded).toMatchObject({
        status: 'degraded',
        tip: { sha: tip },
        build: { running: false, lastFailure: null },
        dependencies: { repository: { status: 'degraded', reason: `the catalog repository is unusable: ${repo} does not exist` }, disk: { status: 'ok' } },
      });
      expect(degraded.dependencies.repository!.since).toMatch(SINCE);
      expect(await bodies(serve.url, anonymousPaths)).toEqual(anonymous);
      expect(await bodies(serve.url, pinnedPaths(tip), cookie)).toEqual(pinned);

      await rename(away, repo);
      await serve.waitForLog(/^pkgcat: the catalog repository is back; following main again$/m);
      expect(await healthWhen(serve.url, (health) => health.status === 'ok')).toMatchObject({ dependencies: { repository: { status: 'ok', reason: null } } });
      // Following again: a new commit is built and served.
      const [next] = await appendCommits(repo, [{ message: 'curl', time: hoursLater(2), files: { 'packages/curl/manifest.json': manifest('curl') } }]);
      await serve.waitForLog(new RegExp(`published ${next!.slice(0, 12)}`));
      expect((await get(serve.url, '/api/pkgs/curl.json')).status).toBe(200);
      expect(await bodies(serve.url, pinnedPaths(tip), cookie)).toEqual(pinned);
      expect(linesMatching(serve, down)).toBe(1);
      expect(serve.log()).not.toMatch(/ failed: |\n\s+at /);
    } finally {
      expect(await stopped(serve)).toBe(0);
    }
  });
});

/** Why this machine cannot mount the small disk (root, and a container allowed to mount), or null when it can. */
function cannotMount(): string | null {
  if (process.getuid?.() !== 0) return 'it needs root (CI runs as root)';
  const probe = mkdtempSync(join(tmpdir(), 'pkgcat-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'pipe' });
    execFileSync('umount', [probe]);
    return null;
  } catch (error) {
    return `mount failed here: ${String((error as { stderr?: Buffer }).stderr ?? error).trim().split('\n')[0]}`;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}
const unmountable = cannotMount();
if (unmountable) console.warn(`faults.test.ts: the full-disk test mounts a 4 MiB tmpfs, and ${unmountable}: SKIPPED here`);

describe.skipIf(unmountable !== null)('the output\'s disk full (a 4 MiB tmpfs)', () => {
  it('a build fails with one line; serve says so once, keeps serving, /healthz reports the disk, and the next build after room is made publishes', async () => {
    const dir = await temporaryDirectory();
    const mount = join(dir, 'small-disk');
    await mkdir(mount);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mount]);
    try {
      const repo = join(dir, 'catalog');
      const out = join(mount, 'out');
      const users = join(dir, 'users.json');
      const shas = await catalog(repo);
      const tip = shas.at(-1)!;
      await addUser(users, USER.username, USER.password);
      const serve = await startServeProcess(['--out', out, '--repo', repo, '--users', users, '--session-dir', join(dir, 'sessions'), '--poll-seconds', '0.2'], cleanEnv());
      try {
        await serve.waitForLog(new RegExp(`published ${tip.slice(0, 12)}`));
        await healthWhen(serve.url, (health) => health.tip?.sha === tip && health.build?.running === false);
        const cookie = await signIn(serve.url);
        const anonymous = await bodies(serve.url, anonymousPaths);
        const pinned = await bodies(serve.url, pinnedPaths(tip), cookie);

        // Fill what is left of the disk.
        const filler = join(mount, 'filler');
        const file = await open(filler, 'w');
        try {
          const chunk = Buffer.alloc(64 * 1024, 1);
          for (;;) await file.write(chunk);
        } catch (error) {
          expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
        } finally {
          await file.close();
        }

        // A build by hand on the full disk: exit 1, one line.
        const byHand = await pkgcat(['build', '--repo', repo, '--out', join(mount, 'other-out'), '--quiet']);
        expect(byHand.code).toBe(1);
        expect(byHand.stderr).toMatch(/^pkgcat: [^\n]*no space left on the device\n$/);

        const [next] = await appendCommits(repo, [{ message: 'curl', time: hoursLater(2), files: { 'packages/curl/manifest.json': manifest('curl', { description: 'curl, '.repeat(2000) }) } }]);
        const down = new RegExp(`^pkgcat: the disk of ${out} is full: [^\\n]*no space left on the device; still serving the last release; the build is tried again after a back-off, or when main moves$`);
        await serve.waitForLog(new RegExp(down.source, 'm'));
        const degraded = await healthWhen(serve.url, () => true);
        expect(degraded).toMatchObject({
          status: 'degraded',
          tip: { sha: tip },
          build: { lastFailure: expect.stringMatching(/no space left on the device$/) },
          dependencies: { disk: { status: 'degraded', reason: expect.stringMatching(new RegExp(`^the disk of ${out} is full: `)) }, repository: { status: 'ok' } },
        });
        expect(degraded.dependencies.disk!.since).toMatch(SINCE);
        expect(await bodies(serve.url, anonymousPaths)).toEqual(anonymous);
        expect(await bodies(serve.url, pinnedPaths(tip), cookie)).toEqual(pinned);

        await rm(filler);
        await serve.waitForLog(/^pkgcat: a build wrote the output directory again; the disk has room$/m);
        await serve.waitForLog(new RegExp(`published ${next!.slice(0, 12)}`));
        expect(await healthWhen(serve.url, (health) => health.tip?.sha === next)).toMatchObject({ status: 'ok', build: { lastFailure: null }, dependencies: { disk: { status: 'ok', reason: null } } });
        expect((await get(serve.url, '/api/pkgs/curl.json')).status).toBe(200);
        expect(await bodies(serve.url, pinnedPaths(tip), cookie)).toEqual(pinned);
        expect(linesMatching(serve, down)).toBe(1);
        expect(serve.log()).not.toMatch(/ failed: |\n\s+at /);
      } finally {
        expect(await stopped(serve)).toBe(0);
      }
    } finally {
      execFileSync('umount', [mount]);
    }
  });
});

describe('a build frozen with SIGSTOP', () => {
  it('serves the last release meanwhile, /healthz says the build runs, and it publishes once resumed', async () => {
    const dir = await temporaryDirectory();
    const repo = join(dir, 'catalog');
    const out = join(dir, 'out');
    const users = join(dir, 'users.json');
    const shas = await catalog(repo);
    const tip = shas.at(-1)!;
    await addUser(users, USER.username, USER.password);
    expect((await pkgcat(['build', '--repo', repo, '--out', out, '--quiet'])).code).toBe(0);
    // Enough commits that the build is still running when the test stops it.
    const added = await appendCommits(
      repo,
      Array.from({ length: 30 }, (_, index) => ({ message: `pkg${index}`, time: hoursLater(index + 2), files: { [`packages/pkg${index}/manifest.json`]: manifest(`pkg${index}`) } })),
    );
    const serve = await startServeProcess(['--out', out, '--repo', repo, '--users', users, '--poll-seconds', '0.2'], cleanEnv());
    let build = 0;
    try {
      build = await lockHolder(out);
      process.kill(build, 'SIGSTOP');
      const cookie = await signIn(serve.url);
      const anonymous = await bodies(serve.url, anonymousPaths);
      const pinned = await bodies(serve.url, pinnedPaths(tip), cookie);
      expect(await healthWhen(serve.url, () => true)).toMatchObject({ status: 'ok', tip: { sha: tip }, build: { running: true, lastFailure: null } });
      expect(await bodies(serve.url, anonymousPaths)).toEqual(anonymous);
      expect(await bodies(serve.url, pinnedPaths(tip), cookie)).toEqual(pinned);

      process.kill(build, 'SIGCONT');
      await serve.waitForLog(new RegExp(`published ${added.at(-1)!.slice(0, 12)}`));
      expect(await healthWhen(serve.url, (health) => health.build?.running === false)).toMatchObject({ status: 'ok', tip: { sha: added.at(-1) }, build: { lastFailure: null } });
      expect(await bodies(serve.url, pinnedPaths(tip), cookie)).toEqual(pinned);
      expect(serve.log()).not.toMatch(/ failed: |\n\s+at /);
    } finally {
      // A test that failed while the build was frozen must not leave it frozen: serve waits for its build to end.
      if (build > 0) {
        try {
          process.kill(build, 'SIGCONT');
        } catch {
          // Ended already.
        }
      }
      expect(await stopped(serve)).toBe(0);
    }
  });
});
