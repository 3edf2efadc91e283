/**
 * A small least-recently-used map bounded by total size (bytes, or entries with size 1), for
 * values that never change once computed: compressed bodies behind an ETag, composed diffs,
 * parsed state roots. Map iteration order is insertion order, so the first key is the oldest.
 */
export class Lru<V> {
  readonly #entries = new Map<string, { value: V; size: number }>();
  readonly #maxSize: number;
  readonly #sizeOf: (value: V) => number;
  #size = 0;

  constructor(maxSize: number, sizeOf: (value: V) => number = () => 1) {
    this.#maxSize = maxSize;
    this.#sizeOf = sizeOf;
  }

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V): void {
    const size = this.#sizeOf(value);
    const old = this.#entries.get(key);
    if (old) {
      this.#entries.delete(key);
      this.#size -= old.size;
    }
    // A value larger than the whole cache is not kept: it would evict everything for one entry.
    if (size > this.#maxSize) return;
    this.#entries.set(key, { value, size });
    this.#size += size;
    for (const [oldest, entry] of this.#entries) {
      if (this.#size <= this.#maxSize) break;
      this.#entries.delete(oldest);
      this.#size -= entry.size;
    }
  }

  get size(): number {
    return this.#size;
  }
}

/**
 * Runs `load` once per key at a time: concurrent callers of the same key share one promise
 * (one compression, one diff composition), and a failure is not remembered.
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

/**
 * An Lru filled through Once: `get(key, load)` answers from memory, or runs `load` once for all
 * concurrent callers of that key and keeps what it returns (when `keep` says so).
 */
export class OnceCache<V> {
  readonly #lru: Lru<V>;
  readonly #once = new Once<V>();

  constructor(maxSize: number, sizeOf?: (value: V) => number) {
    this.#lru = new Lru<V>(maxSize, sizeOf);
  }

  get(key: string, load: () => Promise<V>, keep: (value: V) => boolean = () => true): Promise<V> {
    const hit = this.#lru.get(key);
    if (hit !== undefined) return Promise.resolve(hit);
    return this.#once.run(key, async () => {
      const value = await load();
      if (keep(value)) this.#lru.set(key, value);
      return value;
    });
  }

  get size(): number {
    return this.#lru.size;
  }
}
