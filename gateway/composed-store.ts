/**
 * Bodies composed on first request and kept: diffs of pairs of commits the build did not write,
 * sha-pinned and SPDX SBOMs. Such a body depends only on write-once inputs (state roots and
 * objects), so it is composed once, written under `<out>/cache/` (disk-cache.ts: atomically, and
 * within the size cap, least recently used deleted first), and read from there afterwards; one
 * deleted is composed again with the same bytes. The diff of each commit against its parent is
 * the build's file (`diffs/<sha>/<parent>.json`): read as it is, never counted nor deleted.
 * When the write fails (a read-only output directory) bodies stay in memory only.
 */
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../src/store/atomic.ts';
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
  #warnedWrite = false;
  readonly #log: (line: string) => void;

  constructor(log: (line: string) => void, options: ComposedStoreOptions) {
    this.#log = log;
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

  /**
   * A body the build writes (the diff of a commit against its parent): read from `file`; composed
   * and written there only when it is missing. Never counted in the cap nor deleted.
   */
  built(file: string, compose: () => Promise<Buffer | null>): Promise<ComposedBody | null> {
    return this.#memory.get(file, async () => {
      const kept = await read(file);
      if (kept) return kept;
      const bytes = await this.#compose(file, compose);
      if (!bytes) return null;
      const written = await this.#writeBuilt(file, bytes);
      return { bytes, etag: contentEtag(bytes), ...(written ? { file } : {}) };
    });
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

  async #writeBuilt(file: string, bytes: Buffer): Promise<boolean> {
    try {
      await writeFileAtomic(file, bytes);
      return true;
    } catch (error) {
      // The answer matters more than the file: serve from memory, and say so once.
      if (!this.#warnedWrite) {
        this.#warnedWrite = true;
        const reason = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
        this.#log(`cannot write ${file} (${reason}); it is kept in memory`);
      }
      return false;
    }
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
