/** `serve --repo` follows main: new commits and force-pushes become the published state. */
import { afterEach, describe, expect, it } from 'vitest';
import { appendCommits, createCatalogRepo, git } from '../../demo/catalog-writer.ts';
import { MainFollower } from '../../cli/follow.ts';
import { hoursLater, manifest, releaseFile, temporaryDirectory } from '../helpers/catalog.ts';

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
    follower = new MainFollower({ repo, out, pollSeconds: 0.1, siteUrl: 'http://127.0.0.1:8080', log: (line) => lines.push(line) });
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

  it('passes its site URL to the builds it runs (pkgcat build checks it)', async () => {
    const repo = `${await temporaryDirectory()}/catalog`;
    await createCatalogRepo(repo, [{ message: 'zlib', time: hoursLater(0), files: { 'packages/zlib/manifest.json': manifest('zlib') } }]);
    follower = new MainFollower({ repo, out: `${repo}/../out`, pollSeconds: 1, siteUrl: 'ftp://not-a-site', log: () => {} });
    await expect(follower.start()).rejects.toThrow(/the first build of .* failed \(exit 2\)/);
    follower = null;
  });

  it('refuses to start on a repository it cannot build, saying why', async () => {
    const repo = await temporaryDirectory();
    follower = new MainFollower({ repo, out: `${repo}/out`, pollSeconds: 1, siteUrl: 'http://127.0.0.1:8080', log: () => {} });
    await expect(follower.start()).rejects.toThrow(/the first build of .* failed \(exit 1\)/);
    follower = null;
  });
});
