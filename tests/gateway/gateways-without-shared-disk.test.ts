/**
 * docs/deployment.md (e): gateways on many machines that share no file system, only Redis. Each
 * "machine" has its own clone of the catalog and its own output directory and runs
 * `pkgcat serve --repo`; one nginx sends requests to either (round robin, no sticky sessions).
 * One sign-in through the proxy opens every sha-pinned route on both, with the same bytes and
 * ETags, since builds are deterministic and no body depends on where it is served. A commit pushed
 * to both clones becomes live on both. Skipped when redis-server or nginx is not installed.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendCommits, createCatalogRepo } from '../../demo/catalog-writer.ts';
import { addUser } from '../../gateway/auth/users.ts';
import { startServeProcess, type ServeProcess } from '../../bench/helpers/serve-process.ts';
import { findNginx, startNginx, type Nginx } from '../../bench/helpers/nginx.ts';
import { findRedisServer, startRedisServer, type RedisServer } from '../helpers/redis.ts';
import { advisory, hoursLater, manifest, temporaryDirectory } from '../helpers/catalog.ts';
import { fetchAll, pinnedPaths, type Fetched } from '../helpers/pinned-paths.ts';
import { cleanEnv } from '../cli/run.ts';
import { signIn, USER } from './harness.ts';

const git = promisify(execFile);
const redisBinary = findRedisServer();
const nginxBinary = findNginx();
if (redisBinary === null || nginxBinary === null) {
  console.warn('gateways-without-shared-disk.test.ts: redis-server or nginx is not installed, so the test is SKIPPED (apt-get install -y redis-server nginx)');
}

const SECRET = 'gateways-without-shared-disk-secret-0123456789';

interface Machine {
  clone: string;
  out: string;
  serve: ServeProcess;
}

describe.skipIf(redisBinary === null || nginxBinary === null)('two gateways, each with its own clone and output, one Redis, one nginx', () => {
  let dir: string;
  let upstream: string;
  let shas: string[];
  let redis: RedisServer;
  let nginx: Nginx;
  const machines: Machine[] = [];
  let cookie: string;

  /** Follows `latest.json` on `base` until it names `sha` (each gateway follows its own clone). */
  async function liveAt(base: string, sha: string): Promise<void> {
    for (;;) {
      const response = await fetch(`${base}/api/pkgs/bundle/latest.json`, { redirect: 'manual' });
      if (response.headers.get('location') === `/api/pkgs/bundle/${sha}.json`) return;
      await new Promise((done) => setTimeout(done, 200));
    }
  }

  beforeAll(async () => {
    dir = await temporaryDirectory();
    // The catalog's home (a git server); each machine clones it and is pushed to.
    upstream = join(dir, 'upstream');
    shas = await createCatalogRepo(upstream, [
      { message: 'zlib', time: hoursLater(0), files: { 'packages/zlib/manifest.json': manifest('zlib', { version: '1.3.1' }) } },
      { message: 'curl', time: hoursLater(1), files: { 'packages/curl/manifest.json': manifest('curl', { dependencies: { runtime: ['zlib'] } }) } },
      { message: 'an advisory on zlib', time: hoursLater(2), files: { 'advisories/PKGCAT-0001.json': advisory('PKGCAT-0001', { package: 'zlib', fixed: '1.3.2', severity: 'HIGH' }) } },
    ]);
    redis = await startRedisServer(redisBinary!);
    await addUser(join(dir, 'users.json'), USER.username, USER.password);
    for (const name of ['a', 'b']) {
      const machine = join(dir, `machine-${name}`);
      await mkdir(machine);
      // Nothing shared but Redis: its own clone, output, users file (a copy) and session directory.
      const clone = join(machine, 'catalog.git');
      await git('git', ['clone', '--bare', '--quiet', upstream, clone]);
      await copyFile(join(dir, 'users.json'), join(machine, 'users.json'));
      const out = join(machine, 'out');
      const serve = await startServeProcess(
        ['--repo', clone, '--out', out, '--users', join(machine, 'users.json'), '--session-dir', join(machine, 'sessions'), '--poll-seconds', '0.5'],
        cleanEnv({ PKGCAT_REDIS_URL: redis.url, PKGCAT_SESSION_SECRET: SECRET }),
        { timeoutMs: 60_000 },
      );
      machines.push({ clone, out, serve });
    }
    await Promise.all(machines.map(({ serve }) => liveAt(serve.url, shas.at(-1)!)));
    nginx = await startNginx(nginxBinary!, {
      http: `  upstream pkgcat_gateways {
${machines.map(({ serve }) => `    server ${new URL(serve.url).host};`).join('\n')}
  }
  server {
    listen 127.0.0.1:{{port}};
    location / {
      proxy_pass http://pkgcat_gateways;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
    }
  }`,
    });
    cookie = await signIn(nginx.url);
  }, 180_000);

  afterAll(async () => {
    await nginx?.stop();
    await Promise.all(machines.map(({ serve }) => serve.stop()));
    await redis?.stop();
  });

  /** Every pinned route (and the floating JSON) through the proxy, twice (round robin: once per gateway), and from each gateway directly. */
  async function expectSameEverywhere(commits: readonly string[]): Promise<number> {
    const paths = await pinnedPaths(nginx.url, cookie, commits);
    const readings: Map<string, Fetched>[] = [
      await fetchAll(nginx.url, cookie, paths),
      await fetchAll(nginx.url, cookie, paths),
      ...(await Promise.all(machines.map(({ serve }) => fetchAll(serve.url, cookie, paths)))),
    ];
    for (const path of paths) {
      const first = readings[0]!.get(path)!;
      expect(first.status, path).toBe(200);
      for (const reading of readings) {
        const answer = reading.get(path)!;
        expect({ path, status: answer.status, etag: answer.etag }).toEqual({ path, status: 200, etag: first.etag });
        expect(answer.body.equals(first.body), path).toBe(true);
      }
    }
    return paths.length;
  }

  it('are two processes over two output directories, built from two clones', () => {
    expect(machines[0]!.serve.pid).not.toBe(machines[1]!.serve.pid);
    expect(machines[0]!.out).not.toBe(machines[1]!.out);
  });

  it('one sign-in through the proxy opens every sha-pinned route on both, with the same bytes and ETags', async () => {
    const count = await expectSameEverywhere(shas);
    expect(count).toBeGreaterThan(30);
  }, 120_000);

  it('a commit pushed to both clones is live on both, and its pinned routes are the same on both', async () => {
    const [tip] = await appendCommits(upstream, [{ message: 'zlib 1.3.2', time: hoursLater(3), files: { 'packages/zlib/manifest.json': manifest('zlib', { version: '1.3.2' }) } }]);
    // A post-receive hook on the git server, or a CI job, pushes to every machine's clone.
    for (const { clone } of machines) await git('git', ['-C', upstream, 'push', '--quiet', clone, 'main']);
    await Promise.all(machines.map(({ serve }) => liveAt(serve.url, tip!)));
    await liveAt(nginx.url, tip!);
    await expectSameEverywhere([...shas, tip!]);
  }, 180_000);
});
