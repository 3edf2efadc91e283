/**
 * What the surfaces read, made once per app: the output directory, its releases, and caches of
 * things that never change once written (state roots, composed diffs, compressed bodies).
 */
import { readFile } from 'node:fs/promises';
import { findIndexChunk, paths, readStateRoot, type PackageIndexEntry, type StateRoot } from '../src/store/layout.ts';
import { AccelBodies } from './accel.ts';
import { DiffStore } from './diff-store.ts';
import { CompressedCache } from './encoding.ts';
import { Lru, Once } from './lru.ts';
import { Releases } from './release.ts';

export interface CatalogLimits {
  /** Total bytes of compressed bodies kept in memory. Default 64 MiB. */
  readonly compressedBytes?: number;
  /** Total bytes of composed diffs kept in memory. Default 16 MiB. */
  readonly diffBytes?: number;
  /** Parsed state roots kept in memory. Default 256. */
  readonly stateRoots?: number;
  /** Total bytes of small write-once files (objects, their `.br`/`.gz` siblings) kept in memory. Default 32 MiB. */
  readonly fileBytes?: number;
  /** Parsed package-index chunks kept in memory. Default 1024. */
  readonly indexChunks?: number;
}

/** Files larger than this are read each time (a bundle's chunks are streamed, not kept). */
const KEEP_FILE_MAX_BYTES = 256 * 1024;

export class Catalog {
  readonly out: string;
  readonly log: (line: string) => void;
  /** The public address of the site (DECISIONS.md 13) for rows that print absolute URLs; null when not configured. */
  readonly siteUrl: string | null;
  readonly releases: Releases;
  readonly diffs: DiffStore;
  readonly compressed: CompressedCache;
  /** The X-Accel-Redirect mode (accel.ts); null: the gateway sends every body itself. */
  readonly accel: AccelBodies | null;
  readonly #roots: Lru<StateRoot>;
  readonly #once = new Once<StateRoot | null>();
  readonly #files: Lru<{ bytes: Buffer | null }>;
  readonly #filesOnce = new Once<{ bytes: Buffer | null }>();
  readonly #chunks: Lru<Record<string, PackageIndexEntry>>;
  readonly #chunksOnce = new Once<Record<string, PackageIndexEntry>>();

  constructor(out: string, log: (line: string) => void, options: { siteUrl?: string; limits?: CatalogLimits; accelRedirect?: string } = {}) {
    const limits = options.limits ?? {};
    this.out = out;
    this.log = log;
    this.siteUrl = options.siteUrl ?? null;
    this.releases = new Releases(out);
    this.diffs = new DiffStore(out, log, limits.diffBytes);
    this.compressed = new CompressedCache(limits.compressedBytes ?? 64 * 1024 * 1024);
    this.#roots = new Lru<StateRoot>(limits.stateRoots ?? 256);
    this.#files = new Lru<{ bytes: Buffer | null }>(limits.fileBytes ?? 32 * 1024 * 1024, (entry) => 64 + (entry.bytes?.length ?? 0));
    this.#chunks = new Lru<Record<string, PackageIndexEntry>>(limits.indexChunks ?? 1024);
    this.accel = options.accelRedirect ? new AccelBodies(out, options.accelRedirect, log) : null;
  }

  /**
   * A write-once file of the output (an object, or its `.br`/`.gz` sibling; a file of a published
   * release), null when it does not exist. Such a file never changes, and an object a published state
   * refers to was written with its siblings before that state, so both answers are kept (small files
   * only, bounded by size).
   */
  async writeOnceFile(file: string): Promise<Buffer | null> {
    const hit = this.#files.get(file);
    if (hit) return hit.bytes;
    const entry = await this.#filesOnce.run(file, async () => {
      const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return null;
        throw error;
      });
      const loaded = { bytes };
      if (!bytes || bytes.length <= KEEP_FILE_MAX_BYTES) this.#files.set(file, loaded);
      return loaded;
    });
    return entry.bytes;
  }

  /** The package-index entry of `key` at a commit (layout.ts lookupPackage), with the parsed chunk kept. */
  async packageEntry(root: StateRoot, key: string): Promise<PackageIndexEntry | null> {
    const chunk = findIndexChunk(root.packages, key);
    if (!chunk) return null;
    let entries = this.#chunks.get(chunk.object);
    if (!entries) {
      entries = await this.#chunksOnce.run(chunk.object, async () => {
        const bytes = await this.writeOnceFile(paths.object(this.out, chunk.object));
        if (!bytes) throw new Error(`index chunk ${chunk.object} is missing from objects/`);
        const parsed = JSON.parse(bytes.toString('utf8')) as Record<string, PackageIndexEntry>;
        this.#chunks.set(chunk.object, parsed);
        return parsed;
      });
    }
    return Object.hasOwn(entries, key) ? entries[key] : null;
  }

  /** `states/<sha>.json`, parsed; write-once, so a parsed root is kept. Null when never built. */
  async stateRoot(sha: string): Promise<StateRoot | null> {
    const hit = this.#roots.get(sha);
    if (hit) return hit;
    return this.#once.run(sha, async () => {
      const root = await readStateRoot(this.out, sha);
      if (root) this.#roots.set(sha, root);
      return root;
    });
  }
}
