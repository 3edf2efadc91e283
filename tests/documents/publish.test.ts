/**
 * A new commit is published in two releases (build/publish.ts): the JSON surfaces first, the
 * documents (and SBOMs) a moment later. In between, the first release carries the previous
 * release's documents, so a reader gets them one commit old rather than a 404, and a document
 * that did not exist before (a new package's mirror) answers 503 with Retry-After. Neither
 * release's files change afterwards: the second writes its documents beside links, not through them.
 */
import { readdir, readFile, rename, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { appendCommits, createCatalogRepo } from '../../demo/catalog-writer.ts';
import { buildCatalog } from '../../build/build.ts';
import { paths, readJson, type ReleaseInfo } from '../../src/store/layout.ts';
import { send, startGateway, type Gateway } from '../gateway/harness.ts';
import { temporaryDirectory } from '../helpers/catalog.ts';
import { CACHE_CONTROL } from '../helpers/spec.ts';
import { DOCUMENTS_STORY } from './story.ts';

let dir: string;
let out: string;
let shas: string[];
let gw: Gateway;
/** Release ids of the tip before the last commit, and the two of the last commit, in order. */
let before: string;
let first: string;
let second: string;

const build = () => buildCatalog({ repo: join(dir, 'catalog'), out, progress: false, log: () => {} });
const file = (release: string, path: string) => readFile(join(paths.public(paths.release(out, release)), path), 'utf8');

/** Points `current` at a release, as the build does between its two releases. */
async function publish(release: string): Promise<void> {
  const link = `${paths.current(out)}.test`;
  await rm(link, { force: true });
  await symlink(join('releases', release), link);
  await rename(link, paths.current(out));
}

beforeAll(async () => {
  dir = await temporaryDirectory('pkgcat-publish-');
  out = join(dir, 'out');
  shas = await createCatalogRepo(join(dir, 'catalog'), DOCUMENTS_STORY.slice(0, -1));
  await build();
  const releasesBefore = (await readdir(paths.releases(out))).sort();
  before = releasesBefore.at(-1)!;
  // The story's last commit adds leftpad.
  shas.push(...(await appendCommits(join(dir, 'catalog'), DOCUMENTS_STORY.slice(-1))));
  await build();
  const added = (await readdir(paths.releases(out))).sort().filter((id) => !releasesBefore.includes(id));
  expect(added).toHaveLength(2);
  [first, second] = added;
  gw = await startGateway(out, dir);
});

afterAll(async () => {
  await gw?.close();
});

it('the first release holds the new JSON and the previous commit\'s documents; the second, this commit\'s', async () => {
  const [tipBefore, tip] = [shas.at(-2)!, shas.at(-1)!];
  const firstInfo = await readJson<ReleaseInfo>(paths.releaseInfo(paths.release(out, first)));
  expect(firstInfo.tip?.sha).toBe(tip);
  expect(firstInfo.publicSurfaces).not.toContain('package-markdown');
  expect(JSON.parse(await file(first, 'api/pkgs/leftpad.json')).commitSha).toBe(tip);
  expect(await file(first, 'pkgs/zlib.md')).toBe(await file(before, 'pkgs/zlib.md'));
  expect(await file(first, 'pkgs/zlib.md')).toContain(`commit \`${tipBefore}\``);
  await expect(file(first, 'pkgs/leftpad.md')).rejects.toThrow();

  const secondInfo = await readJson<ReleaseInfo>(paths.releaseInfo(paths.release(out, second)));
  expect(secondInfo.publicSurfaces).toContain('package-markdown');
  expect(await file(second, 'pkgs/zlib.md')).toContain(`commit \`${tip}\``);
  expect(await file(second, 'pkgs/leftpad.md')).toContain('# leftpad\n');
  // Writing this commit's documents did not write through the links into the releases before it.
  expect(await file(before, 'pkgs/zlib.md')).toContain(`commit \`${tipBefore}\``);
  expect(await file(first, 'llms.txt')).toBe(await file(before, 'llms.txt'));
});

it('between the two, the gateway answers the carried documents, and 503 for one that comes with the second', async () => {
  await publish(first);
  try {
    const zlib = await send(gw.url, '/pkgs/zlib.md');
    expect(zlib.status).toBe(200);
    expect(zlib.body.toString()).toBe(await file(before, 'pkgs/zlib.md'));
    expect((await send(gw.url, '/api/pkgs/leftpad.json')).status).toBe(200);
    const leftpad = await send(gw.url, '/pkgs/leftpad.md');
    expect(leftpad.status).toBe(503);
    expect(leftpad.headers.get('retry-after')).toBe('2');
    expect(leftpad.headers.get('cache-control')).toBe(CACHE_CONTROL.error);
    expect(leftpad.json()).toEqual({ error: 'not_ready', message: 'This document of the latest commit is being published; try again in a few seconds.' });
  } finally {
    await publish(second);
  }
  expect((await send(gw.url, '/pkgs/leftpad.md')).status).toBe(200);
  expect((await send(gw.url, '/advisories/NOPE.md')).status).toBe(404);
});
