/**
 * The object store every object write and read goes through (src/store/objects.ts): append-only
 * packs with an index under `<out>/objects/`. What a reader relies on: it gets back exactly the
 * bytes put under a hash; a reader in another process finds them once `put` has returned; a
 * writer killed at any moment leaves no partial object; merging packs loses nothing, also for
 * a reader that holds the packs merged away; and a commit's state root is found by its sha.
 */
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFile, mkdir, readdir, readFile, readlink, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { geometricSplit, PackObjects, readStoredObject } from '../../src/store/objects.ts';
import { temporaryDirectory } from '../helpers/catalog.ts';

const run = promisify(execFile);
const MODULE = resolve(import.meta.dirname, '../../src/store/objects.ts');

/** The output's content hash: the first 32 hex characters of the SHA-256 of the bytes. */
const hashOf = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex').slice(0, 32);
const body = (index: number) => JSON.stringify({ name: `package-${index}`, version: `1.${index}.0`, dependencies: Array.from({ length: index % 40 }, (_, at) => `dep-${at}`) });

/** Every backend a test opens, closed after it (a reader holds its packs open). */
const opened: PackObjects[] = [];
const packObjects = (out: string): PackObjects => {
  const objects = new PackObjects(out);
  opened.push(objects);
  return objects;
};
afterEach(async () => {
  await Promise.all(opened.splice(0).map((objects) => objects.close()));
});

async function listed(objects: PackObjects): Promise<string[]> {
  const hashes: string[] = [];
  for await (const hash of objects.list()) hashes.push(hash);
  return hashes.sort();
}

async function packFiles(out: string): Promise<string[]> {
  return (await readdir(join(out, 'objects'))).filter((file) => file.endsWith('.pack')).sort();
}

/** Stores `count` bodies from `from` in a new pack (one writer) and ends it, without merging. */
async function writePack(out: string, from: number, count: number): Promise<string[]> {
  const writer = packObjects(out);
  const hashes = await Promise.all(
    Array.from({ length: count }, async (_, at) => {
      const bytes = Buffer.from(body(from + at));
      const hash = hashOf(bytes);
      await writer.put(hash, bytes);
      return hash;
    }),
  );
  await writer.seal();
  return hashes;
}

/** Runs a script in another Node process, with `objects.ts` importable as `store`. */
function script(code: string): string {
  return `const store = await import(${JSON.stringify(MODULE)}); const { createHash } = await import('node:crypto');\n${code}`;
}

describe('the pack object store', () => {
  it('gives back exactly the bytes put under a hash, for the object and each of its copies', async () => {
    const out = await temporaryDirectory();
    const objects = packObjects(out);
    const plain = Buffer.from('{"name":"zlib"},'.repeat(400));
    const hash = hashOf(plain);
    const other = hashOf('other');
    await objects.put(hash, plain);
    await objects.put(hash, Buffer.from('br bytes'), 'br');
    await objects.put(hash, Buffer.from('gzip bytes'), 'gzip');
    await objects.put(hashOf(''), Buffer.alloc(0));
    expect((await objects.get(hash))?.equals(plain)).toBe(true);
    expect((await objects.get(hash, 'br'))?.toString()).toBe('br bytes');
    expect((await objects.get(hash, 'gzip'))?.toString()).toBe('gzip bytes');
    expect((await objects.get(hashOf('')))?.length).toBe(0);
    expect(await objects.has(hash)).toBe(true);
    expect(await objects.has(hash, 'br')).toBe(true);
    expect(await objects.get(other)).toBeNull();
    expect(await objects.has(other)).toBe(false);
    expect(await objects.has(hashOf(''), 'br')).toBe(false);
    await expect(readStoredObject(objects, other)).rejects.toThrow(`object ${other} is missing from the object store`);
    await expect(objects.put('not-a-hash', plain)).rejects.toThrow('"not-a-hash" is not a content hash (32 hex characters)');
    // The copies are not listed; each object once.
    expect(await listed(objects)).toEqual([hash, hashOf('')].sort());
    // Stored compressed: the repetitive 6,400 bytes take a few hundred in the pack.
    const [pack] = await packFiles(out);
    expect((await stat(join(out, 'objects', pack))).size).toBeLessThan(1000);
    // A reader that opens the folder afresh reads the same.
    expect((await packObjects(out).get(hash))?.equals(plain)).toBe(true);
  });

  it('keeps the objects in a few files: one pack and its index per writer', async () => {
    const out = await temporaryDirectory();
    await writePack(out, 0, 500);
    const files = await readdir(join(out, 'objects'));
    expect(files).toHaveLength(2);
    expect(files.map((file) => file.replace(/^.*\./, '')).sort()).toEqual(['idx', 'pack']);
  });

  it('a reader in another process finds an object once put has returned, and this process finds what another wrote', async () => {
    const out = await temporaryDirectory();
    const reader = packObjects(out);
    // The reader has looked at the folder before anything was written.
    expect(await reader.has(hashOf('nothing'))).toBe(false);
    const writer = packObjects(out);
    const bytes = Buffer.from(body(1));
    await writer.put(hashOf(bytes), bytes);
    // Another process, while this writer's pack is still open.
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script(`const objects = new store.PackObjects(${JSON.stringify(out)}); process.stdout.write(String(await objects.get(${JSON.stringify(hashOf(bytes))})));`)]);
    expect(stdout).toBe(body(1));
    // The other way round: a process writes (and ends) while this reader holds what it read before.
    const { stdout: written } = await run(process.execPath, [
      '--input-type=module',
      '-e',
      script(`const objects = new store.PackObjects(${JSON.stringify(out)}); const bytes = Buffer.from('written elsewhere'); const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 32); await objects.put(hash, bytes); process.stdout.write(hash);`),
    ]);
    expect((await reader.get(written))?.toString()).toBe('written elsewhere');
    expect((await reader.get(hashOf(bytes)))?.toString()).toBe(body(1));
  });

  it('a writer killed at any moment leaves no partial object: every object found is whole, every put that returned is found', async () => {
    const out = await temporaryDirectory();
    const child = spawn(process.execPath, [
      '--input-type=module',
      '-e',
      script(`
        const objects = new store.PackObjects(${JSON.stringify(out)});
        for (let index = 0; ; index++) {
          const bytes = Buffer.from(JSON.stringify({ index, filler: 'x'.repeat(index % 5000) }));
          const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 32);
          await Promise.all([objects.put(hash, bytes), objects.put(hash, Buffer.from('copy ' + index), 'br')]);
          process.stdout.write(hash + '\\n');
        }`),
    ]);
    const returned: string[] = [];
    await new Promise<void>((done) => {
      child.stdout.on('data', (chunk: Buffer) => {
        returned.push(...chunk.toString().split('\n').filter((line) => line.length === 32));
        if (returned.length >= 300 && child.exitCode === null && !child.killed) child.kill('SIGKILL');
      });
      child.on('exit', () => done());
    });
    const objects = packObjects(out);
    const found = await listed(objects);
    for (const hash of returned) expect(found).toContain(hash);
    for (const hash of found) expect(hashOf((await objects.get(hash))!)).toBe(hash);
    // The next writer goes on beside the killed one's pack, and merging drops its unnamed tail.
    const bytes = Buffer.from('after the kill');
    await objects.put(hashOf(bytes), bytes);
    await objects.seal();
    await objects.consolidate();
    const merged = packObjects(out);
    expect(await listed(merged)).toEqual([...found, hashOf(bytes)].sort());
    for (const hash of found) expect(hashOf((await merged.get(hash))!)).toBe(hash);
  });

  it('ignores a torn last record and a pack tail no record names (what a SIGKILL between writes leaves)', async () => {
    const out = await temporaryDirectory();
    const hashes = await writePack(out, 0, 20);
    const [pack] = await packFiles(out);
    const name = pack.replace(/\.pack$/, '');
    await appendFile(join(out, 'objects', `${name}.pack`), Buffer.from('{"half an obj'));
    await appendFile(join(out, 'objects', `${name}.idx`), Buffer.alloc(20, 0xab));
    const objects = packObjects(out);
    expect(await listed(objects)).toEqual([...hashes].sort());
    for (const [index, hash] of hashes.entries()) expect((await objects.get(hash))?.toString()).toBe(body(index));
  });

  it('ends each index record with the CRC-32 (zlib\'s) of its 28 bytes before, and the sealed index with a seal record', async () => {
    const out = await temporaryDirectory();
    await writePack(out, 0, 20);
    const [pack] = await packFiles(out);
    const index = await readFile(join(out, 'objects', pack.replace(/\.pack$/, '.idx')));
    const records = Array.from({ length: index.length / 32 - 1 }, (_, at) => index.subarray(32 + at * 32, 64 + at * 32));
    expect(records).toHaveLength(21);
    for (const record of records) expect(record.readUInt32LE(28)).toBe(crc32(record.subarray(0, 28)));
    expect(records.at(-1)![16]).toBe(0xff);
  });

  it('merging packs keeps every object readable, also for a reader holding the packs merged away', async () => {
    const out = await temporaryDirectory();
    const bodies = new Map<string, string>();
    const write = async (from: number, count: number) => (await writePack(out, from, count)).forEach((hash, at) => bodies.set(hash, body(from + at)));
    await write(0, 400);
    await write(400, 300);
    await write(700, 30);
    await write(720, 20); // Ten of these are in the pack before too.
    expect(await packFiles(out)).toHaveLength(4);
    // A reader that has read from every pack before they are merged.
    const before = packObjects(out);
    for (const hash of bodies.keys()) expect(await before.has(hash)).toBe(true);
    const merging = packObjects(out);
    expect(await merging.consolidate()).toBe(4);
    expect(await packFiles(out)).toHaveLength(1);
    for (const [hash, text] of bodies) {
      expect((await before.get(hash))?.toString()).toBe(text);
      expect((await merging.get(hash))?.toString()).toBe(text);
    }
    // A new object makes the earlier reader look at the folder again: it finds the merged pack.
    const bytes = Buffer.from('after the merge');
    const writer = packObjects(out);
    await writer.put(hashOf(bytes), bytes);
    expect((await before.get(hashOf(bytes)))?.toString()).toBe('after the merge');
    expect(await listed(before)).toEqual([...bodies.keys(), hashOf(bytes)].sort());
    for (const [hash, text] of bodies) expect((await before.get(hash))?.toString()).toBe(text);
  });

  it('finds a commit\'s state root by its sha, apart from the objects, also after a merge', async () => {
    const out = await temporaryDirectory();
    const [first, second] = ['1'.repeat(40), '2'.repeat(40)];
    const root = (sha: string) => Buffer.from(JSON.stringify({ commit: { sha }, records: Array.from({ length: 50 }, (_, at) => body(at)) }));
    const object = Buffer.from(body(1));
    for (const sha of [first, second]) {
      const writer = packObjects(out);
      await writer.putRoot(sha, root(sha));
      await writer.put(hashOf(object), object);
      await writer.seal();
    }
    const reader = packObjects(out);
    expect(await reader.hasRoot(first)).toBe(true);
    expect((await reader.getRoot(second))?.equals(root(second))).toBe(true);
    expect(await reader.getRoot('3'.repeat(40))).toBeNull();
    expect(await reader.getRoot('not-a-sha')).toBeNull();
    await expect(reader.putRoot('not-a-sha', root(first))).rejects.toThrow('"not-a-sha" is not a commit sha (40 hex characters)');
    // A root is no object: not listed, and not found under the hash of its bytes nor of its sha.
    expect(await listed(reader)).toEqual([hashOf(object)]);
    expect(await reader.has(hashOf(root(first)))).toBe(false);
    expect(await reader.has(hashOf(first))).toBe(false);
    expect(await packObjects(out).consolidate()).toBe(2);
    expect(await packFiles(out)).toHaveLength(1);
    for (const sha of [first, second]) {
      expect((await reader.getRoot(sha))?.equals(root(sha))).toBe(true);
      expect((await packObjects(out).getRoot(sha))?.equals(root(sha))).toBe(true);
    }
  });

  it('keeps the packs few however many writers add one', async () => {
    const out = await temporaryDirectory();
    const all: string[] = [];
    for (let build = 0; build < 60; build++) {
      const writer = packObjects(out);
      for (let at = 0; at < 5; at++) {
        const bytes = Buffer.from(body(build * 5 + at));
        all.push(hashOf(bytes));
        await writer.put(hashOf(bytes), bytes);
      }
      await writer.seal();
      await writer.consolidate();
      await writer.close();
      expect((await packFiles(out)).length).toBeLessThanOrEqual(8);
    }
    const objects = packObjects(out);
    expect(await listed(objects)).toEqual([...new Set(all)].sort());
  });

  it('closes every file it opened, also when a read listed the folder while the first put was opening the pack', async () => {
    // The race is a matter of timing: over 20 stores, a read loop around the first put hits it most times.
    const left: string[] = [];
    for (let attempt = 0; attempt < 20; attempt++) {
      const out = await temporaryDirectory();
      await mkdir(join(out, 'objects'));
      const objects = new PackObjects(out);
      let written = false;
      const put = objects.put(hashOf('zlib'), Buffer.from('zlib')).finally(() => (written = true));
      const reads = (async () => {
        while (!written) await objects.get(hashOf('absent'));
      })();
      await Promise.all([put, reads]);
      await objects.close();
      for (const fd of await readdir('/proc/self/fd')) {
        const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
        if (target.startsWith(`${out}/`)) left.push(target);
      }
    }
    expect(left).toEqual([]);
  });

  it('merges the smaller packs when their sizes stop doubling (git repack --geometric=2)', () => {
    expect(geometricSplit([])).toBe(0);
    expect(geometricSplit([100])).toBe(0);
    expect(geometricSplit([10, 1000])).toBe(0);
    expect(geometricSplit([10, 20, 1000])).toBe(0);
    expect(geometricSplit([10, 12, 1000])).toBe(2);
    expect(geometricSplit([10, 12, 30, 1000])).toBe(3);
    expect(geometricSplit([100, 100, 100, 100])).toBe(4);
    expect(geometricSplit([1, 4, 16, 64])).toBe(0);
  });
});
