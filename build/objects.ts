/**
 * The content-addressed object store: every body or chunk is written once, under the content
 * hash of its bytes (src/store/hash.ts), atomically (src/store/atomic.ts), so a killed build never
 * leaves a partial object where a reader could find it.
 */
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';
import { writeFileAtomic } from '../src/store/atomic.ts';
import { contentHash } from '../src/store/hash.ts';
import { paths } from '../src/store/layout.ts';

/**
 * Bodies served whole at or above this size get `.br` and `.gz` siblings. Below it the saving
 * is a few hundred bytes, while every sibling costs a file (and a disk block) per body.
 */
export const PRECOMPRESS_MIN_BYTES = 4096;

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
    const hash = contentHash(bytes);
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
