/**
 * What the surfaces read, made once per app: the output directory, its releases, caches of things
 * that never change once written (state roots, chunks, composed bodies, bodies as sent), each
 * bounded by bytes (CatalogLimits), and bounds on the work that holds large buffers (joining a
 * bundle or a document from its stored parts, compressing or composing a body). It also answers
 * per-package questions at any commit (a package's record, its dependency closure, its transitive
 * advisories) from the state root's keyed chunks, without assembling a whole bundle.
 */
import type { KeyObject } from 'node:crypto';
import { packageClosure, type PackageClosure } from '../src/compose/closure.ts';
import { DigestChain } from '../src/digest/commit-digest.ts';
import {
  assembleBody, findChunk, hydrateStateRoot, paths, recordsOfChunk, transitiveOfChunk,
  type ChunkRef, type PackageIndexEntry, type StateRoot, type StateRootFile, type StoredBody,
} from '../src/store/layout.ts';
import type { PackageRecord, TransitiveAdvisory } from '../src/schemas/wire.ts';
import { carriesTip, documentBytes, parseManifestChunk, type ManifestChunk } from '../src/store/manifest.ts';
import { openObjects, type ObjectBackend, type ObjectEncoding } from '../src/store/objects.ts';
import { AccelBodies } from './accel.ts';
import { ComposedStore } from './composed-store.ts';
import { DiskCache, isAbsentFile, type DiskCacheStats } from './disk-cache.ts';
import { BodyCache, type WorkEvent, type WorkObserver } from './encoding.ts';
import { GatewayMetrics } from './metrics.ts';
import { Once, OnceCache, Semaphore, type CacheLookups, type CacheStats } from './lru.ts';
import { Releases, type Release } from './release.ts';

/**
 * The bounds of the gateway's memory (docs/deployment.md, "Memory and disk"). Parsed values (state
 * roots, chunks) are counted at twice the bytes they were parsed from, about what they take in
 * the heap; bodies and files at their length.
 */
export interface CatalogLimits {
  /** Bodies as sent: compressed bodies, and bundles assembled from their chunks for clients without `Accept-Encoding`. Default 32 MiB. */
  readonly bodyBytes?: number;
  /** Bodies composed on request (diffs, SBOMs) kept in memory. Default 8 MiB. */
  readonly composedBytes?: number;
  /** Bytes on disk of the files under `<out>/cache/` (composed bodies, X-Accel-Redirect bodies). Default 1 GiB. */
  readonly composedDiskBytes?: number;
  /** Parsed state roots. Default 8 MiB. */
  readonly stateRootBytes?: number;
  /** Small write-once bodies (objects, their precompressed copies, a release's documents at its tip). Default 16 MiB. */
  readonly fileBytes?: number;
  /** Parsed package-index chunks. Default 4 MiB. */
  readonly indexChunkBytes?: number;
  /** Parsed chunks of the releases' manifests. Default 8 MiB. */
  readonly manifestChunkBytes?: number;
  /** Parsed record and transitive chunks (half each). Default 16 MiB. */
  readonly recordChunkBytes?: number;
  /** Bodies being joined from stored parts at once (bundles from their chunks, joined documents from what they join); the others wait. Default 4. */
  readonly assemblies?: number;
  /** Bodies being compressed at once (each holds a brotli or gzip state of several MiB); the others wait. Default 2. */
  readonly compressions?: number;
  /** Bodies being composed on request at once (a diff parses two listing bundles); the others wait. Default 2. */
  readonly compositions?: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_LIMITS: Required<CatalogLimits> = {
  bodyBytes: 32 * MiB,
  composedBytes: 8 * MiB,
  composedDiskBytes: 1024 * MiB,
  stateRootBytes: 8 * MiB,
  fileBytes: 16 * MiB,
  indexChunkBytes: 4 * MiB,
  manifestChunkBytes: 8 * MiB,
  recordChunkBytes: 16 * MiB,
  assemblies: 4,
  compressions: 2,
  compositions: 2,
};

/**
 * Files larger than this are not kept in memory (they are read each time). A part of llms-full
 * whose mirrors take the tip's values (at most 512 KiB and its header) is kept: it is joined from
 * its mirrors, a few hundred reads, and joining it for every request served it at half the rate of
 * reading it whole. Joined documents that take nothing from the tip are kept with the bodies as
 * sent instead (AssembledBody).
 */
const KEEP_FILE_MAX_BYTES = 1024 * 1024;

/**
 * A body joined from stored parts when asked for: a bundle from its chunks, a joined document (a
 * part of llms-full, a large document's segments: src/store/manifest.ts) from what it joins. Its
 * length is known before, so a client served a kept compressed copy, or a HEAD, costs no join.
 */
export interface AssembledBody {
  readonly length: number;
  /** Names these bytes among the bodies kept as sent (encoding.ts BodyCache). */
  readonly identity: string;
  /** A sha-pinned body's ETag. */
  readonly etag?: string;
  /** A name these bytes always have, whatever the release (a floats-latest document's object). */
  readonly stableName?: string;
  /** The bytes: a copy kept as sent, else joined at most `assemblies` at a time, once for all concurrent callers. */
  readonly assemble: () => Promise<Buffer>;
}

/** A document of a release at its tip: its bytes, or, when it joins other objects and takes nothing from the tip, the body that joins them. */
export type ReleaseDocument = { readonly name: string } & ({ readonly bytes: Buffer } | { readonly body: AssembledBody });

export interface CatalogOptions {
  /** Ed25519 private keys that sign commit digests (`serve --signing-key`); none: digests go unsigned. */
  signingKeys?: readonly KeyObject[];
  limits?: CatalogLimits;
  accelRedirect?: string;
  /** Told of each assembly, compression and composition (the tests count them). */
  observe?: WorkObserver;
  /** Where the gateway counts for Prometheus; default: a registry of its own, read by nobody. */
  metrics?: GatewayMetrics;
}

/** What every cache holds against its bound, and the work in progress (the health endpoint reports it). */
export interface CatalogStats {
  readonly memory: Readonly<Record<'bodies' | 'composed' | 'files' | 'stateRoots' | 'indexChunks' | 'manifestChunks' | 'recordChunks' | 'transitiveChunks', CacheStats>>;
  /** The files under `<out>/cache/`, against their cap. */
  readonly disk: DiskCacheStats;
  readonly work: Readonly<Record<'assemblies' | 'compressions' | 'compositions', { running: number; waiting: number; size: number }>>;
}

/** A parsed value, counted at twice the bytes it was parsed from (measured: 1.7 times for record chunks and state roots). */
const sizedAsParsed = <T extends { size: number }>(entry: T, key: string) => 64 + key.length + 2 * entry.size;

export class Catalog {
  readonly out: string;
  readonly log: (line: string) => void;
  /** What the gateway counts for Prometheus (metrics.ts). */
  readonly metrics: GatewayMetrics;
  readonly releases: Releases;
  /** Every commit's digest, computed once (src/digest/commit-digest.ts). */
  readonly digests: DigestChain;
  readonly signingKeys: readonly KeyObject[];
  /** The output's content-addressed objects (src/store/objects.ts): read them through `storedObject`, which keeps small ones. */
  readonly objects: ObjectBackend;
  /** Bodies composed on first request and kept (diffs of other pairs, SBOMs). */
  readonly composed: ComposedStore;
  /** Bodies as sent: compressed, or assembled from chunks. */
  readonly bodies: BodyCache;
  /** The X-Accel-Redirect mode (accel.ts); null: the gateway sends every body itself. */
  readonly accel: AccelBodies | null;
  readonly #disk: DiskCache;
  readonly #assemblies: Semaphore;
  readonly #compressions: Semaphore;
  readonly #compositions: Semaphore;
  /** Joins running, by identity: concurrent callers share one. */
  readonly #assembling = new Once<Buffer>();
  readonly #observe: WorkObserver;
  readonly #roots: OnceCache<{ size: number; root: StateRoot }>;
  readonly #files: OnceCache<{ bytes: Buffer | null }>;
  readonly #indexChunks: OnceCache<{ size: number; entries: Record<string, PackageIndexEntry> }>;
  readonly #manifestChunks: OnceCache<{ size: number; entries: ManifestChunk }>;
  readonly #recordChunks: OnceCache<{ size: number; items: Map<string, PackageRecord> }>;
  readonly #transitiveChunks: OnceCache<{ size: number; items: Map<string, TransitiveAdvisory[]> }>;

  constructor(out: string, log: (line: string) => void, options: CatalogOptions = {}) {
    const limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.out = out;
    this.log = log;
    this.metrics = options.metrics ?? new GatewayMetrics();
    this.#observe = options.observe ?? (() => {});
    this.releases = new Releases(out);
    this.digests = new DigestChain(out);
    this.signingKeys = options.signingKeys ?? [];
    this.objects = openObjects(out);
    this.#assemblies = new Semaphore(limits.assemblies);
    this.#compressions = new Semaphore(limits.compressions);
    this.#compositions = new Semaphore(limits.compositions);
    this.#disk = new DiskCache(paths.cache(out), limits.composedDiskBytes, log);
    this.composed = new ComposedStore({ memoryBytes: limits.composedBytes, disk: this.#disk, compositions: this.#compositions, observe: options.observe });
    this.bodies = new BodyCache({ maxBytes: limits.bodyBytes, compressions: this.#compressions, observe: options.observe });
    this.#roots = new OnceCache({ maxBytes: limits.stateRootBytes, sizeOf: sizedAsParsed });
    this.#files = new OnceCache({ maxBytes: limits.fileBytes, sizeOf: (entry, key) => 64 + key.length + (entry.bytes?.length ?? 0), maxEntryBytes: KEEP_FILE_MAX_BYTES + 4096 });
    this.#indexChunks = new OnceCache({ maxBytes: limits.indexChunkBytes, sizeOf: sizedAsParsed });
    this.#manifestChunks = new OnceCache({ maxBytes: limits.manifestChunkBytes, sizeOf: sizedAsParsed });
    // Half each: a closure walk must not push out the transitive chunks, nor the other way round.
    this.#recordChunks = new OnceCache({ maxBytes: limits.recordChunkBytes / 2, sizeOf: sizedAsParsed });
    this.#transitiveChunks = new OnceCache({ maxBytes: limits.recordChunkBytes / 2, sizeOf: sizedAsParsed });
    this.accel = options.accelRedirect ? new AccelBodies(out, options.accelRedirect, this.#disk) : null;
  }

  /** Computes the digest of the published tip (and so of every commit before it); a failure is logged, and the first request tries again. */
  async warmDigests(): Promise<void> {
    try {
      const release = await this.releases.current();
      if (release?.info.tip) await this.digests.of(release.chain, release.info.tip.sha);
    } catch (error) {
      this.log(`computing the commit digests failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** A bundle, assembled from its chunks when asked for (AssembledBody). */
  bundle(body: StoredBody): AssembledBody {
    const identity = `stored:${body.etag}`;
    return { length: body.length, identity, etag: body.etag, assemble: () => this.#assemble(identity, { kind: 'assemble', etag: body.etag }, () => assembleBody(this.out, body)) };
  }

  /** The bytes of `identity`: a copy kept as sent, else `join` run at most `assemblies` at a time, once for all concurrent callers. */
  #assemble(identity: string, event: WorkEvent, join: () => Promise<Buffer>): Promise<Buffer> {
    const kept = this.bodies.keptPlain(identity);
    if (kept) return Promise.resolve(kept);
    return this.#assembling.run(identity, () =>
      this.#assemblies.run(() => {
        this.#observe(event);
        return join();
      }),
    );
  }

  stats(): CatalogStats {
    return {
      memory: {
        bodies: this.bodies.stats(),
        composed: this.composed.stats().memory,
        files: this.#files.stats(),
        stateRoots: this.#roots.stats(),
        indexChunks: this.#indexChunks.stats(),
        manifestChunks: this.#manifestChunks.stats(),
        recordChunks: this.#recordChunks.stats(),
        transitiveChunks: this.#transitiveChunks.stats(),
      },
      disk: this.#disk.stats(),
      work: { assemblies: this.#assemblies.stats(), compressions: this.#compressions.stats(), compositions: this.#compositions.stats() },
    };
  }

  /** Every cache by name (snake case, for the metrics' `cache` label), with its lookups where it counts them. */
  cacheFigures(): Record<string, CacheStats & Partial<CacheLookups>> {
    const disk = this.#disk.stats();
    return {
      bodies: { ...this.bodies.stats(), ...this.bodies.lookups() },
      composed: { ...this.composed.stats().memory, ...this.composed.lookups() },
      files: { ...this.#files.stats(), ...this.#files.lookups() },
      state_roots: { ...this.#roots.stats(), ...this.#roots.lookups() },
      index_chunks: { ...this.#indexChunks.stats(), ...this.#indexChunks.lookups() },
      manifest_chunks: { ...this.#manifestChunks.stats(), ...this.#manifestChunks.lookups() },
      record_chunks: { ...this.#recordChunks.stats(), ...this.#recordChunks.lookups() },
      transitive_chunks: { ...this.#transitiveChunks.stats(), ...this.#transitiveChunks.lookups() },
      composed_disk: { entries: disk.files, bytes: disk.bytes, maxBytes: disk.maxBytes },
    };
  }

  /**
   * The anonymous file `file` of a release (src/store/manifest.ts): its bytes at the release's tip,
   * and a name these bytes always have (its object, and the tip when the tip's values are in it).
   * Null when the release has no such file. Both never change, so the bytes are kept (small
   * documents only, bounded by size, with the objects).
   */
  async releaseDocument(release: Release, file: string): Promise<ReleaseDocument | null> {
    const ref = findChunk(release.manifest, file);
    if (!ref || !release.info.tip) return null;
    const chunk = await this.#manifestChunks.get(ref.object, async () => {
      const bytes = await this.#object(ref.object);
      return { size: bytes.length, entries: parseManifestChunk(bytes) };
    });
    const entry = Object.hasOwn(chunk!.entries, file) ? chunk!.entries[file] : null;
    if (!entry) return null;
    const tip = release.info.tip;
    const name = carriesTip(entry) ? `${entry.object}.${tip.sha}.${file}` : entry.object;
    const bytes = async () => documentBytes(entry, await this.#object(entry.object), tip, file, { records: (key) => this.#tipRecord(tip.sha, key), object: (hash) => this.#object(hash) });
    if (entry.joined && entry.length !== undefined) {
      const identity = `document:${name}`;
      return { name, body: { length: entry.length, identity, stableName: name, assemble: () => this.#assemble(identity, { kind: 'join', file }, bytes) } };
    }
    const kept = await this.#files.get(`document:${name}`, async () => ({ bytes: await bytes() }));
    return { name, bytes: kept!.bytes! };
  }

  /**
   * The bytes stored under an object's hash, or one of its precompressed copies; null when there
   * are none. An object a published state refers
   * to was written with its copies before that state, and never changes, so both answers are
   * kept (small objects only, bounded by size, with the write-once files).
   */
  async storedObject(hash: string, encoding: ObjectEncoding = 'identity'): Promise<Buffer | null> {
    const entry = await this.#files.get(`object:${encoding}:${hash}`, async () => ({ bytes: await this.objects.get(hash, encoding) }));
    return entry!.bytes;
  }

  /** The bytes of a stored object that a state refers to. */
  async #object(hash: string): Promise<Buffer> {
    const bytes = await this.storedObject(hash);
    if (!bytes) throw new Error(`object ${hash} is missing from the object store`);
    return bytes;
  }

  /** The state root of commit `sha`, parsed; write-once, so a parsed root is kept. Null when never built. */
  async stateRoot(sha: string): Promise<StateRoot | null> {
    const kept = await this.#roots.get(sha, async () => {
      const stored = await this.objects.getRoot(sha);
      if (stored === null) return null;
      const text = stored.toString('utf8');
      return { size: text.length, root: hydrateStateRoot(JSON.parse(text) as StateRootFile) };
    });
    return kept?.root ?? null;
  }

  /** The package-index entry of `key` at a commit (layout.ts lookupPackage), with the parsed chunk kept. */
  async packageEntry(root: StateRoot, key: string): Promise<PackageIndexEntry | null> {
    const chunk = findChunk(root.packages, key);
    if (!chunk) return null;
    const { entries } = (await this.#indexChunks.get(chunk.object, async () => {
      const bytes = await this.#object(chunk.object);
      return { size: bytes.length, entries: JSON.parse(bytes.toString('utf8')) as Record<string, PackageIndexEntry> };
    }))!;
    return Object.hasOwn(entries, key) ? entries[key] : null;
  }

  /** The record of `key` at the tip `sha` (a floating SBOM's components). */
  async #tipRecord(sha: string, key: string): Promise<PackageRecord | null> {
    const root = await this.stateRoot(sha);
    if (!root) throw new Error(`the release's tip ${sha} has no state in the object store`);
    return this.record(root, key);
  }

  /** The composed record of `key` at a commit (as in its full bundle), or null when the package is not there. */
  async record(root: StateRoot, key: string): Promise<PackageRecord | null> {
    const chunk = findChunk(root.records, key);
    if (!chunk) return null;
    const { items } = (await this.#recordChunks.get(chunk.object, async () => this.#parsed(chunk, recordsOfChunk)))!;
    return items.get(key) ?? null;
  }

  /** The transitive advisory entries whose path starts at `key`, at a commit (empty when none). */
  async transitive(root: StateRoot, key: string): Promise<TransitiveAdvisory[]> {
    const chunk = findChunk(root.transitive, key);
    if (!chunk) return [];
    const { items } = (await this.#transitiveChunks.get(chunk.object, async () => this.#parsed(chunk, transitiveOfChunk)))!;
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
