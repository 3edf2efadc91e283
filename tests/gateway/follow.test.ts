/**
 * Following main while requests run (DECISIONS.md 12, CATALOG-FORMAT.md History): a build that
 * publishes a new commit, then a force-push, each while a bounded loop of requests runs. Every
 * answer is the old state or the new one, whole; never an error, never a mix. No timing is assumed.
 */
import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../build/build.ts';
import { appendCommits, git } from '../../demo/catalog-writer.ts';
import { readStateRoot } from '../../src/store/layout.ts';
import type { CommitInfo } from '../../src/compose/types.ts';
import { hour, pkg, type Fixture } from './fixtures.ts';
import { expected, send, withSignedInGateway, type Gateway, type Reply } from './harness.ts';
import { CACHE_CONTROL } from '../helpers/spec.ts';

let fx: Fixture;
let gw: Gateway;
let cookie: string;

withSignedInGateway((context) => ({ fx, gw, cookie } = context));

const get = (path: string, headers: Record<string, string> = {}) => send(gw.url, path, { headers });

/** What the floating surfaces answer now, read from the build's files. */
async function floatingState(): Promise<{ zlib: Buffer; commits: Buffer }> {
  return { zlib: await expected.packageRecord(fx.out, 'zlib'), commits: await expected.publicFile(fx.out, 'api/pkgs/recent-commits.json') };
}

/** Rounds of requests while `work` runs and AFTER_ROUNDS more once it is done; MAX_ROUNDS bounds the whole. */
const AFTER_ROUNDS = 3;
const MAX_ROUNDS = 400;

async function whileRunning(work: Promise<unknown>, round: () => Promise<void>): Promise<void> {
  let done = false;
  const finished = work.then(() => {
    done = true;
  });
  let after = 0;
  for (let rounds = 0; rounds < MAX_ROUNDS && after < AFTER_ROUNDS; rounds++) {
    if (done) after++;
    await round();
  }
  await finished;
}

const oneOf = (reply: Reply, bodies: Buffer[]) => bodies.some((body) => reply.body.equals(body));

describe('following main', () => {
  let firstTip: string;
  let secondTip: string;

  it('a new commit: every answer during the build is the old state or the new one; afterwards, the new one', async () => {
    firstTip = fx.tip;
    const before = await floatingState();
    const oldListing = (await expected.listing(fx.out, firstTip)).bytes;
    [secondTip] = await appendCommits(fx.repo, [{ message: 'Upgrade zlib to 1.3.3\n', time: hour(100), files: pkg('zlib', '1.3.3', { categories: ['compression'] }) }]);

    const replies: { path: string; reply: Reply }[] = [];
    const paths = ['/api/pkgs/zlib.json', '/api/pkgs/ZLIB.json', '/api/pkgs/recent-commits.json', '/api/pkgs/recent-commits.json?limit=2', '/api/pkgs/bundle/latest.json'];
    const build = buildCatalog({ repo: fx.repo, out: fx.out, progress: false, log: () => {} });
    await whileRunning(build, async () => {
      const batch = await Promise.all([
        ...paths.map(async (path) => ({ path, reply: await get(path) })),
        (async () => ({ path: 'old listing', reply: await get(`/api/pkgs/bundle/${firstTip}.json`, { cookie }) }))(),
      ]);
      replies.push(...batch);
    });
    const after = await floatingState();
    expect(after.zlib.equals(before.zlib)).toBe(false);

    for (const { path, reply } of replies) {
      expect(reply.status, path).toBe(path.includes('latest') ? 302 : 200);
      if (path.toLowerCase() === '/api/pkgs/zlib.json') expect(oneOf(reply, [before.zlib, after.zlib]), path).toBe(true);
      if (path === '/api/pkgs/recent-commits.json') expect(oneOf(reply, [before.commits, after.commits]), path).toBe(true);
      if (path.endsWith('limit=2')) {
        const shas = reply.json<CommitInfo[]>().map((commit) => commit.sha);
        expect([[firstTip, fx.shas[fx.shas.length - 2]].join(), [secondTip, firstTip].join()]).toContain(shas.join());
      }
      if (path.includes('latest')) expect([`/api/pkgs/bundle/${firstTip}.json`, `/api/pkgs/bundle/${secondTip}.json`]).toContain(reply.headers.get('location'));
      if (path === 'old listing') expect(reply.body.equals(oldListing)).toBe(true);
    }

    // The rounds after the build saw the new state.
    expect(replies.filter((entry) => entry.path === '/api/pkgs/zlib.json').at(-1)!.reply.body.equals(after.zlib)).toBe(true);
    const record = (await get('/api/pkgs/zlib.json')).json<{ commitSha: string; package: { version: string } }>();
    expect(record.commitSha).toBe(secondTip);
    expect(record.package.version).toBe('1.3.3');
    expect((await get('/api/pkgs/bundle/latest.json')).headers.get('location')).toBe(`/api/pkgs/bundle/${secondTip}.json`);
    expect((await get(`/api/pkgs/bundle/${secondTip}.json`, { cookie })).status).toBe(200);
    expect((await get(`/api/pkgs/bundle/${secondTip}/diff/${firstTip}.json`, { cookie })).status).toBe(200);
  });

  it('a force-push: the dropped sha is unknown (404) though its state file stays; the new tip answers', async () => {
    const dropped = secondTip;
    await git(fx.repo, ['update-ref', 'refs/heads/main', firstTip]);
    const [rewritten] = await appendCommits(fx.repo, [
      { message: 'Upgrade openssl to 3.0.1\n', time: hour(101), files: pkg('openssl', '3.0.1', { categories: ['crypto'], dependencies: { runtime: ['zlib'] } }) },
    ]);
    const before = await floatingState();
    const droppedListing = (await expected.listing(fx.out, dropped)).bytes;

    const replies: { path: string; reply: Reply }[] = [];
    const build = buildCatalog({ repo: fx.repo, out: fx.out, progress: false, log: () => {} });
    await whileRunning(build, async () => {
      const batch = await Promise.all(
        ['/api/pkgs/zlib.json', '/api/pkgs/recent-commits.json', `/api/pkgs/bundle/${dropped}.json`].map(async (path) => ({ path, reply: await get(path, { cookie }) })),
      );
      replies.push(...batch);
    });
    const after = await floatingState();

    for (const { path, reply } of replies) {
      if (path.includes(dropped)) {
        // On the old chain: the old bytes. On the new one: unknown. Nothing else.
        if (reply.status === 200) expect(reply.body.equals(droppedListing)).toBe(true);
        else expect(reply.status).toBe(404);
      } else {
        expect(reply.status, path).toBe(200);
        expect(oneOf(reply, path.includes('zlib') ? [before.zlib, after.zlib] : [before.commits, after.commits]), path).toBe(true);
      }
    }

    expect(replies.filter((entry) => entry.path.includes(dropped)).at(-1)!.reply.status).toBe(404);
    expect(await readStateRoot(fx.out, dropped)).not.toBeNull();
    for (const headers of [{}, { cookie }] as Record<string, string>[]) {
      const gone = await get(`/api/pkgs/bundle/${dropped}.json`, headers);
      expect(gone.status).toBe(404);
      expect(gone.headers.get('cache-control')).toBe(CACHE_CONTROL.negative);
      expect((await get(`/api/pkgs/bundle/${dropped.slice(0, 12)}/full.json`, headers)).status).toBe(404);
      expect((await get(`/api/pkgs/bundle/${rewritten}/diff/${dropped}.json`, headers)).status).toBe(404);
    }
    const listing = await get(`/api/pkgs/bundle/${rewritten}.json`, { cookie });
    expect(listing.status).toBe(200);
    expect(listing.body.equals((await expected.listing(fx.out, rewritten)).bytes)).toBe(true);
    const record = (await get('/api/pkgs/zlib.json')).json<{ commitSha: string; package: { version: string } }>();
    expect(record).toMatchObject({ commitSha: rewritten, package: { version: '1.3.2' } });
    const commits = (await get('/api/pkgs/recent-commits.json?limit=50')).json<CommitInfo[]>().map((commit) => commit.sha);
    expect(commits.slice(0, 2)).toEqual([rewritten, firstTip]);
    expect(commits).not.toContain(dropped);
  });
});
