/**
 * An advisory that 320 packages reach: its page and its mirror show the first 300 and link to the
 * tip's full bundle for the whole list (SPEC.md: the full bundle is sha-pinned). That link is the
 * only thing of the tip in them, so they are stored once with a hole for the tip's sha, like an
 * envelope: a commit that changes nothing they show (a leaf's version bump) keeps them, and the
 * llms-full part that holds the mirror, as the very same objects, and they are served with the
 * new tip's sha in the link.
 *
 * The story: `base` with BASE-1 active on it, and `dep-000` to `dep-319` depending on it; then
 * `a-leaf`, which nothing depends on, ships 1.0.1 (its mirror is in llms-full's first part).
 */
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { appendCommits, createCatalogRepo, type CatalogCommit } from '../../demo/catalog-writer.ts';
import { advisory, build, hoursLater, manifest, releaseDocument, releaseManifest, temporaryDirectory } from '../helpers/catalog.ts';
import { readObject } from '../../src/store/layout.ts';

const SITE = 'http://127.0.0.1:8080';
const DEPENDENTS = 320;
const dep = (i: number) => `dep-${String(i).padStart(3, '0')}`;

const STORY: CatalogCommit[] = [
  {
    message: 'Import base, its 320 dependents and a-leaf',
    time: hoursLater(0),
    files: {
      'packages/base/manifest.json': manifest('base'),
      'packages/a-leaf/manifest.json': manifest('a-leaf'),
      ...Object.fromEntries(Array.from({ length: DEPENDENTS }, (_, i) => [`packages/${dep(i)}/manifest.json`, manifest(dep(i), { dependencies: { runtime: ['base'] } })])),
      'advisories/BASE-1.json': advisory('BASE-1', { package: 'base' }),
    },
  },
];
const BUMP: CatalogCommit = { message: 'Bump a-leaf', time: hoursLater(1), files: { 'packages/a-leaf/manifest.json': manifest('a-leaf', { version: '1.0.1' }) } };

let out: string;
let shas: string[];
let releases: string[];

const manifestOf = (release: string) => releaseManifest(out, release);
const served = (release: string, path: string) => releaseDocument(out, release, path);

beforeAll(async () => {
  const dir = await temporaryDirectory('pkgcat-tip-holes-');
  out = join(dir, 'out');
  shas = await createCatalogRepo(join(dir, 'catalog'), STORY);
  releases = [(await build(join(dir, 'catalog'), out)).releaseId!];
  shas.push(...(await appendCommits(join(dir, 'catalog'), [BUMP])));
  releases.push((await build(join(dir, 'catalog'), out)).releaseId!);
});

// The advisory mirrors come after every package's: in the last of llms-full's 2 parts.
it('an advisory page and mirror whose blast radius is cut short link to the tip\'s full bundle, at each tip', async () => {
  for (const [index, release] of releases.entries()) {
    const whole = `/api/pkgs/bundle/${shas[index]}/full.json`;
    expect(await served(release, 'advisories/BASE-1.html')).toContain(`The <a href="${whole}">full bundle of this commit</a> (sign in) lists every one`);
    expect(await served(release, 'advisories/BASE-1.md')).toContain(`(sign in): <${SITE}${whole}>`);
    expect(await served(release, 'llms-full/2.txt')).toContain(`(sign in): <${SITE}${whole}>`);
  }
});

it('are kept by a commit that changes nothing they show, holes and all, like the llms-full part that holds the mirror', async () => {
  const [before, after] = [await manifestOf(releases[0]), await manifestOf(releases[1])];
  for (const path of ['advisories/BASE-1.html', 'advisories/BASE-1.md', 'llms-full/2.txt']) expect(after.get(path), path).toEqual(before.get(path));
  for (const path of ['advisories/BASE-1.html', 'advisories/BASE-1.md']) expect(after.get(path)!.holes!.map(([, , hole]) => hole), path).toEqual(['sha']);
  // The part joins the mirror's object, holes and all: it has none of its own.
  const part = JSON.parse(await readObject(out, after.get('llms-full/2.txt')!.object).then(String)) as unknown[];
  expect(after.get('llms-full/2.txt')).toMatchObject({ joined: true });
  // It joins a mirror with a hole: its bytes take the tip's, so it has no length of its own; part 1 joins none, and has its length.
  expect(after.get('llms-full/2.txt')!.length).toBeUndefined();
  expect(after.get('llms-full/1.txt')).toMatchObject({ joined: true, length: Buffer.byteLength(await served(releases[1], 'llms-full/1.txt')) });
  // A body with holes is as long at every tip: its entry has the length it is served with, which plans llms-full's parts without reading the mirror.
  for (const [index, release] of releases.entries()) {
    expect(after.get('advisories/BASE-1.md')!.length, `at ${shas[index]}`).toBe(Buffer.byteLength(await served(release, 'advisories/BASE-1.md')));
  }
  expect(part).toContainEqual([after.get('advisories/BASE-1.md')!.object, after.get('advisories/BASE-1.md')!.holes]);
  expect(after.get('pkgs/a-leaf.md')!.object).not.toBe(before.get('pkgs/a-leaf.md')!.object);
});
