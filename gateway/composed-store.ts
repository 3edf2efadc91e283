/**
 * Bodies composed on first request and kept: diffs of pairs of commits the build did not store
 * (any but a commit and its parent, whose diff is an object of the store), sha-pinned and SPDX
 * SBOMs. Such a body depends only on write-once inputs (state roots and objects), so it is
 * composed once, written under `<out>/cache/` (disk-cache.ts: atomically, and within the size cap,
 * least recently used deleted first), and read from there afterwards; one deleted is composed
 * again with the same bytes. When the write fails (a read-only output directory) bodies stay in
 * memory only.
 */
import { readFile } from 'node:fs/promises';
import { contentEtag } from '../src/store/hash.ts';
import { isAbsentFile, type DiskCache, type DiskCacheStats } from './disk-cache.ts';
import type { WorkObserver } from './encoding.ts';
import { OnceCache, ownBytes, type CacheLookups, type CacheStats, type Semaphore } from './lru.ts';

export interface ComposedBody {
  readonly bytes: Buffer;
  /** The body's content ETag, `W/"<first 32 hex of the body's sha256>"` (src/store/hash.ts). */
  readonly etag: string;
  /** The file holding the body, when it is on disk (accel.ts sends it from there). */
  readonly file?: string;
}

export interface ComposedStoreOptions {
  /** Bytes of composed bodies kept in memory (the files on disk have their own cap, `disk`'s). */
  readonly memoryBytes: number;
  readonly disk: DiskCache;
  /** Compositions running at once (each parses what it reads: two listing bundles for a diff); the others wait. */
  readonly compositions: Semaphore;
  readonly observe?: WorkObserver;
}

export class ComposedStore {
  readonly #disk: DiskCache;
  readonly #memory: OnceCache<ComposedBody>;
  readonly #observe: WorkObserver;
  readonly #compositions: Semaphore;

  constructor(options: ComposedStoreOptions) {
    this.#disk = options.disk;
    this.#observe = options.observe ?? (() => {});
    this.#compositions = options.compositions;
    this.#memory = new OnceCache<ComposedBody>({ maxBytes: options.memoryBytes, sizeOf: (body, key) => 64 + key.length + body.bytes.length });
    // A body whose file was deleted is composed again: a copy in memory would name a file that is gone.
    this.#disk.onEvicted((file) => this.#memory.delete(file));
  }

  /**
   * The body kept in `file` (a path under `<out>/cache/`), composing it with `compose` and writing
   * it when the file does not exist. Null when `compose` has nothing (its inputs are missing).
   */
  async get(file: string, compose: () => Promise<Buffer | null>): Promise<ComposedBody | null> {
    const body = await this.#memory.get(file, async () => {
      const kept = await read(file);
      if (kept) {
        await this.#disk.used(file, kept.bytes.length);
        return kept;
      }
      this.#disk.forget(file);
      const bytes = await this.#compose(file, compose);
      if (!bytes) return null;
      const written = await this.#disk.write(file, bytes);
      return { bytes, etag: contentEtag(bytes), ...(written ? { file } : {}) };
    });
    // Served from memory or not, the file was used: the least recently used go first.
    if (body?.file) this.#disk.touch(body.file);
    return body;
  }

  lookups(): CacheLookups {
    return this.#memory.lookups();
  }

  stats(): { memory: CacheStats; disk: DiskCacheStats } {
    return { memory: this.#memory.stats(), disk: this.#disk.stats() };
  }

  #compose(file: string, compose: () => Promise<Buffer | null>): Promise<Buffer | null> {
    return this.#compositions.run(async () => {
      this.#observe({ kind: 'compose', file });
      const bytes = await compose();
      return bytes && ownBytes(bytes);
    });
  }
}

async function read(file: string): Promise<ComposedBody | null> {
  try {
    const bytes = await readFile(file);
    return { bytes, etag: contentEtag(bytes), file };
  } catch (error) {
    if (isAbsentFile(error as NodeJS.ErrnoException)) return null;
    throw error;
  }
}
