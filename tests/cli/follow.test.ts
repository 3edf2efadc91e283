/** `serve --repo` follows main: new commits and force-pushes become the published state. */
import { spawn } from 'node:child_process';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appendCommits, createCatalogRepo, git } from '../../demo/catalog-writer.ts';
import { MainFollower } from '../../cli/follow.ts';
import { lineLogger } from '../../src/log.ts';
import { LAYOUT_VERSION } from '../../src/store/layout.ts';
import { hoursLater, manifest, releaseFile, temporaryDirectory } from '../helpers/catalog.ts';

const PKGCAT = fileURLToPath(new URL('../../bin/pkgcat.js', import.meta.url));
/** The pids of the `pkgcat build` processes of `repo` (Linux: /proc). */
async function buildProcesses(repo: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const command = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    const args = command.split('\0');
    if (args.includes('build') && args.includes(repo)) pids.push(Number(entry));
  }
  return pids;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits (a bounded number of looks) until the published tip is `sha`; returns the tip seen last. */
async function publishedTip(out: string, sha: string): Promise<string | null> {
  let tip: string | null = null;
  for (let look = 0; look < 400 && tip !== sha; look++) {
    tip = await releaseFile(out, 'release.json').then((release) => release.tip.sha, () => null);
    if (tip !== sha) await sleep(50);
  }
  return tip;
}

let follower: MainFollower | null = null;
afterEach(async () => {
  await follower?.stop();
  follower = null;
});

describe('MainFollower', () => {
  it('builds on start, then publishes each new commit and follows a force-push', async () => {
    const repo = `${await temporaryDirectory()}/catalog`;
    const out = `${await temporaryDirectory()}/out`;
    const lines: string[] = [];
    const [first, second] = await createCatalogRepo(repo, [
      { message: 'zlib', time: hoursLater(0), files: { 'packages/zlib/manifest.json': manifest('zlib') } },
      { message: 'curl', time: hoursLater(1), files: { 'packages/curl/manifest.json': manifest('curl') } },
    ]);
    follower = new MainFollower({ repo, out, pollSeconds: 0.1, siteUrl: 'http://127.0.0.1:8080', log: lineLogger((line) => lines.push(line)) });
    await follower.start();
    expect(await publishedTip(out, second)).toBe(second);

    const [third] = await appendCommits(repo, [{ message: 'jq', time: hoursLater(2), files: { 'packages/jq/manifest.json': manifest('jq') } }]);
    expect(await publishedTip(out, third)).toBe(third);
    expect(lines).toContain(`main moved to ${third.slice(0, 12)}; building`);

    // Force-push: main goes back to the first commit and grows another way.
    await git(repo, ['update-ref', 'refs/heads/main', first]);
    const [rewritten] = await appendCommits(repo, [{ message: 'openssl', time: hoursLater(3), files: { 'packages/openssl/manifest.json': manifest('openssl') } }]);
    expect(await publishedTip(out, rewritten)).toBe(rewritten);
    const chain = (await releaseFile(out, 'chain.json')).map((commit: { sha: string }) => commit.sha);
    expect(chain).toEqual([rewritten, first]);
  });

  it('runs each build as `pkgcat build` with its site URL, and keeps the reason of a failed one for /healthz', async () => {
    const repo = `${await temporaryDirectory()}/catalog`;
    await createCatalogRepo(repo, [{ message: 'zlib', time: hoursLater(0), files: { 'packages/zlib/manifest.json': manifest('zlib') } }]);
    const lines: string[] = [];
    follower = new MainFollower({ repo, out: `${repo}/../out`, pollSeconds: 60, siteUrl: 'ftp://not-a-site', log: lineLogger((line) => lines.push(line)) });
    await follower.start();
    await follower.idle();
    expect(follower.status()).toEqual({
      running: false,
      waitingFor: null,
      lastFailure: '--site-url must be an absolute http(s) URL without query or fragment, such as https://pkgs.example.com, got "ftp://not-a-site"',
    });
    expect(lines.at(-1)).toMatch(/^the build of [0-9a-f]{12} failed \(exit 2\); still serving the previous release; trying again in 60 s, or when main moves$/);
  });

  it('a failed build does not stop the following: the previous release stays, and the next commit is built', async () => {
    const repo = `${await temporaryDirectory()}/catalog`;
    const out = `${await temporaryDirectory()}/out`;
    const [first] = await createCatalogRepo(repo, [{ message: 'zlib', time: hoursLater(0), files: { 'packages/zlib/manifest.json': manifest('zlib') } }]);
    follower = new MainFollower({ repo, out, pollSeconds: 0.1, siteUrl: 'http://127.0.0.1:8080', log: lineLogger(() => {}) });
    await follower.start();
    expect(await publishedTip(out, first)).toBe(first);
    await follower.idle();
    expect(follower.status()).toEqual({ running: false, waitingFor: null, lastFailure: null });

    // An output the build cannot write: the layout file of another version makes it refuse.
    await writeFile(join(out, 'layout.json'), '{"layout":1}');
    const [second] = await appendCommits(repo, [{ message: 'curl', time: hoursLater(1), files: { 'packages/curl/manifest.json': manifest('curl') } }]);
    let status = follower.status();
    for (let look = 0; look < 400 && status.lastFailure === null; look++) {
      await sleep(50);
      status = follower.status();
    }
    expect(status.lastFailure).toBe(`${out} holds a build of layout 1; this pkgcat writes and serves layout ${LAYOUT_VERSION}: build the catalog again into a new output directory (pkgcat build --repo <catalog> --out <new directory>), or delete ${out} and build again`);
    expect(await releaseFile(out, 'release.json')).toMatchObject({ tip: { sha: first } });

    await writeFile(join(out, 'layout.json'), JSON.stringify({ layout: LAYOUT_VERSION }));
    const [third] = await appendCommits(repo, [{ message: 'jq', time: hoursLater(2), files: { 'packages/jq/manifest.json': manifest('jq') } }]);
    expect(await publishedTip(out, third)).toBe(third);
    await follower.idle();
    expect(follower.status().lastFailure).toBeNull();
    expect((await releaseFile(out, 'chain.json')).map((commit: { sha: string }) => commit.sha)).toEqual([third, second, first]);
  });

  it('keeps its build process between builds: a build that succeeded builds the next commit when asked', async () => {
    const repo = `${await temporaryDirectory()}/catalog`;
    const out = `${await temporaryDirectory()}/out`;
    const [first] = await createCatalogRepo(repo, [{ message: 'zlib', time: hoursLater(0), files: { 'packages/zlib/manifest.json': manifest('zlib') } }]);
    // What serve --repo runs: pkgcat build --wait, bound to it by an IPC channel.
    const child = spawn(process.execPath, [PKGCAT, 'build', '--repo', repo, '--out', out, '--wait', '--quiet'], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
    const answers: { kind: string; tip?: string }[] = [];
    child.on('message', (message: { kind: string; tip?: string }) => answers.push(message));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const answered = async (count: number) => {
      for (let look = 0; look < 400 && answers.filter(({ kind }) => kind === 'done' || kind === 'failed').length < count; look++) await sleep(50);
      return answers.filter(({ kind }) => kind === 'done' || kind === 'failed');
    };
    try {
      expect(await answered(1)).toEqual([expect.objectContaining({ kind: 'done', tip: first })]);
      // Its checkpoints gone: the process builds from the state it kept.
      await rm(join(out, 'build', 'checkpoints'), { recursive: true, force: true });
      const [second] = await appendCommits(repo, [{ message: 'curl', time: hoursLater(1), files: { 'packages/curl/manifest.json': manifest('curl') } }]);
      child.send({ kind: 'build', quiet: true });
      expect(await answered(2)).toEqual([expect.objectContaining({ kind: 'done', tip: first }), expect.objectContaining({ kind: 'done', tip: second })]);
      expect(child.exitCode).toBeNull();
      expect(await releaseFile(out, 'release.json')).toMatchObject({ tip: { sha: second } });
    } finally {
      // Without its parent's channel, it exits.
      child.disconnect();
      await exited;
    }
  });

  it('lets its build process go after buildIdleSeconds without a build, and builds the next commit in a new one', async () => {
    const repo = `${await temporaryDirectory()}/catalog`;
    const out = `${await temporaryDirectory()}/out`;
    const [first] = await createCatalogRepo(repo, [{ message: 'zlib', time: hoursLater(0), files: { 'packages/zlib/manifest.json': manifest('zlib') } }]);
    follower = new MainFollower({ repo, out, pollSeconds: 0.1, buildIdleSeconds: 1, siteUrl: 'http://127.0.0.1:8080', log: lineLogger(() => {}) });
    await follower.start();
    expect(await publishedTip(out, first)).toBe(first);
    await follower.idle();
    let processes = await buildProcesses(repo);
    for (let look = 0; look < 400 && processes.length > 0; look++) {
      await sleep(50);
      processes = await buildProcesses(repo);
    }
    expect(processes).toEqual([]);
    const [second] = await appendCommits(repo, [{ message: 'curl', time: hoursLater(1), files: { 'packages/curl/manifest.json': manifest('curl') } }]);
    expect(await publishedTip(out, second)).toBe(second);
    await follower.idle();
    expect(follower.status()).toEqual({ running: false, waitingFor: null, lastFailure: null });
  });

  it('refuses to start on a directory that is not a git repository', async () => {
    const repo = await temporaryDirectory();
    follower = new MainFollower({ repo, out: `${repo}/out`, pollSeconds: 1, siteUrl: 'http://127.0.0.1:8080', log: lineLogger(() => {}) });
    await expect(follower.start()).rejects.toThrow(/not a git repository|rev-parse/);
    follower = null;
  });
});
