/**
 * The gateway's caches, all on one library (`lru-cache`), each bounded by bytes: compressed and
 * assembled bodies, composed bodies, parsed state roots and chunks, small files, facts about
 * files. What they hold never changes once computed (write-once files and what follows from
 * them), so a cache is only ever a question of memory, never of staleness.
 */
import { LRUCache } from 'lru-cache';

/** What a cache holds, for the health endpoint and the tests: `bytes` never exceeds `maxBytes`. */
export interface CacheStats {
  readonly entries: number;
  readonly bytes: number;
  readonly maxBytes: number;
}

/** Lookups answered from memory, and lookups that found nothing (for the metrics' hit ratios). */
export interface CacheLookups {
  readonly hits: number;
  readonly misses: number;
}

/**
 * Bytes that own their memory, for keeping. A small Buffer is often a view into a shared 8 KiB
 * pool slab (Buffer.from, Buffer.concat, zlib's output), and keeping the view would keep the whole
 * slab: a cache counting the view's length would hold several times its bound.
 */
export function ownBytes(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  const own = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(own);
  return own;
}

/**
 * Runs `load` once per key at a time: concurrent callers of the same key share one promise
 * (one compression, one assembly, one composition), and a failure is not remembered.
 */
export class Once<V> {
  readonly #running = new Map<string, Promise<V>>();

  run(key: string, load: () => Promise<V>): Promise<V> {
    const running = this.#running.get(key);
    if (running) return running;
    const promise = load().finally(() => this.#running.delete(key));
    this.#running.set(key, promise);
    return promise;
  }
}

export interface BoundedCacheOptions<V> {
  /** Total bytes the cache may hold. */
  readonly maxBytes: number;
  /** The bytes a value takes (with its key); at least 1 is counted. */
  readonly sizeOf: (value: V, key: string) => number;
  /** A value larger than this is not kept (default: `maxBytes`: one entry never empties the cache). */
  readonly maxEntryBytes?: number;
  /** Called when a value is pushed out to make room (not when it is replaced or deleted). */
  readonly onEvict?: (value: V, key: string) => void;
}

/** An LRU map bounded by the total size of its values. */
export class BoundedCache<V extends {}> {
  readonly #lru: LRUCache<string, V>;
  readonly #maxBytes: number;
  #hits = 0;
  #misses = 0;

  constructor(options: BoundedCacheOptions<V>) {
    const { sizeOf, onEvict } = options;
    this.#maxBytes = options.maxBytes;
    this.#lru = new LRUCache<string, V>({
      maxSize: Math.max(1, Math.floor(options.maxBytes)),
      maxEntrySize: Math.max(1, Math.floor(options.maxEntryBytes ?? options.maxBytes)),
      sizeCalculation: (value, key) => Math.max(1, Math.ceil(sizeOf(value, key))),
      ...(onEvict ? { dispose: (value: V, key: string, reason: LRUCache.DisposeReason) => reason === 'evict' && onEvict(value, key) } : {}),
    });
  }

  get(key: string): V | undefined {
    const value = this.#lru.get(key);
    if (value === undefined) this.#misses += 1;
    else this.#hits += 1;
    return value;
  }

  /** Keeps `value` unless it is larger than an entry may be; may push out the least recently used. */
  set(key: string, value: V): void {
    this.#lru.set(key, value);
  }

  delete(key: string): void {
    this.#lru.delete(key);
  }

  stats(): CacheStats {
    return { entries: this.#lru.size, bytes: this.#lru.calculatedSize, maxBytes: this.#maxBytes };
  }

  lookups(): CacheLookups {
    return { hits: this.#hits, misses: this.#misses };
  }
}

/**
 * A BoundedCache filled through Once: `get(key, load)` answers from memory, or runs `load` once
 * for all concurrent callers of that key and keeps what it returns. Null (nothing there) is
 * returned and not kept; a value larger than `maxEntryBytes` is returned and not kept.
 */
export class OnceCache<V extends {}> {
  readonly #cache: BoundedCache<V>;
  readonly #once = new Once<V | null>();

  constructor(options: BoundedCacheOptions<V>) {
    this.#cache = new BoundedCache(options);
  }

  get(key: string, load: () => Promise<V | null>): Promise<V | null> {
    const hit = this.#cache.get(key);
    if (hit !== undefined) return Promise.resolve(hit);
    return this.#once.run(key, async () => {
      const value = await load();
      if (value !== null) this.#cache.set(key, value);
      return value;
    });
  }

  /** The value kept for `key` (marked as just used), without loading it. */
  peek(key: string): V | undefined {
    return this.#cache.get(key);
  }

  delete(key: string): void {
    this.#cache.delete(key);
  }

  stats(): CacheStats {
    return this.#cache.stats();
  }

  lookups(): CacheLookups {
    return this.#cache.lookups();
  }
}

export { Semaphore } from '../src/concurrency.ts';
