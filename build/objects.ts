/**
 * The content-addressed object store: every body or chunk is written once, under the hash of
 * its bytes, by writing a temporary file and renaming it into place, so a killed build never
 * leaves a partial object where a reader could find it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';
import { paths } from '../src/store/layout.ts';

/**
 * Bodies served whole at or above this size get `.br` and `.gz` siblings. Below it the saving
 * is a few hundred bytes, while every sibling costs a file (and a disk block) per body.
 */
export const PRECOMPRESS_MIN_BYTES = 4096;

export function objectHash(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 32);
}

/** Writes a file atomically: a temporary sibling, then rename. */
export async function writeFileAtomic(file: string, data: string | Buffer, mode?: number): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  await writeFile(temporary, data, mode === undefined ? undefined : { mode });
  await rename(temporary, file);
}

export function brotli(bytes: Buffer): Buffer {
  return brotliCompressSync(bytes, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
  });
}

export function gzip(bytes: Buffer): Buffer {
  return gzipSync(bytes, { level: 9 });
}

export class ObjectStore {
  private readonly out: string;
  /** Byte length of every object this build wrote or looked at. */
  private readonly known = new Map<string, number>();
  /** Objects written by this build (for the benchmark's figures). */
  written = 0;

  constructor(out: string) {
    this.out = out;
  }

  /** Stores bytes once; `served` bodies also get precompressed siblings. Returns the hash. */
  async put(data: string | Buffer, options: { served?: boolean } = {}): Promise<string> {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    const hash = objectHash(bytes);
    if (this.known.has(hash)) return hash;
    const file = paths.object(this.out, hash);
    if (!existsSync(file)) {
      if (options.served && bytes.length >= PRECOMPRESS_MIN_BYTES) {
        await writeFileAtomic(`${file}.br`, brotli(bytes));
        await writeFileAtomic(`${file}.gz`, gzip(bytes));
      }
      await writeFileAtomic(file, bytes);
      this.written += 1;
    }
    this.known.set(hash, bytes.length);
    return hash;
  }

  /** The byte length of a stored object. */
  async size(hash: string): Promise<number> {
    const known = this.known.get(hash);
    if (known !== undefined) return known;
    const { size } = await stat(paths.object(this.out, hash));
    this.known.set(hash, size);
    return size;
  }
}
