/**
 * A large document is stored as content-defined segments and the list that joins them
 * (build/segments.ts, docs/decisions.md "What a document is made from"). The story: a catalog of
 * 1,200 packages, whose search page passes 256 KiB; one package's version bump changes one row of
 * it, and stores one or two of its segments, not the whole page; every reader serves the bytes a
 * build from scratch gives. llms.txt, under 256 KiB here, stays one object. The gateway joins the
 * page once for all the clients asking at the same time, and a client served a kept compressed copy
 * costs no join (counted through its work observer, never timed). The build's checkpoints are
 * stored the same way: a commit that changes no package stores one segment of its checkpoint.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import type { WorkEvent } from '../../gateway/encoding.ts';
import { appendCommits, createCatalogRepo, git, type CatalogCommit } from '../../demo/catalog-writer.ts';
import { checkpointDirectory } from '../../build/checkpoints.ts';
import { contentSegments } from '../../build/segments.ts';
import { readObject } from '../../src/store/layout.ts';
import { rawGet, startGateway } from '../gateway/harness.ts';
import { build, exportedFile, hoursLater, manifest, releaseDocument, releaseManifest, temporaryDirectory } from '../helpers/catalog.ts';

const KIB = 1024;

/** A deterministic byte stream (mulberry32), so the cut points below are the same on every machine. */
function randomBytes(length: number, seed: number): Buffer {
  const bytes = Buffer.alloc(length);
  let state = seed;
  for (let at = 0; at < length; at++) {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    bytes[at] = (t ^ (t >>> 14)) & 0xff;
  }
  return bytes;
}

/** A listing like a search page's: one line per package. */
const listing = (count: number, bump = -1) =>
  Buffer.from(Array.from({ length: count }, (_, i) => `<li><a href="/pkgs/pkg-${i}">pkg-${i}</a> ${i === bump ? '2.0.0' : '1.0.0'}: package number ${i} of the listing</li>\n`).join(''));

const hashes = (segments: Uint8Array[]) => segments.map((segment) => Buffer.from(segment).toString('base64'));

describe('contentSegments', () => {
  it('cuts bytes into segments of 16 to 256 KiB (the last may be shorter) that join into the same bytes', () => {
    for (const bytes of [randomBytes(3 * 1024 * KIB, 1), listing(40_000), Buffer.alloc(600 * KIB, 'a')]) {
      const segments = contentSegments(bytes);
      expect(Buffer.concat(segments).equals(bytes)).toBe(true);
      for (const segment of segments.slice(0, -1)) {
        expect(segment.length).toBeGreaterThanOrEqual(16 * KIB);
        expect(segment.length).toBeLessThanOrEqual(256 * KIB);
      }
    }
    // Bytes with no cut point in them are cut at 256 KiB.
    expect(contentSegments(Buffer.alloc(600 * KIB, 'a')).map((segment) => segment.length)).toEqual([256 * KIB, 256 * KIB, 88 * KIB]);
    expect(contentSegments(Buffer.alloc(0))).toEqual([]);
  });

  it('cuts where the content says, the same on every machine (the segments are part of the output)', () => {
    expect(contentSegments(randomBytes(1024 * KIB, 7)).map((segment) => segment.length)).toEqual([30_895, 27_362, 100_651, 61_896, 29_528, 17_780, 22_930, 36_837, 49_805, 37_153, 82_089, 65_820, 145_464, 30_190, 86_338, 111_739, 112_099]);
  });

  it('keeps every segment but the one a changed line falls in, and those around a line added', () => {
    const before = hashes(contentSegments(listing(40_000)));
    const bumped = hashes(contentSegments(listing(40_000, 20_000)));
    expect(bumped.length).toBe(before.length);
    expect(bumped.filter((segment) => !before.includes(segment))).toHaveLength(1);
    const added = listing(40_000);
    const inserted = hashes(contentSegments(Buffer.concat([added.subarray(0, added.length / 2), Buffer.from('<li>a new line</li>\n'), added.subarray(added.length / 2)])));
    expect(inserted.filter((segment) => !before.includes(segment)).length).toBeLessThanOrEqual(2);
  });
});

describe('a large document, published', () => {
  const COUNT = 1_200;
  const name = (i: number) => `pkg-${String(i).padStart(4, '0')}`;
  const IMPORT: CatalogCommit = {
    message: `Import ${COUNT} packages`,
    time: hoursLater(0),
    files: Object.fromEntries(Array.from({ length: COUNT }, (_, i) => [`packages/${name(i)}/manifest.json`, manifest(name(i))])),
  };
  const BUMP: CatalogCommit = { message: 'Bump pkg-0600', time: hoursLater(1), files: { 'packages/pkg-0600/manifest.json': manifest('pkg-0600', { version: '1.0.1' }) } };
  let dir: string;
  let out: string;
  let fresh: string;
  let freshRelease: string;
  let releases: string[];

  beforeAll(async () => {
    dir = await temporaryDirectory('pkgcat-segments-');
    out = join(dir, 'out');
    await createCatalogRepo(join(dir, 'catalog'), [IMPORT]);
    releases = [(await build(join(dir, 'catalog'), out)).releaseId!];
    await appendCommits(join(dir, 'catalog'), [BUMP]);
    releases.push((await build(join(dir, 'catalog'), out)).releaseId!);
    fresh = join(dir, 'fresh');
    freshRelease = (await build(join(dir, 'catalog'), fresh)).releaseId!;
  }, 300_000);

  const segmentsOf = async (release: string, file: string): Promise<string[]> => {
    const entry = (await releaseManifest(out, release)).get(file)!;
    expect(entry.joined, file).toBe(true);
    return (JSON.parse(String(await readObject(out, entry.object))) as [string, unknown[]][]).map(([object, holes]) => (expect(holes).toEqual([]), object));
  };

  it('stores the search page as segments, and a version bump stores one or two of them; a document under 256 KiB stays one object', async () => {
    const [before, after] = [await segmentsOf(releases[0], 'index.html'), await segmentsOf(releases[1], 'index.html')];
    expect(before.length).toBeGreaterThan(1);
    expect(after.filter((object) => !before.includes(object)).length).toBeLessThanOrEqual(2);
    const [page, llms] = [(await releaseManifest(out, releases[1])).get('index.html')!, (await releaseManifest(out, releases[1])).get('llms.txt')!];
    expect(page.length).toBe(Buffer.byteLength(await releaseDocument(out, releases[1], 'index.html')));
    expect(page.length).toBeGreaterThan(256 * KIB);
    expect(llms.joined).toBeUndefined();
    expect(llms.length).toBeLessThan(256 * KIB);
    expect(String(await readObject(out, llms.object))).toBe(await releaseDocument(out, releases[1], 'llms.txt'));
  });

  it('serves, and exports, the bytes a build from scratch gives', async () => {
    for (const file of ['index.html', 'llms.txt']) {
      const served = await releaseDocument(out, releases[1], file);
      expect(served).toContain('1.0.1');
      expect(served).toBe(await releaseDocument(fresh, freshRelease, file));
      expect((await exportedFile(out, file)).toString('utf8')).toBe(served);
      expect((await exportedFile(fresh, file)).toString('utf8')).toBe(served);
    }
  });

  it('is joined once for the clients asking at the same time, and not for one served a kept compressed copy (over HTTP)', async () => {
    const events: WorkEvent[] = [];
    const gateway = await startGateway(out, join(dir, 'gateway'), { observe: (event) => events.push(event) });
    try {
      const page = await releaseDocument(fresh, freshRelease, 'index.html');
      const joins = () => events.filter((event) => event.kind === 'join' && event.file === 'index.html').length;
      const eight = (encoding: string) => Promise.all(Array.from({ length: 8 }, () => rawGet(gateway.url, '/', { 'accept-encoding': encoding })));
      for (const reply of await eight('br')) {
        expect([reply.status, reply.headers['content-encoding']]).toEqual([200, 'br']);
        expect(brotliDecompressSync(reply.body).toString('utf8')).toBe(page);
      }
      expect(joins()).toBe(1);
      await eight('br');
      expect(joins()).toBe(1);
      // A HEAD gives the length without joining; the plain page is joined once more, and kept.
      const head = await fetch(`${gateway.url}/`, { method: 'HEAD', headers: { 'accept-encoding': 'identity' } });
      expect([head.status, head.headers.get('content-length')]).toEqual([200, String(Buffer.byteLength(page))]);
      expect(joins()).toBe(1);
      for (const reply of await eight('identity')) expect(reply.body.toString('utf8')).toBe(page);
      expect(joins()).toBe(2);
      for (const reply of await eight('gzip')) expect(gunzipSync(reply.body).toString('utf8')).toBe(page);
      expect(joins()).toBe(2);
    } finally {
      await gateway.close();
    }
  });

  it('stores a checkpoint as the segments of its lines: a commit that changes no package stores one, the line naming the commit', async () => {
    const segmentsAt = async (sha: string) => (JSON.parse(await readFile(join(checkpointDirectory(out), `${sha}.json`), 'utf8')) as { segments: string[] }).segments;
    const [tip] = await git(join(dir, 'catalog'), ['rev-parse', 'main']).then((text) => text.split('\n'));
    const [next] = await appendCommits(join(dir, 'catalog'), [{ message: 'Add a README', time: hoursLater(2), files: { 'README.md': '# The catalog\n' } }]);
    await build(join(dir, 'catalog'), out);
    const [before, after] = [await segmentsAt(tip), await segmentsAt(next)];
    expect(after.length).toBeGreaterThan(4);
    expect(after.filter((segment) => !before.includes(segment))).toEqual([after[0]]);
  });
});
