/**
 * A commit costs what it changes (build/publish.ts): each build publishes one release, a manifest
 * of objects, and a document whose inputs did not change keeps its entry from the release before:
 * the same object, and where the document carries the tip (an envelope, the package page that
 * embeds it, a floating SBOM) the same holes, which the gateway and the export fill with the new
 * tip. Only the documents of what the commit touched, and those of the whole catalog whose bytes
 * changed, are rendered again.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { appendCommits, createCatalogRepo } from '../../demo/catalog-writer.ts';
import { buildCatalog, type BuildResult } from '../../build/build.ts';
import { currentReleaseId, paths } from '../../src/store/layout.ts';
import { advisory, hoursLater, manifest, releaseDocument, releaseManifest, temporaryDirectory } from '../helpers/catalog.ts';
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

const manifestOf = (release: string) => releaseManifest(out, release);

/** The files whose manifest entry the release `after` changed from the release `before`, sorted. */
async function changedFiles(before: string, after: string): Promise<string[]> {
  const [old, now] = [await manifestOf(before), await manifestOf(after)];
  return [...now].filter(([path, entry]) => JSON.stringify(entry) !== JSON.stringify(old.get(path))).map(([path]) => path).sort();
}

/**
 * Documents of the whole catalog whose bytes change with any commit that changes a package: the
 * OpenAPI document's examples, recent commits, the changes and search pages, llms-full (its one
 * part, also served as /llms-full.txt), llms.txt, the changes feed; lookalike's envelope, SBOM and
 * page (rendered at each tip, the last test but one). Not the advisory feed: the tip's time in it
 * is a hole, and its entries change only with the advisories.
 */
const EVERY_COMMIT = [
  'api/pkgs/lookalike.json',
  'api/pkgs/lookalike/sbom.json',
  'api/pkgs/openapi.json',
  'api/pkgs/recent-commits.json',
  'changes.html',
  'index.html',
  'llms-full.txt',
  'llms-full/1.txt',
  'llms.txt',
  'pkgs/changes.xml',
  'pkgs/lookalike.html',
];
const file = (release: string, path: string) => releaseDocument(out, release, path);

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

it('a leaf\'s version bump renders its own documents and those of the whole catalog that changed, and keeps every other entry as it was', async () => {
  const [old, now] = [await manifestOf(before), await manifestOf(after)];
  expect([...now.keys()].sort()).toEqual([...old.keys()].sort());
  const changed = await changedFiles(before, after);
  expect(changed).toEqual([
    ...EVERY_COMMIT,
    // leftpad's envelope, SBOM, page and mirror (its record changed).
    'api/pkgs/leftpad.json',
    'api/pkgs/leftpad/sbom.json',
    'pkgs/leftpad.html',
    'pkgs/leftpad.md',
  ].sort());
  expect(bumped.published).toEqual({ rendered: changed.length, kept: now.size - changed.length, filesWritten: expect.any(Number), bytesWritten: expect.any(Number) });
});

it('keeps a document whose inputs did not change as the very same object', async () => {
  const [old, now] = [await manifestOf(before), await manifestOf(after)];
  for (const path of ['pkgs/zlib.md', 'pkgs/curl.md', 'advisories/ZLIB-2026-1.md', 'advisories/ZLIB-2026-1.html']) expect(now.get(path)).toEqual(old.get(path));
  expect(now.get('pkgs/leftpad.md')!.object).not.toBe(old.get('pkgs/leftpad.md')!.object);
  expect(await file(after, 'pkgs/leftpad.md')).toContain('- **Version:** 1.0.1');
});

it('keeps the advisory feed as the very same object while its entries stay, and serves it with the new tip\'s time', async () => {
  const [old, now] = [await manifestOf(before), await manifestOf(after)];
  expect(now.get('pkgs/advisories.xml')).toEqual(old.get('pkgs/advisories.xml'));
  expect(now.get('pkgs/advisories.xml')!.holes!.map(([, , hole]) => hole)).toEqual(['timestamp']);
  // The leaf's bump is the sixth commit, five hours after the first (SPEC.md: the feed floats with the latest state).
  const [beforeFeed, afterFeed] = [await file(before, 'pkgs/advisories.xml'), await file(after, 'pkgs/advisories.xml')];
  expect(afterFeed).toContain('<updated>2026-01-01T05:00:00.000Z</updated>');
  expect(beforeFeed.replace(/<updated>[^<]*<\/updated>/, '')).toBe(afterFeed.replace(/<updated>[^<]*<\/updated>/, ''));
});

it('keeps a package page\'s envelope and a floating SBOM as they were, and serves them with the new tip in their holes, nothing else changed', async () => {
  const [old, now] = [await manifestOf(before), await manifestOf(after)];
  for (const path of ['api/pkgs/zlib.json', 'pkgs/zlib.html', 'api/pkgs/curl/sbom.json']) {
    expect(now.get(path)).toEqual(old.get(path));
    expect(now.get(path)!.holes!.map(([, , hole]) => hole).sort()).toEqual(path.endsWith('sbom.json') ? ['pushedAt', 'serialNumber', 'sha', 'timestamp'] : ['pushedAt', 'sha']);
  }
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

it('renders at each tip the documents whose catalog text looks like the tip\'s stand-in, and keeps that text as it is', async () => {
  const [old, now] = [await manifestOf(before), await manifestOf(after)];
  for (const path of ['api/pkgs/lookalike.json', 'pkgs/lookalike.html', 'api/pkgs/lookalike/sbom.json']) {
    expect(now.get(path)!.holes, path).toBeUndefined();
    expect(now.get(path)!.object, path).not.toBe(old.get(path)!.object);
  }
  const sbom = JSON.parse(await file(after, 'api/pkgs/lookalike/sbom.json'));
  expect(sbom.metadata.component.description).toBe(LOOKALIKE_TEXT);
  expect(sbom.metadata.properties).toContainEqual({ name: 'pkgcat:commit', value: shas.at(-1) });
  expect(JSON.parse(await file(after, 'api/pkgs/lookalike.json')).package.description).toBe(LOOKALIKE_TEXT);
});

it('a change to a package in the middle or at the end of culprit paths keeps the pages and mirrors that only name it, and the SBOMs that list it, which are served with its new component', async () => {
  // wget reaches ZLIB-2026-1 through curl and openssl: its path names openssl, its dependencies do not.
  await appendCommits(join(dir, 'catalog'), [{ message: 'Add wget', time: hoursLater(6), files: { 'packages/wget/manifest.json': manifest('wget', { version: '1.25.0', dependencies: { runtime: ['curl'] } }) } }]);
  const withWget = (await build()).releaseId!;
  expect(await file(withWget, 'pkgs/wget.md')).toContain('path: wget → curl → openssl → zlib');
  await appendCommits(join(dir, 'catalog'), [{ message: 'Upgrade openssl to 3.0.2', time: hoursLater(7), files: { 'packages/openssl/manifest.json': manifest('openssl', { version: '3.0.2', license: 'Apache-2.0', categories: ['crypto'], dependencies: { runtime: ['zlib'] } }) } }]);
  const upgraded = await build();
  const now = await manifestOf(upgraded.releaseId!);
  const changed = await changedFiles(withWget, upgraded.releaseId!);
  expect(changed).toEqual([
    ...EVERY_COMMIT,
    // openssl's own documents.
    'api/pkgs/openssl.json',
    'api/pkgs/openssl/sbom.json',
    'pkgs/openssl.html',
    'pkgs/openssl.md',
    // Not curl's page and mirror: curl depends on openssl, and they show openssl's name and its
    // advisories' severity, not its version (docs/decisions.md).
    // Not ZLIB-2026-1's page and mirror: their blast radius names openssl by name and path, no version.
    // Not curl's and wget's SBOMs: they list openssl's component as a marker, which the readers fill with the tip's.
    // Not wget's page and mirror: they name openssl only in a culprit path.
  ].sort());
  expect(upgraded.published?.rendered).toBe(changed.length);
  for (const name of ['curl', 'wget']) {
    const components = (release: string) => file(release, `api/pkgs/${name}/sbom.json`).then((text) => JSON.parse(text).components);
    expect((await components(withWget)).find((component: { name: string }) => component.name === 'openssl')).toMatchObject({ version: '3.0.1', purl: 'pkg:generic/openssl@3.0.1' });
    expect((await components(upgraded.releaseId!)).find((component: { name: string }) => component.name === 'openssl')).toMatchObject({ version: '3.0.2', purl: 'pkg:generic/openssl@3.0.2' });
  }
  for (const path of ['pkgs/wget.md', 'pkgs/curl.md']) expect(await file(upgraded.releaseId!, path), path).toBe(await file(withWget, path));

  // zlib, the culprit at the end of wget's path, changes what it says of itself but not the advisory it carries.
  await appendCommits(join(dir, 'catalog'), [{ message: 'Describe zlib', time: hoursLater(8), files: { 'packages/zlib/manifest.json': manifest('zlib', { version: '1.3.1', description: 'A massively spiffy yet delicately unobtrusive compression library', license: 'Zlib', categories: ['compression'], homepage: 'https://zlib.net/', repository: 'https://github.com/madler/zlib', stars: 5000 }) } }]);
  const described = (await build()).releaseId!;
  const last = await manifestOf(described);
  for (const path of ['pkgs/wget.md', 'pkgs/wget.html', 'api/pkgs/wget/sbom.json']) expect(last.get(path), path).toEqual(now.get(path));
  expect(JSON.parse(await file(described, 'api/pkgs/wget/sbom.json')).components).toContainEqual(expect.objectContaining({ name: 'zlib', description: 'A massively spiffy yet delicately unobtrusive compression library' }));
});

it('a package that joins a closure, deep in it or where a dependency named no package, renders again the SBOM of every package that reaches it, and of no other', async () => {
  const sboms = (changed: string[]) => changed.filter((path) => path.endsWith('/sbom.json'));
  const start = (await currentReleaseId(out))!;
  // zlib, at the end of wget -> curl -> openssl -> zlib, now needs crc32 at run time.
  await appendCommits(join(dir, 'catalog'), [
    {
      message: 'zlib needs crc32',
      time: hoursLater(9),
      files: {
        'packages/crc32/manifest.json': manifest('crc32', { version: '1.0.0' }),
        'packages/zlib/manifest.json': manifest('zlib', { version: '1.3.1', description: 'A massively spiffy yet delicately unobtrusive compression library', license: 'Zlib', categories: ['compression'], homepage: 'https://zlib.net/', repository: 'https://github.com/madler/zlib', stars: 5000, dependencies: { runtime: ['crc32'] } }),
      },
    },
  ]);
  const deeper = (await build()).releaseId!;
  expect(sboms(await changedFiles(start, deeper))).toEqual(['api/pkgs/crc32/sbom.json', 'api/pkgs/curl/sbom.json', 'api/pkgs/lookalike/sbom.json', 'api/pkgs/openssl/sbom.json', 'api/pkgs/wget/sbom.json', 'api/pkgs/zlib/sbom.json']);
  expect(JSON.parse(await file(deeper, 'api/pkgs/wget/sbom.json')).components).toContainEqual(expect.objectContaining({ name: 'crc32', version: '1.0.0' }));

  // curl needs cmake to build, which was no package until now.
  await appendCommits(join(dir, 'catalog'), [{ message: 'Add cmake', time: hoursLater(10), files: { 'packages/cmake/manifest.json': manifest('cmake', { version: '3.30.0' }) } }]);
  const withCmake = (await build()).releaseId!;
  expect(sboms(await changedFiles(deeper, withCmake))).toEqual(['api/pkgs/cmake/sbom.json', 'api/pkgs/curl/sbom.json', 'api/pkgs/lookalike/sbom.json', 'api/pkgs/wget/sbom.json']);
  expect(JSON.parse(await file(withCmake, 'api/pkgs/curl/sbom.json')).components).toContainEqual(expect.objectContaining({ name: 'cmake', version: '3.30.0' }));
});

it("an advisory on a dependency renders again its dependents' pages, which show its severity by its name", async () => {
  const start = (await currentReleaseId(out))!;
  // curl's build dependency, in the page's Dependencies section.
  const dependencyRow = (html: string) => html.match(/<h2 id="dependencies">.*?<\/section>/s)![0].match(/<li><a href="\/pkgs\/cmake">cmake<\/a>.*?<\/li>/s)![0];
  expect(dependencyRow(await file(start, 'pkgs/curl.html'))).toBe('<li><a href="/pkgs/cmake">cmake</a></li>');
  await appendCommits(join(dir, 'catalog'), [{ message: 'Advisory on cmake', time: hoursLater(11), files: { 'advisories/CMAKE-2026-1.json': advisory('CMAKE-2026-1', { package: 'cmake', severity: 'CRITICAL' }) } }]);
  const advised = (await build()).releaseId!;
  expect(await changedFiles(start, advised)).toContain('pkgs/curl.html');
  expect(dependencyRow(await file(advised, 'pkgs/curl.html'))).toBe('<li><a href="/pkgs/cmake">cmake</a><span class="sev sev-critical">critical</span></li>');
});
