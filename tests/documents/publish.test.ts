/**
 * A commit costs what it changes (build/publish.ts): each build publishes one release, and a
 * document whose inputs did not change is kept from the release before it, as it was (a package's
 * mirror, an advisory's page), or with the new tip's values spliced in where the document must
 * carry the tip (a package page embeds its envelope; a floating SBOM names its commit). Only the
 * documents of what the commit touched, and those of the whole catalog, are rendered again.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { appendCommits, createCatalogRepo } from '../../demo/catalog-writer.ts';
import { buildCatalog, type BuildResult } from '../../build/build.ts';
import { paths } from '../../src/store/layout.ts';
import { hoursLater, manifest, temporaryDirectory } from '../helpers/catalog.ts';
import { DOCUMENTS_STORY } from './story.ts';

let dir: string;
let out: string;
let shas: string[];
/** The release before the bump, and the bump's. */
let before: string;
let after: string;
let bumped: BuildResult;

/**
 * A package whose text looks like what the build marks the tip's place with in a document that
 * carries it (a sha, a date far ahead, build/writers.ts STAND_INS): its SBOM cannot be cut into
 * pieces, so it is composed at each tip, and its text stays as it is.
 */
const LOOKALIKE_TEXT = 'f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0 2999-01-01T01:01:01Z';
const LOOKALIKE = { message: 'Add lookalike', time: hoursLater(4.5), files: { 'packages/lookalike/manifest.json': manifest('lookalike', { version: '1.0.0', description: LOOKALIKE_TEXT }) } };

const build = () => buildCatalog({ repo: join(dir, 'catalog'), out, progress: false, log: () => {} });
const file = (release: string, path: string) => readFile(join(paths.public(paths.release(out, release)), path), 'utf8');
const inode = async (release: string, path: string) => (await stat(join(paths.public(paths.release(out, release)), path))).ino;

beforeAll(async () => {
  dir = await temporaryDirectory('pkgcat-publish-');
  out = join(dir, 'out');
  shas = await createCatalogRepo(join(dir, 'catalog'), [...DOCUMENTS_STORY, LOOKALIKE]);
  before = (await build()).releaseId!;
  // A leaf's version bump: nothing depends on leftpad.
  shas.push(...(await appendCommits(join(dir, 'catalog'), [{ message: 'Bump leftpad', time: hoursLater(5), files: { 'packages/leftpad/manifest.json': manifest('leftpad', { version: '1.0.1' }) } }])));
  const releasesBefore = await readdir(paths.releases(out));
  bumped = await build();
  after = bumped.releaseId!;
  expect((await readdir(paths.releases(out))).filter((id) => !releasesBefore.includes(id))).toEqual([after]);
});

afterAll(async () => {
  await import('node:fs/promises').then(({ rm }) => rm(dir, { recursive: true, force: true }));
});

it('a leaf\'s version bump renders its own documents and those of the whole catalog, and keeps or splices every other', () => {
  // The story has 9 packages (`bundle` is shadowed under /api/pkgs/: no record file, SBOM or badge there) and 3 active advisories.
  expect(bumped.published).toEqual({
    // leftpad's page, mirror and SBOM; lookalike's SBOM; the search and changes pages, both feeds, llms.txt, the sitemap, recent-commits and the OpenAPI document
    // (llms-full.txt and its one part, /llms-full/1.txt, are the same bytes: one shared file, linked twice).
    rendered: 3 + 1 + 8,
    // The 8 other packages' mirrors, the 3 advisories' pages and mirrors.
    reused: 8 + 3 + 3,
    // The 8 envelopes; the 8 other package pages (each embeds its envelope); the 6 other SBOMs.
    spliced: 8 + 8 + 6,
    filesWritten: expect.any(Number),
    bytesWritten: expect.any(Number),
    filesLinked: expect.any(Number),
  });
  // What was written: the 32 documents above, the release's own files and the distinct badges; nothing else.
  expect(bumped.published!.filesWritten).toBeLessThan(13 + 22 + 8 + 10);
});

it('keeps a document whose inputs did not change as the very same file', async () => {
  for (const path of ['pkgs/zlib.md', 'pkgs/curl.md', 'advisories/ZLIB-2026-1.md', 'advisories/ZLIB-2026-1.html']) {
    const kept = await readdir(join(paths.public(paths.release(out, after)), path.split('/')[0]));
    expect(kept).toContain(path.split('/')[1]);
    expect(await inode(after, path)).toBe(await inode(before, path));
  }
  expect(await inode(after, 'pkgs/leftpad.md')).not.toBe(await inode(before, 'pkgs/leftpad.md'));
  expect(await file(after, 'pkgs/leftpad.md')).toContain('- **Version:** 1.0.1');
});

it('splices the new tip into a package page\'s envelope and a floating SBOM, and changes nothing else of them', async () => {
  const [tipBefore, tip] = [shas.at(-2)!, shas.at(-1)!];
  const envelope = await file(after, 'api/pkgs/zlib.json');
  expect(JSON.parse(envelope).commitSha).toBe(tip);
  const page = await file(after, 'pkgs/zlib.html');
  expect(page).toContain(`<script type="application/json" id="envelope">${envelope}</script>`);
  expect(page.replace(envelope, '')).toBe((await file(before, 'pkgs/zlib.html')).replace(await file(before, 'api/pkgs/zlib.json'), ''));

  const sbom = JSON.parse(await file(after, 'api/pkgs/curl/sbom.json'));
  const sbomBefore = JSON.parse(await file(before, 'api/pkgs/curl/sbom.json'));
  expect(sbom.metadata.properties).toContainEqual({ name: 'pkgcat:commit', value: tip });
  expect(sbomBefore.metadata.properties).toContainEqual({ name: 'pkgcat:commit', value: tipBefore });
  expect(sbom.metadata.timestamp).toBe('2026-01-01T05:00:00.000Z');
  expect(sbom.serialNumber).not.toBe(sbomBefore.serialNumber);
  expect(sbom.components).toEqual(sbomBefore.components);
});

it('composes at each tip an SBOM whose catalog text looks like the tip\'s stand-in, and keeps that text as it is', async () => {
  const sbom = JSON.parse(await file(after, 'api/pkgs/lookalike/sbom.json'));
  expect(sbom.metadata.component.description).toBe(LOOKALIKE_TEXT);
  expect(sbom.metadata.properties).toContainEqual({ name: 'pkgcat:commit', value: shas.at(-1) });
});
