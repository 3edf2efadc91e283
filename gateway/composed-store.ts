/**
 * Bodies composed on first request and kept: diffs of any pair of commits now, pinned SBOMs
 * next. Such a body depends only on write-once inputs (state roots and objects), so it is
 * composed once, written once under the output directory (temporary file, then rename: a reader
 * sees the whole body or none), and read from there afterwards; composing again would give the
 * same bytes. The build writes some of these files itself (each commit's diff against its
 * parent). When the write fails (a read-only output directory) bodies stay in memory only.
 */
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../src/store/atomic.ts';
import { contentEtag } from '../src/store/hash.ts';
import { OnceCache } from './lru.ts';

export interface ComposedBody {
  readonly bytes: Buffer;
  /** The body's content ETag, `W/"<first 32 hex of the body's sha256>"` (src/store/hash.ts). */
  readonly etag: string;
  /** The file holding the body, when it is on disk (accel.ts sends it from there). */
  readonly file?: string;
}

export class ComposedStore {
  readonly #out: string;
  readonly #log: (line: string) => void;
  readonly #memory: OnceCache<ComposedBody | null>;
  #warnedWrite = false;

  constructor(out: string, log: (line: string) => void, maxBytes = 16 * 1024 * 1024) {
    this.#out = out;
    this.#log = log;
    this.#memory = new OnceCache(maxBytes, (body) => 64 + (body?.bytes.length ?? 0));
  }

  /**
   * The body kept in `file` (a path under the output directory), composing it with `compose` and
   * writing it when the file does not exist yet. Null when `compose` has nothing (its inputs are missing).
   */
  get(file: string, compose: () => Promise<Buffer | null>): Promise<ComposedBody | null> {
    return this.#memory.get(file, async () => (await this.#read(file)) ?? (await this.#compose(file, compose)), (body) => body !== null);
  }

  async #read(file: string): Promise<ComposedBody | null> {
    try {
      const bytes = await readFile(file);
      return { bytes, etag: contentEtag(bytes), file };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return null;
      throw error;
    }
  }

  async #compose(file: string, compose: () => Promise<Buffer | null>): Promise<ComposedBody | null> {
    const bytes = await compose();
    if (!bytes) return null;
    const written = await this.#writeOnce(file, bytes);
    return { bytes, etag: contentEtag(bytes), ...(written ? { file } : {}) };
  }

  /** Written atomically: a reader sees the whole body or none. Same inputs, same bytes. */
  async #writeOnce(file: string, bytes: Buffer): Promise<boolean> {
    try {
      await writeFileAtomic(file, bytes);
      return true;
    } catch (error) {
      // The answer matters more than the file: serve from memory, and say so once.
      if (!this.#warnedWrite) {
        this.#warnedWrite = true;
        const reason = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
        this.#log(`cannot write composed bodies under ${this.#out} (${reason}); they are kept in memory`);
      }
      return false;
    }
  }
}
