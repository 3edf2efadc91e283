/**
 * Diff bodies (`/api/pkgs/bundle/{sha}/diff/{base}.json`). The build writes each commit against
 * its parent; any other pair is composed on its first request with the build's own helper
 * (`composeDiff` over the two stored listings) and written back write-once, so the next request
 * reads a file. When the write fails (a read-only output directory) they stay in memory only.
 */
import { readFile } from 'node:fs/promises';
import { composeDiff } from '../src/compose/diff.ts';
import { serialize } from '../src/serialize.ts';
import { writeFileAtomic } from '../src/store/atomic.ts';
import { contentEtag } from '../src/store/hash.ts';
import { paths, readListing } from '../src/store/layout.ts';
import { Lru, Once } from './lru.ts';

export interface DiffBody {
  readonly bytes: Buffer;
  /** The body's content ETag, `W/"<first 32 hex of the body's sha256>"` (src/store/hash.ts). */
  readonly etag: string;
  /** `diffs/<sha>/<base>.json` when the body is on disk (accel.ts sends it from there). */
  readonly file?: string;
}

export class DiffStore {
  readonly #out: string;
  readonly #log: (line: string) => void;
  readonly #memory: Lru<DiffBody>;
  readonly #once = new Once<DiffBody | null>();
  #warnedWrite = false;

  constructor(out: string, log: (line: string) => void, maxBytes = 16 * 1024 * 1024) {
    this.#out = out;
    this.#log = log;
    this.#memory = new Lru<DiffBody>(maxBytes, (body) => body.bytes.length);
  }

  /** The diff from `base` to `sha` (both on the chain), or null when either state was never built. */
  get(sha: string, base: string): Promise<DiffBody | null> {
    const key = `${sha}/${base}`;
    const hit = this.#memory.get(key);
    if (hit) return Promise.resolve(hit);
    return this.#once.run(key, async () => {
      const body = (await this.#read(sha, base)) ?? (await this.#compose(sha, base));
      if (body) this.#memory.set(key, body);
      return body;
    });
  }

  async #read(sha: string, base: string): Promise<DiffBody | null> {
    try {
      const file = paths.diff(this.#out, sha, base);
      const bytes = await readFile(file);
      return { bytes, etag: contentEtag(bytes), file };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return null;
      throw error;
    }
  }

  async #compose(sha: string, base: string): Promise<DiffBody | null> {
    const [baseListing, headListing] = await Promise.all([readListing(this.#out, base), readListing(this.#out, sha)]);
    if (!baseListing || !headListing) return null;
    const bytes = Buffer.from(serialize(composeDiff(baseListing, headListing)), 'utf8');
    const file = paths.diff(this.#out, sha, base);
    const written = await this.#writeOnce(file, bytes);
    return { bytes, etag: contentEtag(bytes), ...(written ? { file } : {}) };
  }

  /** Written atomically: a reader sees the whole diff or none. Same pair, same bytes. */
  async #writeOnce(file: string, bytes: Buffer): Promise<boolean> {
    try {
      await writeFileAtomic(file, bytes);
      return true;
    } catch (error) {
      // The answer matters more than the file: serve from memory, and say so once.
      if (!this.#warnedWrite) {
        this.#warnedWrite = true;
        const reason = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
        this.#log(`cannot write composed diffs under ${this.#out} (${reason}); they are kept in memory`);
      }
      return false;
    }
  }
}
