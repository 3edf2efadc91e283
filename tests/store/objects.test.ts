/**
 * The object backend every object write and read goes through (src/store/objects.ts). Today's is
 * one file per object: `<out>/objects/<2 hex>/<30 hex>`, its precompressed copies beside it as
 * `.br` and `.gz` (the files nginx's X-Accel-Redirect mode names), written whole or not at all.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { zstdCompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { FileObjects, readStoredObject } from '../../src/store/objects.ts';
import { temporaryDirectory } from '../helpers/catalog.ts';

const hash = 'ba7816bf8f01cfea414140de5dae2223';
const other = 'e3b0c44298fc1c149afbf4c8996fb924';
const listed = async (objects: FileObjects) => {
  const hashes: string[] = [];
  for await (const hash of objects.list()) hashes.push(hash);
  return hashes.sort();
};
const file = (out: string, suffix = '') => join(out, 'objects', 'ba', `7816bf8f01cfea414140de5dae2223${suffix}`);

describe('the file object backend', () => {
  it('stores an object as one file named by its hash, its precompressed copies beside it', async () => {
    const out = await temporaryDirectory();
    const objects = new FileObjects(out);
    await objects.put(hash, Buffer.from('{"name":"zlib"}'));
    await objects.put(hash, Buffer.from('br bytes'), 'br');
    await objects.put(hash, Buffer.from('gzip bytes'), 'gzip');
    expect(await readFile(file(out), 'utf8')).toBe('{"name":"zlib"}');
    expect(await readFile(file(out, '.br'), 'utf8')).toBe('br bytes');
    expect(await readFile(file(out, '.gz'), 'utf8')).toBe('gzip bytes');
    expect(objects.file(hash)).toBe(file(out));
    expect(objects.file(hash, 'br')).toBe(file(out, '.br'));
    expect(objects.file(hash, 'gzip')).toBe(file(out, '.gz'));
    // No temporary file is left beside them.
    expect((await readdir(join(out, 'objects', 'ba'))).sort()).toEqual(['7816bf8f01cfea414140de5dae2223', '7816bf8f01cfea414140de5dae2223.br', '7816bf8f01cfea414140de5dae2223.gz']);
  });

  it('reads back what was stored, and null for what was not', async () => {
    const out = await temporaryDirectory();
    const objects = new FileObjects(out);
    await objects.put(hash, Buffer.from('{"name":"zlib"}'));
    expect((await objects.get(hash))?.toString('utf8')).toBe('{"name":"zlib"}');
    expect(await objects.has(hash)).toBe(true);
    expect(await objects.has(hash, 'br')).toBe(false);
    expect(await objects.get(hash, 'gzip')).toBeNull();
    expect(await objects.get(other)).toBeNull();
    expect(await objects.has(other)).toBe(false);
    await expect(readStoredObject(objects, other)).rejects.toThrow(`object ${other} is missing from the object store`);
  });

  it('lists every object once, leaving out the precompressed copies and a write in progress', async () => {
    const out = await temporaryDirectory();
    const objects = new FileObjects(out);
    expect(await listed(objects)).toEqual([]);
    await objects.put(hash, Buffer.from('a'));
    await objects.put(hash, Buffer.from('b'), 'br');
    await objects.put(other, Buffer.from(''));
    // What a build killed in the middle of a write leaves (src/store/atomic.ts).
    await mkdir(join(out, 'objects', 'e3'), { recursive: true });
    await writeFile(join(out, 'objects', 'e3', 'b0c44298fc1c149afbf4c8996fb924.tmp-123-abcdef01'), 'partial');
    expect(await listed(objects)).toEqual([hash, other]);
  });

  it('reads an object stored zstd-compressed at rest as its plain bytes', async () => {
    const out = await temporaryDirectory();
    const objects = new FileObjects(out);
    const plain = '{"name":"zlib"},'.repeat(400);
    await objects.put(hash, zstdCompressSync(Buffer.from(plain)));
    expect((await readStoredObject(objects, hash)).toString('utf8')).toBe(plain);
  });
});
