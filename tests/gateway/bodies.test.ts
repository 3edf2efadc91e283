/**
 * Every body in every encoding, from bounded caches (issue 11, items 1, 2 and 5), over real HTTP:
 * a client that sends no Accept-Encoding gets exactly the bytes a brotli or gzip client decodes;
 * concurrent requests for one body not yet kept assemble, compress or compose it once (counted
 * through the gateway's work observer, never timed); every cache stays within the bytes it is
 * given; and the files composed on request stay within their disk cap, the least recently used
 * deleted first and composed again, byte for byte, when asked for again, while the build's diffs
 * are never touched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { CatalogLimits } from '../../gateway/catalog.ts';
import { DiskCache } from '../../gateway/disk-cache.ts';
import type { WorkEvent } from '../../gateway/encoding.ts';
import { composeDiff } from '../../src/compose/diff.ts';
import { serialize } from '../../src/serialize.ts';
import { paths, readListing, readStateRoot } from '../../src/store/layout.ts';
import { AT, buildFixture, type Fixture } from './fixtures.ts';
import { expected, rawGet, startGateway, type Gateway } from './harness.ts';

let fx: Fixture;

beforeAll(async () => {
  fx = await buildFixture();
});

afterAll(async () => {
  await fx?.cleanup();
});

const sha = (index: number) => fx.shas[index];

/** A gateway over the fixture with its own sessions, its work observed, and a fresh `cache/`. */
async function observedGateway(name: string, limits?: CatalogLimits): Promise<{ gw: Gateway; cookie: string; events: WorkEvent[] }> {
  await rm(paths.cache(fx.out), { recursive: true, force: true });
  const events: WorkEvent[] = [];
  const gw = await startGateway(fx.out, join(fx.dir, name), { limits, observe: (event) => events.push(event) });
  return { gw, cookie: await gw.signIn(), events };
}

const composedDiff = async (head: string, base: string) => Buffer.from(serialize(composeDiff((await readListing(fx.out, base))!, (await readListing(fx.out, head))!)));

describe('issue 11 item 1: every encoding gets the same body', () => {
  let gw: Gateway;
  let cookie: string;
  beforeAll(async () => {
    ({ gw, cookie } = await observedGateway('encodings'));
  });
  afterAll(async () => gw?.close());

  const cases: [string, () => string, boolean][] = [
    ['the listing bundle', () => `/api/pkgs/bundle/${fx.tip}.json`, true],
    ['the full bundle', () => `/api/pkgs/bundle/${fx.tip}/full.json`, true],
    ['an old listing bundle', () => `/api/pkgs/bundle/${sha(AT.advisory)}.json`, true],
    ['an old full bundle', () => `/api/pkgs/bundle/${sha(AT.advisory)}/full.json`, true],
    ['deps.json (below the compression floor)', () => `/api/pkgs/bundle/${fx.tip}/curl/deps.json`, true],
    ['versions.json (compressed by the gateway)', () => `/api/pkgs/bundle/${fx.tip}/SQLite/versions.json`, true],
    ['versions.json (precompressed by the build)', () => `/api/pkgs/bundle/${fx.tip}/ticker/versions.json`, true],
    ["a diff against the parent (the build's)", () => `/api/pkgs/bundle/${sha(AT.tip - 1)}/diff/${sha(AT.tip - 2)}.json`, true],
    ['a diff of another pair (composed on request)', () => `/api/pkgs/bundle/${fx.tip}/diff/${sha(AT.import)}.json`, true],
    ['a pinned SBOM', () => `/api/pkgs/bundle/${fx.tip}/curl/sbom.json?format=spdx`, true],
    ['a package record', () => '/api/pkgs/curl.json', false],
    ['recent commits', () => '/api/pkgs/recent-commits.json', false],
    ['recent commits with a limit', () => '/api/pkgs/recent-commits.json?limit=40', false],
  ];

  it.each(cases)('%s: identity bytes = br decoded = gzip decoded', async (_label, path, pinned) => {
    const headers = (encoding: string) => ({ 'accept-encoding': encoding, ...(pinned ? { cookie } : {}) });
    // Twice each: the first request fills the caches, the second is served from them.
    for (let round = 0; round < 2; round++) {
      const plain = await rawGet(gw.url, path(), headers('identity'));
      const none = await rawGet(gw.url, path(), pinned ? { cookie } : {});
      const br = await rawGet(gw.url, path(), headers('br'));
      const gzip = await rawGet(gw.url, path(), headers('gzip'));
      for (const reply of [plain, none, br, gzip]) {
        expect(reply.status).toBe(200);
        expect(reply.headers.vary).toBe('Accept-Encoding');
      }
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(none.body.equals(plain.body)).toBe(true);
      expect(Number(plain.headers['content-length'])).toBe(plain.body.length);
      // Below 1 KiB a body goes uncompressed to everyone.
      const compressed = plain.body.length >= 1024;
      expect(br.headers['content-encoding']).toBe(compressed ? 'br' : undefined);
      expect(gzip.headers['content-encoding']).toBe(compressed ? 'gzip' : undefined);
      expect((compressed ? brotliDecompressSync(br.body) : br.body).equals(plain.body)).toBe(true);
      expect((compressed ? gunzipSync(gzip.body) : gzip.body).equals(plain.body)).toBe(true);
      expect(br.headers.etag).toBe(plain.headers.etag);
    }
  });

  it('the bundles are the bytes the build stored, in every encoding', async () => {
    const full = await expected.full(fx.out, fx.tip);
    const listing = await expected.listing(fx.out, sha(AT.zlibFixed));
    for (const [path, body] of [[`/api/pkgs/bundle/${fx.tip}/full.json`, full], [`/api/pkgs/bundle/${sha(AT.zlibFixed)}.json`, listing]] as const) {
      const plain = await rawGet(gw.url, path, { cookie });
      expect(plain.body.equals(body.bytes)).toBe(true);
      expect(plain.headers.etag).toBe(body.etag);
      const head = await rawGet(gw.url, path, { cookie, 'accept-encoding': 'identity' });
      expect(head.body.equals(body.bytes)).toBe(true);
    }
  });
});

describe('issue 11 item 1: a body not yet kept is made once, whatever the number of clients', () => {
  let gw: Gateway;
  let cookie: string;
  let events: WorkEvent[];
  beforeAll(async () => {
    ({ gw, cookie, events } = await observedGateway('once'));
  });
  afterAll(async () => gw?.close());

  const many = (path: string, encoding: string, count = 8) =>
    Promise.all(Array.from({ length: count }, () => rawGet(gw.url, path, { cookie, 'accept-encoding': encoding })));
  const count = (match: (event: WorkEvent) => boolean) => events.filter(match).length;

  it('eight clients at once: one assembly of the bundle, then one compression per encoding', async () => {
    const root = (await readStateRoot(fx.out, sha(AT.leftpadAdded)))!;
    const path = `/api/pkgs/bundle/${root.commit.sha}/full.json`;
    const plain = await many(path, 'identity');
    const br = await many(path, 'br');
    const gzip = await many(path, 'gzip');
    for (const reply of [...plain, ...br, ...gzip]) expect(reply.status).toBe(200);
    for (const reply of plain) expect(reply.body.equals(plain[0].body)).toBe(true);
    for (const reply of br) expect(reply.body.equals(br[0].body)).toBe(true);
    expect(count((event) => event.kind === 'assemble' && event.etag === root.full.etag)).toBe(1);
    expect(count((event) => event.kind === 'compress' && event.identity === `stored:${root.full.etag}` && event.encoding === 'br')).toBe(1);
    expect(count((event) => event.kind === 'compress' && event.identity === `stored:${root.full.etag}` && event.encoding === 'gzip')).toBe(1);
  });

  it('compressed first: the plain bundle is not kept for compressed clients alone, then kept for plain ones', async () => {
    const root = (await readStateRoot(fx.out, sha(AT.leftpadRemoved)))!;
    const path = `/api/pkgs/bundle/${root.commit.sha}.json`;
    const assembled = () => count((event) => event.kind === 'assemble' && event.etag === root.listing.etag);
    for (const reply of await many(path, 'br')) expect(reply.status).toBe(200);
    expect(assembled()).toBe(1);
    for (const reply of await many(path, 'gzip')) expect(reply.status).toBe(200);
    expect(assembled()).toBe(2);
    for (const reply of await many(path, 'identity')) expect(reply.status).toBe(200);
    expect(assembled()).toBe(3);
    await many(path, 'identity');
    await many(path, 'br');
    expect(assembled()).toBe(3);
    expect(count((event) => event.kind === 'compress' && event.identity === `stored:${root.listing.etag}`)).toBe(2);
  });

  it('eight clients at once: one composition of a diff and of an SBOM, then none', async () => {
    const diff = `/api/pkgs/bundle/${sha(AT.zlibFixed)}/diff/${sha(AT.advisory)}.json`;
    const sbom = `/api/pkgs/bundle/${sha(AT.zlibFixed)}/curl/sbom.json`;
    for (const path of [diff, sbom]) {
      const first = await many(path, 'identity');
      const again = await many(path, 'identity');
      for (const reply of [...first, ...again]) expect(reply.body.equals(first[0].body)).toBe(true);
    }
    expect(count((event) => event.kind === 'compose' && event.file === paths.composedDiff(fx.out, sha(AT.zlibFixed), sha(AT.advisory)))).toBe(1);
    expect(count((event) => event.kind === 'compose' && event.file === paths.sbom(fx.out, sha(AT.zlibFixed), 'curl', 'cyclonedx'))).toBe(1);
  });
});

describe('issue 11 item 2: every cache within the bytes it is given', () => {
  const LIMITS = {
    bodyBytes: 200_000,
    composedBytes: 20_000,
    stateRootBytes: 40_000,
    fileBytes: 20_000,
    indexChunkBytes: 4_000,
    manifestChunkBytes: 4_000,
    recordChunkBytes: 40_000,
    assemblies: 1,
    compressions: 1,
    compositions: 1,
  } satisfies CatalogLimits;

  it('after every body of every commit in every encoding, each cache holds no more than its bound, and answers stay exact', async () => {
    const { gw, cookie } = await observedGateway('bounded', LIMITS);
    try {
      // The release's documents: each read through its manifest chunk.
      for (const path of ['/api/pkgs/curl.json', '/pkgs/curl', '/pkgs/zlib.md', '/llms.txt']) expect((await rawGet(gw.url, path)).status, path).toBe(200);
      for (const commit of fx.shas) {
        for (const path of [`/api/pkgs/bundle/${commit}.json`, `/api/pkgs/bundle/${commit}/full.json`, `/api/pkgs/bundle/${commit}/curl/deps.json`, `/api/pkgs/bundle/${commit}/zlib/versions.json`, `/api/pkgs/bundle/${commit}/curl/sbom.json`]) {
          for (const encoding of ['identity', 'br', 'gzip']) {
            const reply = await rawGet(gw.url, path, { cookie, 'accept-encoding': encoding });
            expect(reply.status, path).toBe(200);
          }
        }
      }
      const { memory, work } = gw.stats();
      const bounds: Record<string, number> = {
        bodies: LIMITS.bodyBytes,
        composed: LIMITS.composedBytes,
        stateRoots: LIMITS.stateRootBytes,
        files: LIMITS.fileBytes,
        indexChunks: LIMITS.indexChunkBytes,
        manifestChunks: LIMITS.manifestChunkBytes,
        recordChunks: LIMITS.recordChunkBytes / 2,
        transitiveChunks: LIMITS.recordChunkBytes / 2,
      };
      for (const [name, stats] of Object.entries(memory)) {
        expect(stats.maxBytes, name).toBe(bounds[name]);
        // No surface served yet reads transitive chunks one package at a time.
        if (name !== 'transitiveChunks') expect(stats.bytes, name).toBeGreaterThan(0);
        expect(stats.bytes, name).toBeLessThanOrEqual(stats.maxBytes);
      }
      expect(work).toEqual({ assemblies: { running: 0, waiting: 0, size: 1 }, compressions: { running: 0, waiting: 0, size: 1 }, compositions: { running: 0, waiting: 0, size: 1 } });
      // Pushed out and read again: still the build's bytes.
      const full = await expected.full(fx.out, sha(AT.import));
      expect((await rawGet(gw.url, `/api/pkgs/bundle/${sha(AT.import)}/full.json`, { cookie })).body.equals(full.bytes)).toBe(true);
    } finally {
      await gw.close();
    }
  });
});

describe('issue 11 item 5: bodies composed on request stay within their disk cap', () => {
  /** The bytes a file of these bytes occupies on this filesystem, as the cache counts it. */
  async function onDisk(bytes: Buffer, name: string): Promise<number> {
    const file = join(fx.dir, `size-probe-${name}`);
    await writeFile(file, bytes);
    return (await stat(file)).blocks * 512;
  }

  it('the least recently used is deleted to make room, and composed again with the same bytes when asked for', async () => {
    const [a, b] = [sha(AT.advisory), sha(AT.leftpadRemoved)];
    const [bodyA, bodyB] = [await composedDiff(fx.tip, a), await composedDiff(fx.tip, b)];
    const [sizeA, sizeB] = [await onDisk(bodyA, 'a'), await onDisk(bodyB, 'b')];
    // Room for either, never both.
    const { gw, cookie, events } = await observedGateway('capped', { composedDiskBytes: sizeA + sizeB - 1 });
    const [fileA, fileB] = [paths.composedDiff(fx.out, fx.tip, a), paths.composedDiff(fx.out, fx.tip, b)];
    const get = async (base: string) => rawGet(gw.url, `/api/pkgs/bundle/${fx.tip}/diff/${base}.json`, { cookie });
    const composedA = () => events.filter((event) => event.kind === 'compose' && event.file === fileA).length;
    try {
      const first = await get(a);
      expect(first.body.equals(bodyA)).toBe(true);
      expect(existsSync(fileA)).toBe(true);
      expect(gw.stats().disk).toEqual({ bytes: sizeA, files: 1, evictions: 0, maxBytes: sizeA + sizeB - 1 });

      expect((await get(b)).body.equals(bodyB)).toBe(true);
      expect(existsSync(fileA)).toBe(false);
      expect(existsSync(fileB)).toBe(true);
      expect(gw.stats().disk).toMatchObject({ bytes: sizeB, files: 1, evictions: 1 });
      expect(composedA()).toBe(1);

      const again = await get(a);
      expect(composedA()).toBe(2);
      expect(again.body.equals(first.body)).toBe(true);
      expect(again.headers.etag).toBe(first.headers.etag);
      expect((await readFile(fileA)).equals(bodyA)).toBe(true);
      expect(existsSync(fileB)).toBe(false);
      expect(gw.stats().disk).toMatchObject({ bytes: sizeA, files: 1, evictions: 2 });

      // The diff against the parent is the build's, in the object store: nothing under cache/, nothing counted.
      const parent = sha(AT.tip - 1);
      const built = await get(parent);
      expect(built.body.equals(await expected.diff(fx.out, fx.tip, parent))).toBe(true);
      expect(existsSync(paths.composedDiff(fx.out, fx.tip, parent))).toBe(false);
      expect(gw.stats().disk).toMatchObject({ bytes: sizeA, files: 1, evictions: 2 });
    } finally {
      await gw.close();
    }
  });

  it('a cap of 0 keeps nothing on disk and still answers every body', async () => {
    const { gw, cookie } = await observedGateway('nocache', { composedDiskBytes: 0 });
    try {
      const reply = await rawGet(gw.url, `/api/pkgs/bundle/${fx.tip}/diff/${sha(AT.import)}.json`, { cookie });
      expect(reply.body.equals(await composedDiff(fx.tip, sha(AT.import)))).toBe(true);
      expect((await rawGet(gw.url, `/api/pkgs/bundle/${fx.tip}/curl/sbom.json`, { cookie })).status).toBe(200);
      expect(existsSync(paths.cache(fx.out))).toBe(false);
      expect(gw.stats().disk).toMatchObject({ bytes: 0, files: 0 });
    } finally {
      await gw.close();
    }
  });
});

describe('DiskCache', () => {
  let root: string;
  beforeAll(async () => {
    root = join(fx.dir, 'disk-cache');
  });

  it('counts the files a previous run left, oldest first, deletes the oldest beyond a lowered cap, and removes debris of dead processes', async () => {
    await rm(root, { recursive: true, force: true });
    const files = ['sboms/x/a.cyclonedx.json', 'diffs/y/b.json', 'bodies/c.json'].map((name) => join(root, name));
    for (const [index, file] of files.entries()) {
      await mkdir(join(file, '..'), { recursive: true });
      await writeFile(file, 'x'.repeat(100));
      // a is the oldest, c the newest.
      const when = new Date(Date.UTC(2026, 0, 1, index));
      await utimes(file, when, when);
    }
    const block = (await stat(files[0])).blocks * 512;
    // A temporary file of a process that cannot exist (pid above the kernel's maximum).
    const debris = join(root, 'diffs/y/d.json.tmp-4194305-0123abcd');
    await writeFile(debris, 'partial');

    const cache = new DiskCache(root, 2 * block, () => {});
    await cache.ready();
    expect(cache.stats()).toEqual({ bytes: 2 * block, files: 2, evictions: 1, maxBytes: 2 * block });
    expect(files.map((file) => existsSync(file))).toEqual([false, true, true]);
    expect(existsSync(debris)).toBe(false);

    // b is used, so c is the least recently used when a new file needs room.
    expect(await cache.has(files[1])).toBe(true);
    expect(await cache.write(join(root, 'diffs/y/e.json'), Buffer.from('e'))).toBe(true);
    expect(files.map((file) => existsSync(file))).toEqual([false, true, false]);
    expect(cache.stats()).toMatchObject({ files: 2, evictions: 2 });
    await expect(cache.write(join(fx.dir, 'elsewhere.json'), Buffer.from('{}'))).rejects.toThrow(/is not under/);
  });
});
