/**
 * Restarts without downtime, with real `pkgcat serve` processes (bench/helpers/serve-process.ts):
 * a serve killed with SIGKILL while its build runs leaves no orphan holding the build lock, and the
 * restarted serve answers from the last published release at once and completes the build; SIGTERM
 * lets every request in flight finish. No timing is assumed: the tests wait for log lines, files
 * and process states.
 */
import { request, type IncomingMessage } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendCommits, createCatalogRepo } from '../../demo/catalog-writer.ts';
import { startServeProcess, type ServeProcess } from '../../bench/helpers/serve-process.ts';
import { paths } from '../../src/store/layout.ts';
import { expected } from '../gateway/harness.ts';
import { exportedFile, hoursLater, manifest, releaseFile, temporaryDirectory } from '../helpers/catalog.ts';
import { cleanEnv, lockHolder, pkgcat } from './run.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `pid` runs (a zombie, exited but not yet reaped by its new parent, does not). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = `/proc/${pid}/stat`;
  return !existsSync(stat) || readFileSync(stat, 'utf8').split(') ')[1]?.[0] !== 'Z';
}

const publishedTip = async (out: string): Promise<string> => (await releaseFile(out, 'release.json')).tip.sha;

interface HealthReply {
  status: number;
  cacheControl: string | null;
  body: any;
}

/** GET /healthz until `ready` holds (the build's messages reach serve a moment after its log lines), a bounded number of looks. */
async function healthzWhen(base: string, ready: (reply: HealthReply) => boolean): Promise<HealthReply> {
  let reply: HealthReply | null = null;
  for (let look = 0; look < 500 && !(reply && ready(reply)); look++) {
    if (reply) await sleep(20);
    const response = await fetch(`${base}/healthz`);
    reply = { status: response.status, cacheControl: response.headers.get('cache-control'), body: await response.json() };
  }
  return reply!;
}

describe('a serve killed with SIGKILL while it builds, then started again', () => {
  it('serves the last published release at once, waits for the orphaned build to go, and completes the build', async () => {
    const dir = await temporaryDirectory();
    const repo = join(dir, 'catalog');
    const out = join(dir, 'out');
    const [first] = await createCatalogRepo(repo, [{ message: 'zlib', time: hoursLater(0), files: { 'packages/zlib/manifest.json': manifest('zlib') } }]);
    expect((await pkgcat(['build', '--repo', repo, '--out', out, '--quiet'])).code).toBe(0);
    const zlib = await expected.packageRecord(out, 'zlib');
    // Enough commits that the build is still running when the test stops it.
    const added = await appendCommits(
      repo,
      Array.from({ length: 30 }, (_, index) => ({ message: `pkg${index}`, time: hoursLater(index + 1), files: { [`packages/pkg${index}/manifest.json`]: manifest(`pkg${index}`) } })),
    );
    const tip = added.at(-1)!;
    const args = ['--out', out, '--repo', repo, '--poll-seconds', '0.2'];

    const killed = await startServeProcess(args, cleanEnv());
    const orphan = await lockHolder(out);
    expect(orphan).not.toBe(killed.pid);
    // Frozen mid-build, so it is still there, holding the lock, when its serve is killed.
    process.kill(orphan, 'SIGSTOP');
    expect(await readFile(join(paths.buildPrivate(out), 'lock'), 'utf8')).toBe(String(orphan));
    expect(await publishedTip(out)).toBe(first);
    const gone = new Promise((resolve) => killed.child.once('exit', resolve));
    killed.child.kill('SIGKILL');
    await gone;

    const restarted = await startServeProcess(args, cleanEnv());
    try {
      // Serving the last published release, while the orphan still holds the lock.
      const answer = await fetch(`${restarted.url}/api/pkgs/zlib.json`);
      expect(answer.status).toBe(200);
      expect(Buffer.from(await answer.arrayBuffer()).equals(zlib)).toBe(true);
      expect((await fetch(`${restarted.url}/api/pkgs/pkg0.json`)).status).toBe(404);

      // Its own build waits for the live holder instead of exiting, and /healthz says so.
      await restarted.waitForLog(new RegExp(`^pkgcat: another build \\(pid ${orphan}\\) is writing ${out}; waiting for it to finish$`, 'm'));
      const waiting = await healthzWhen(restarted.url, (reply) => reply.body.build?.waitingFor !== null);
      expect(waiting).toMatchObject({ status: 200, cacheControl: 'no-store' });
      expect(waiting.body).toMatchObject({ status: 'ok', tip: { sha: first }, build: { running: true, waitingFor: orphan, lastFailure: null } });

      // Resumed, the orphan finds its serve gone and exits; the restarted serve takes the lock over and publishes.
      process.kill(orphan, 'SIGCONT');
      await restarted.waitForLog(new RegExp(`published ${tip.slice(0, 12)}`));
      expect(running(orphan)).toBe(false);
      expect(await publishedTip(out)).toBe(tip);
      expect((await fetch(`${restarted.url}/api/pkgs/pkg29.json`)).status).toBe(200);
      const done = await healthzWhen(restarted.url, (reply) => reply.body.build?.running === false);
      expect(done.body).toMatchObject({ status: 'ok', tip: { sha: tip }, build: { running: false, waitingFor: null, lastFailure: null } });
    } finally {
      if (running(orphan)) process.kill(orphan, 'SIGKILL');
      await restarted.stop();
    }
  });
});

/** GET whose body is not read until `resume()`: the server cannot finish sending a large body meanwhile. */
function heldGet(url: string): Promise<{ response: IncomingMessage; body: () => Promise<Buffer> }> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { headers: { 'accept-encoding': 'identity' } }, (response) => {
      response.pause();
      resolve({
        response,
        body: () =>
          new Promise((done, failed) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => done(Buffer.concat(chunks)));
            response.on('error', failed);
            response.resume();
          }),
      });
    });
    sent.on('error', reject);
    sent.end();
  });
}

describe('SIGTERM with requests in flight', () => {
  it('lets every one finish, refuses new connections, ends its build, and exits 0', async () => {
    const dir = await temporaryDirectory();
    const repo = join(dir, 'catalog');
    const out = join(dir, 'out');
    // An 8 MB search page, more than the socket buffers hold: a client that does not read keeps its response in flight.
    // (The page inlines every package's card; a catalog file holds at most 64 Ki characters of description, so 130 packages.)
    const files = Object.fromEntries(
      Array.from({ length: 130 }, (_, index) => [`packages/big-${String(index).padStart(3, '0')}/manifest.json`, manifest(`big-${String(index).padStart(3, '0')}`, { description: 'a'.repeat(64_000) })]),
    );
    await createCatalogRepo(repo, [{ message: 'big', time: hoursLater(0), files }]);
    const serve: ServeProcess = await startServeProcess(['--out', out, '--repo', repo], cleanEnv());
    try {
      await serve.waitForLog(/published [0-9a-f]{12}/);
      const record = await exportedFile(out, 'index.html');
      expect(record.length).toBeGreaterThan(8_000_000);

      const held = await Promise.all(Array.from({ length: 4 }, () => heldGet(`${serve.url}/`)));
      // A new commit, so a build is running too when the signal comes.
      await appendCommits(repo, [{ message: 'zlib', time: hoursLater(1), files: { 'packages/zlib/manifest.json': manifest('zlib') } }]);
      const build = await lockHolder(out);
      // Frozen, so it is still running when the signal comes (SIGTERM reaches it once it resumes).
      process.kill(build, 'SIGSTOP');

      const exited = new Promise<number | null>((resolve) => serve.child.once('exit', (code) => resolve(code)));
      serve.child.kill('SIGTERM');
      const [, inFlight] = await serve.waitForLog(/^pkgcat: SIGTERM: stopping; no new connections, finishing (\d+) requests in flight, ending the build$/m);
      expect(Number(inFlight)).toBe(held.length);
      await expect(fetch(`${serve.url}/healthz`)).rejects.toThrow();
      process.kill(build, 'SIGCONT');

      for (const { response, body } of held) {
        expect(response.statusCode).toBe(200);
        expect((await body()).equals(record)).toBe(true);
      }
      expect(await exited).toBe(0);
      expect(serve.log()).toMatch(/^pkgcat: stopped$/m);
      expect(running(build)).toBe(false);
      // The build was ended: the new commit is not published.
      expect((await releaseFile(out, 'chain.json')).map((commit: { message: string }) => commit.message)).toEqual(['big']);
    } finally {
      await serve.stop();
    }
  });
});
