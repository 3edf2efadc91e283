/**
 * What the surfaces read, made once per app: the output directory, its releases, and caches of
 * things that never change once written (state roots, chunks, composed bodies, compressed
 * bodies). It also answers per-package questions at any commit (a package's record, its
 * dependency closure, its transitive advisories) from the state root's keyed chunks, without
 * assembling a whole bundle.
 */
import { readFile } from 'node:fs/promises';
import { packageClosure, type PackageClosure } from '../src/compose/closure.ts';
import {
  findChunk, paths, readStateRoot, recordsOfChunk, transitiveOfChunk,
  type ChunkRef, type PackageIndexEntry, type StateRoot,
} from '../src/store/layout.ts';
import type { PackageRecord, TransitiveAdvisory } from '../src/schemas/wire.ts';
import { AccelBodies } from './accel.ts';
import { ComposedStore } from './composed-store.ts';
import { CompressedCache } from './encoding.ts';
import { OnceCache } from './lru.ts';
import { Releases } from './release.ts';

export interface CatalogLimits {
  /** Total bytes of compressed bodies kept in memory. Default 64 MiB. */
  readonly compressedBytes?: number;
  /** Total bytes of bodies composed on request (diffs, ...) kept in memory. Default 16 MiB. */
  readonly composedBytes?: number;
  /** Parsed state roots kept in memory. Default 256. */
  readonly stateRoots?: number;
  /** Total bytes of small write-once files (objects, their `.br`/`.gz` siblings) kept in memory. Default 32 MiB. */
  readonly fileBytes?: number;
  /** Parsed package-index chunks kept in memory. Default 1024. */
  readonly indexChunks?: number;
  /** Total bytes (as stored) of parsed record and transitive chunks kept in memory. Default 64 MiB. */
  readonly recordChunkBytes?: number;
}

/** Files larger than this are read each time (a bundle's chunks are streamed, not kept). */
const KEEP_FILE_MAX_BYTES = 256 * 1024;

export class Catalog {
  readonly out: string;
  readonly log: (line: string) => void;
  /** The public address of the site (DECISIONS.md 13) for rows that print absolute URLs; null when not configured. */
  readonly siteUrl: string | null;
  readonly releases: Releases;
  /** Bodies composed on first request and written once (diffs of any pair, ...). */
  readonly composed: ComposedStore;
  readonly compressed: CompressedCache;
  /** The X-Accel-Redirect mode (accel.ts); null: the gateway sends every body itself. */
  readonly accel: AccelBodies | null;
  readonly #roots: OnceCache<StateRoot | null>;
  readonly #files: OnceCache<{ bytes: Buffer | null }>;
  readonly #indexChunks: OnceCache<Record<string, PackageIndexEntry>>;
  readonly #recordChunks: OnceCache<{ size: number; items: Map<string, PackageRecord> }>;
  readonly #transitiveChunks: OnceCache<{ size: number; items: Map<string, TransitiveAdvisory[]> }>;

  constructor(out: string, log: (line: string) => void, options: { siteUrl?: string; limits?: CatalogLimits; accelRedirect?: string } = {}) {
    const limits = options.limits ?? {};
    this.out = out;
    this.log = log;
    this.siteUrl = options.siteUrl ?? null;
    this.releases = new Releases(out);
    this.composed = new ComposedStore(out, log, limits.composedBytes);
    this.compressed = new CompressedCache(limits.compressedBytes ?? 64 * 1024 * 1024);
    this.#roots = new OnceCache(limits.stateRoots ?? 256);
    this.#files = new OnceCache(limits.fileBytes ?? 32 * 1024 * 1024, (entry) => 64 + (entry.bytes?.length ?? 0));
    this.#indexChunks = new OnceCache(limits.indexChunks ?? 1024);
    const chunkBytes = limits.recordChunkBytes ?? 64 * 1024 * 1024;
    // Half each: a closure walk must not push out the transitive chunks, nor the other way round.
    this.#recordChunks = new OnceCache(chunkBytes / 2, (chunk) => chunk.size);
    this.#transitiveChunks = new OnceCache(chunkBytes / 2, (chunk) => chunk.size);
    this.accel = options.accelRedirect ? new AccelBodies(out, options.accelRedirect, log) : null;
  }

  /**
   * A write-once file of the output (an object, or its `.br`/`.gz` sibling; a file of a published
   * release), null when it does not exist. Such a file never changes, and an object a published state
   * refers to was written with its siblings before that state, so both answers are kept (small files
   * only, bounded by size).
   */
  async writeOnceFile(file: string): Promise<Buffer | null> {
    const entry = await this.#files.get(
      file,
      async () => ({
        bytes: await readFile(file).catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return null;
          throw error;
        }),
      }),
      (loaded) => !loaded.bytes || loaded.bytes.length <= KEEP_FILE_MAX_BYTES,
    );
    return entry.bytes;
  }

  /** The bytes of a stored object that a state refers to. */
  async #object(hash: string): Promise<Buffer> {
    const bytes = await this.writeOnceFile(paths.object(this.out, hash));
    if (!bytes) throw new Error(`object ${hash} is missing from objects/`);
    return bytes;
  }

  /** `states/<sha>.json`, parsed; write-once, so a parsed root is kept. Null when never built. */
  stateRoot(sha: string): Promise<StateRoot | null> {
    return this.#roots.get(sha, () => readStateRoot(this.out, sha), (root) => root !== null);
  }

  /** The package-index entry of `key` at a commit (layout.ts lookupPackage), with the parsed chunk kept. */
  async packageEntry(root: StateRoot, key: string): Promise<PackageIndexEntry | null> {
    const chunk = findChunk(root.packages, key);
    if (!chunk) return null;
    const entries = await this.#indexChunks.get(chunk.object, async () => JSON.parse((await this.#object(chunk.object)).toString('utf8')));
    return Object.hasOwn(entries, key) ? entries[key] : null;
  }

  /** The composed record of `key` at a commit (as in its full bundle), or null when the package is not there. */
  async record(root: StateRoot, key: string): Promise<PackageRecord | null> {
    const chunk = findChunk(root.records, key);
    if (!chunk) return null;
    const { items } = await this.#recordChunks.get(chunk.object, async () => this.#parsed(chunk, recordsOfChunk));
    return items.get(key) ?? null;
  }

  /** The transitive advisory entries whose path starts at `key`, at a commit (empty when none). */
  async transitive(root: StateRoot, key: string): Promise<TransitiveAdvisory[]> {
    const chunk = findChunk(root.transitive, key);
    if (!chunk) return [];
    const { items } = await this.#transitiveChunks.get(chunk.object, async () => this.#parsed(chunk, transitiveOfChunk));
    return items.get(key) ?? [];
  }

  async #parsed<T>(chunk: ChunkRef, parse: (text: string) => Map<string, T>): Promise<{ size: number; items: Map<string, T> }> {
    const bytes = await this.#object(chunk.object);
    return { size: bytes.length, items: parse(bytes.toString('utf8')) };
  }

  /** `key` and everything it reaches through build and runtime dependencies at a commit (src/compose/closure.ts); null when the package is not there. */
  closure(root: StateRoot, key: string): Promise<PackageClosure | null> {
    return packageClosure((dependency) => this.record(root, dependency), key);
  }
}
