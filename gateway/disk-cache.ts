/**
 * The files the gateway writes on request, under `<out>/cache/`, bounded by a size on disk
 * (`--composed-cache-mb`): bodies composed on first request (diffs of pairs the build did not
 * write, sha-pinned and SPDX SBOMs) and, in the X-Accel-Redirect mode, bodies written for nginx
 * to send. When a new file would pass the cap, the least recently used files are deleted. Each
 * depends only on write-once inputs, so one deleted is composed again, byte for byte, when asked
 * for again. The build never writes under `cache/`; its own files (the packs, which hold the
 * state roots and the diff of each commit against its parent) are never counted here nor deleted.
 *
 * The count is this process's: the files found under `cache/` when it starts (by modification
 * time, oldest first), and those it writes or reads afterwards. Gateways sharing one output
 * directory each keep their own count (docs/deployment.md says how to size the cap then).
 */
import type { Dirent } from 'node:fs';
import { readdir, stat, unlink } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { writeFileAtomic } from '../src/store/atomic.ts';
import { BoundedCache } from './lru.ts';

export interface DiskCacheStats {
  /** Bytes the kept files occupy on disk (allocated blocks, as `du` counts them). */
  readonly bytes: number;
  readonly files: number;
  /** Files deleted to make room since the gateway started. */
  readonly evictions: number;
  readonly maxBytes: number;
}

/**
 * Errors that say a file is not there: absent, a part of its path a file, or a name longer than
 * the file system allows (a URL can ask for any name; the build never wrote such a file).
 */
export function isAbsentFile(error: NodeJS.ErrnoException): boolean {
  return error.code === 'ENOENT' || error.code === 'ENOTDIR' || error.code === 'ENAMETOOLONG';
}

/** A temporary file of src/store/atomic.ts: `<file>.tmp-<pid>-<8 hex>`. */
const TEMPORARY = /\.tmp-(\d+)-[0-9a-f]{8}$/;

/** Whether a process with this id is running (a temporary file of a dead one is debris). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Bytes a file of `length` bytes takes on disk when its blocks are not known: whole 4 KiB blocks. */
const blocksOf = (length: number) => Math.max(4096, Math.ceil(length / 4096) * 4096);

export class DiskCache {
  /** `<out>/cache`: everything under it is this cache's. */
  readonly root: string;
  readonly #maxBytes: number;
  readonly #log: (line: string) => void;
  /** File path to the bytes it occupies, least recently used first. */
  readonly #files: BoundedCache<number>;
  readonly #evictedListeners: ((file: string) => void)[] = [];
  readonly #ready: Promise<void>;
  /** Deletions under way: a write returns once the room it made is free. */
  readonly #deleting = new Set<Promise<void>>();
  #evictions = 0;
  #warnedWrite = false;

  constructor(root: string, maxBytes: number, log: (line: string) => void) {
    this.root = root;
    this.#maxBytes = maxBytes;
    this.#log = log;
    this.#files = new BoundedCache<number>({ maxBytes, sizeOf: (bytes) => bytes, onEvict: (_bytes, file) => this.#evict(file) });
    this.#ready = this.#scan();
  }

  /** Calls `listener` with each file deleted to make room (its copies in memory must go too). */
  onEvicted(listener: (file: string) => void): void {
    this.#evictedListeners.push(listener);
  }

  /** Whether `file` is kept (it is then marked as just used). */
  async has(file: string): Promise<boolean> {
    await this.#ready;
    return this.#files.get(this.#inside(file)) !== undefined;
  }

  /** Marks `file` as just used when it is kept (a body served from a copy in memory). */
  touch(file: string): void {
    this.#files.get(file);
  }

  /** Marks `file` as just used, counting it when it was not (another gateway wrote it); `length` is its size. */
  async used(file: string, length: number): Promise<void> {
    await this.#ready;
    if (this.#files.get(this.#inside(file)) === undefined) this.#files.set(file, blocksOf(length));
  }

  /** `file` turned out to be gone (another gateway deleted it): stop counting it. */
  forget(file: string): void {
    this.#files.delete(file);
  }

  /**
   * Writes `file` atomically and counts it, deleting the least recently used files beyond the cap.
   * False when it is not kept: larger than the whole cap, or the directory cannot be written (said once).
   */
  async write(file: string, bytes: Uint8Array): Promise<boolean> {
    await this.#ready;
    this.#inside(file);
    if (blocksOf(bytes.length) > this.#maxBytes) return false;
    try {
      await writeFileAtomic(file, bytes);
      const { blocks } = await stat(file);
      this.#files.set(file, blocks > 0 ? blocks * 512 : blocksOf(bytes.length));
      await Promise.all(this.#deleting);
      return true;
    } catch (error) {
      // A name too long for the file system (a long package name) is served from memory, as it is.
      if ((error as NodeJS.ErrnoException).code === 'ENAMETOOLONG') return false;
      if (!this.#warnedWrite) {
        this.#warnedWrite = true;
        const reason = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
        this.#log(`cannot write under ${this.root} (${reason}); bodies composed or assembled on request are served from memory`);
      }
      return false;
    }
  }

  stats(): DiskCacheStats {
    const { entries, bytes } = this.#files.stats();
    return { bytes, files: entries, evictions: this.#evictions, maxBytes: this.#maxBytes };
  }

  /** Resolves once the files already under the root are counted. */
  ready(): Promise<void> {
    return this.#ready;
  }

  #inside(file: string): string {
    const path = relative(this.root, file);
    if (path === '' || path.startsWith('..') || path.startsWith(sep)) throw new Error(`${file} is not under ${this.root}`);
    return file;
  }

  #evict(file: string): void {
    this.#evictions += 1;
    for (const listener of this.#evictedListeners) listener(file);
    // A reader that opened it first still reads it whole; one that comes after composes it again.
    const deleting = unlink(file)
      .catch(() => {})
      .finally(() => this.#deleting.delete(deleting));
    this.#deleting.add(deleting);
  }

  /** Counts the files a previous run left, oldest first, so the least recently written go first. */
  async #scan(): Promise<void> {
    let entries: Dirent[];
    try {
      entries = await readdir(this.root, { recursive: true, withFileTypes: true });
    } catch {
      return; // No cache yet.
    }
    const found: { file: string; bytes: number; modified: number }[] = [];
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const file = join(entry.parentPath, entry.name);
      const temporary = TEMPORARY.exec(entry.name);
      if (temporary) {
        if (!alive(Number(temporary[1]))) await unlink(file).catch(() => {});
        continue;
      }
      try {
        const info = await stat(file);
        found.push({ file, bytes: info.blocks > 0 ? info.blocks * 512 : blocksOf(info.size), modified: info.mtimeMs });
      } catch {
        // Deleted meanwhile.
      }
    }
    found.sort((a, b) => a.modified - b.modified || (a.file < b.file ? -1 : 1));
    for (const { file, bytes } of found) {
      // A file larger than the whole cap (the cap was lowered) cannot be counted: it goes now.
      if (bytes > this.#maxBytes) this.#evict(file);
      else this.#files.set(file, bytes);
    }
    await Promise.all(this.#deleting);
  }
}
