/**
 * How the build stores objects: in the output's packs, every object named by the hash of its
 * plain bytes, compressed at rest and read back as those bytes; a served body of 4 KiB or more
 * with its brotli and gzip copies, which decompress to it; each commit's state root, found by its sha.
 */
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ObjectStore } from '../../build/objects.ts';
import { writeFile } from 'node:fs/promises';
import { readObject, readStateRoot } from '../../src/store/layout.ts';
import { openObjects } from '../../src/store/objects.ts';
import { temporaryDirectory } from '../helpers/catalog.ts';

/** A piece as the composer cuts them: comma-joined records, tens of KB of repetitive JSON. */
const piece = Array.from({ length: 80 }, (_, index) => JSON.stringify({ name: `package-${index}`, version: '1.0.0', license: 'MIT', links: { self: `/api/pkgs/package-${index}.json` } })).join(',');
/** The output's content hash: the first 32 hex characters of the SHA-256 of the bytes. */
const contentHash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);
/** Bytes of every file under `<out>/objects/`. */
const packedBytes = (out: string) => readdirSync(join(out, 'objects')).reduce((sum, file) => sum + statSync(join(out, 'objects', file)).size, 0);

describe('the object store', () => {
  it('stores an object compressed in a pack, under the hash of its plain bytes, and reads it back plain', async () => {
    const out = await temporaryDirectory();
    const store = new ObjectStore(out);
    const hash = await store.put(piece);
    await store.close();
    expect(hash).toBe(contentHash(piece));
    expect(packedBytes(out)).toBeLessThan(Buffer.byteLength(piece) / 4);
    expect((await readObject(out, hash)).toString('utf8')).toBe(piece);
    // The length the gateway sends as Content-Length is the plain one, also for a later build that did not write it.
    expect(await new ObjectStore(out).size(hash)).toBe(Buffer.byteLength(piece));
  });

  it('writes the same bytes once, whether they are put again while being written or after', async () => {
    const [twice, once] = [await temporaryDirectory(), await temporaryDirectory()];
    const store = new ObjectStore(twice);
    const hashes = await Promise.all([store.put(piece), store.put(piece)]);
    await store.settled();
    hashes.push(await store.put(piece));
    await store.close();
    const single = new ObjectStore(once);
    await single.put(piece);
    await single.close();
    expect(hashes).toEqual([contentHash(piece), contentHash(piece), contentHash(piece)]);
    expect(store.written).toBe(1);
    expect(packedBytes(twice)).toBe(packedBytes(once));
  });

  it('stores a served body with brotli and gzip copies from 4 KiB, none below', async () => {
    const out = await temporaryDirectory();
    const store = new ObjectStore(out);
    const body = `{"dependencies":[${piece}]}`;
    const small = '{"dependencies":[]}';
    const [hash, smallHash] = [await store.put(body, { served: true }), await store.put(small, { served: true })];
    await store.settled();
    const objects = openObjects(out);
    expect((await objects.get(hash))?.toString('utf8')).toBe(body);
    expect(brotliDecompressSync((await objects.get(hash, 'br'))!).toString('utf8')).toBe(body);
    expect(gunzipSync((await objects.get(hash, 'gzip'))!).toString('utf8')).toBe(body);
    expect((await objects.get(smallHash))?.toString('utf8')).toBe(small);
    expect(await objects.has(smallHash, 'br')).toBe(false);
    expect(await objects.has(smallHash, 'gzip')).toBe(false);
  });

  it('stores a commit\'s state root in the packs, found by its sha, once the objects put before it are there', async () => {
    const out = await temporaryDirectory();
    const store = new ObjectStore(out);
    const sha = 'a'.repeat(40);
    const advisories = await store.put('{"PKGCAT-TEST-0001":{}}');
    const chunks = Array.from({ length: 120 }, (_, index) => ({ first: `package-${index}`, object: contentHash(`chunk ${index}`) }));
    const root = {
      layout: 4,
      commit: { sha, pushedAt: '2026-08-22T10:00:00Z', message: 'Update zlib' },
      parent: null,
      parentDiff: null,
      listing: { etag: 'W/"0"', length: 2, segments: ['[]'] },
      full: { etag: 'W/"1"', length: 2, advisories },
      records: chunks,
      transitive: chunks,
      packages: chunks,
      diagnostics: [],
    };
    expect(await readStateRoot(out, sha)).toBeNull();
    expect(await store.hasRoot(sha)).toBe(false);
    await store.putRoot(sha, JSON.stringify(root));
    const objects = openObjects(out);
    expect(await objects.has(advisories)).toBe(true);
    const read = await readStateRoot(out, sha);
    expect(read?.commit).toEqual(root.commit);
    expect(read?.records).toEqual(chunks);
    expect(await store.hasRoot(sha)).toBe(true);
    // A state root is no object: not under the hash of its bytes, and not listed with the objects.
    expect(await objects.has(contentHash(JSON.stringify(root)))).toBe(false);
    const listed: string[] = [];
    for await (const hash of objects.list()) listed.push(hash);
    expect(listed).toEqual([advisories]);
    expect(await readStateRoot(out, 'b'.repeat(40))).toBeNull();
  });

  it('reports a failed write when the build waits for its objects, not before', async () => {
    const out = await temporaryDirectory();
    // objects/ cannot be made: a file has its name.
    await writeFile(join(out, 'objects'), 'not a folder');
    const store = new ObjectStore(out);
    await store.put(piece);
    await expect(store.settled()).rejects.toThrow(/objects/);
  });
});
