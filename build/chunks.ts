/**
 * Keyed collections stored as content-addressed chunks, so that a commit costs space in
 * proportion to what it changed rather than to the catalog's size (like git's trees).
 *
 * Items are kept in key order. A chunk ends after every key whose hash is 0 modulo
 * CHUNK_SPREAD, so boundaries depend only on the keys present: adding or removing a package
 * rewrites one or two chunks, and a build from scratch cuts the same chunks as an incremental one.
 */
import { createHash } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { memoizedOn } from '../src/memo.ts';
import { contentHash } from '../src/store/hash.ts';
import type { ObjectStore } from './objects.ts';
import type { ChunkRef } from '../src/store/layout.ts';

/** About one chunk boundary every CHUNK_SPREAD keys. */
const CHUNK_SPREAD = 32;

const boundaries = new Map<string, boolean>();

function endsChunk(key: string): boolean {
  let ends = boundaries.get(key);
  if (ends === undefined) {
    ends = createHash('sha1').update(key).digest().readUInt32BE(0) % CHUNK_SPREAD === 0;
    boundaries.set(key, ends);
  }
  return ends;
}

export type { ChunkRef };

/** Where a collection keeps its items: a Map, or PackedStrings for large text. */
export interface ItemStore<T> extends ReadonlyMap<string, T> {
  set(key: string, item: T): unknown;
  delete(key: string): boolean;
}

/** Text items that tell the digest of each (a document's key reads its inputs' digests). */
export interface DigestedTexts extends ReadonlyMap<string, string> {
  /** The same for the same text, different for different texts; undefined when the key has no item. */
  digest(key: string): string | undefined;
}

/** The digest of a text kept as it is. */
const textDigest = (text: string): string => contentHash(`text:${text}`);

/**
 * Text items in a Map, each one's digest made once and kept until the item changes: a release
 * reads the digest of every record of the catalog, and a commit changes a few of them.
 */
export class HashedStrings extends Map<string, string> implements ItemStore<string>, DigestedTexts {
  readonly #digests = new Map<string, string>();

  override set(key: string, text: string): this {
    // Called by Map's constructor before the field exists: this class is made empty.
    this.#digests?.delete(key);
    return super.set(key, text);
  }

  override delete(key: string): boolean {
    this.#digests.delete(key);
    return super.delete(key);
  }

  override clear(): void {
    this.#digests.clear();
    super.clear();
  }

  digest(key: string): string | undefined {
    let digest = this.#digests.get(key);
    if (digest === undefined) {
      const text = this.get(key);
      if (text === undefined) return undefined;
      this.#digests.set(key, (digest = textDigest(text)));
    }
    return digest;
  }
}

/** What a deflated item's digest is made from besides its bytes (a text item's is `text:`). */
const DEFLATED = Buffer.from('deflated:');

/** Text items from this length on are kept deflated. */
const PACK_FROM = 1024;

/**
 * Text items kept deflated in memory, and inflated each time one is read (a chunk's items when
 * it is written again; each one once when a release is published). The transitive rollups of
 * 20,000 packages are 320 MB of JSON text, which deflates to 11 MB (a rollup repeats its paths).
 */
export class PackedStrings implements ItemStore<string>, DigestedTexts {
  readonly #items = new Map<string, string | Uint8Array>();
  /** Each deflated item's digest, made once: an item is replaced, never changed in place. */
  readonly #deflatedDigest = memoizedOn((item: Uint8Array) => contentHash(Buffer.concat([DEFLATED, item])));

  constructor(items?: Iterable<[string, string]>) {
    for (const [key, text] of items ?? []) this.set(key, text);
  }

  get(key: string): string | undefined {
    const item = this.#items.get(key);
    return item === undefined || typeof item === 'string' ? item : inflateRawSync(item).toString('utf8');
  }

  set(key: string, text: string): this {
    // Copied out: zlib's result is a view of its 16 KiB output buffer, which it would keep alive.
    this.#items.set(key, text.length >= PACK_FROM ? new Uint8Array(deflateRawSync(text, { level: 1 })) : text);
    return this;
  }

  has(key: string): boolean {
    return this.#items.has(key);
  }

  /**
   * A digest of the item's text made from its stored form, without inflating it: deflate gives
   * one zlib the same bytes for the same text, so equal texts have equal digests and different
   * texts different ones (what a document's key needs of its inputs).
   */
  digest(key: string): string | undefined {
    const item = this.#items.get(key);
    return item === undefined ? undefined : typeof item === 'string' ? textDigest(item) : this.#deflatedDigest(item);
  }

  /** The item as it is kept (text, or its deflated bytes), for a checkpoint to save without inflating it. */
  stored(key: string): string | Uint8Array | undefined {
    return this.#items.get(key);
  }

  /** Takes an item as `stored` gave it. */
  setStored(key: string, item: string | Uint8Array): this {
    this.#items.set(key, item);
    return this;
  }

  delete(key: string): boolean {
    return this.#items.delete(key);
  }

  get size(): number {
    return this.#items.size;
  }

  keys(): MapIterator<string> {
    return this.#items.keys();
  }

  entries(): MapIterator<[string, string]> {
    return this.#read((key): [string, string] => [key, this.get(key)!]);
  }

  values(): MapIterator<string> {
    return this.#read((key) => this.get(key)!);
  }

  /** Each item, inflated as the walk reaches it (never all at once). */
  #read<V>(of: (key: string) => V): MapIterator<V> {
    const keys = this.#items.keys();
    return (function* () {
      for (const key of keys) yield of(key);
    })() as unknown as MapIterator<V>;
  }

  forEach(callback: (text: string, key: string, map: ReadonlyMap<string, string>) => void): void {
    for (const [key, text] of this.entries()) callback(text, key, this);
  }

  [Symbol.iterator](): MapIterator<[string, string]> {
    return this.entries();
  }
}

/**
 * A collection of items rendered into chunks by `render` (e.g. comma-joined JSON items for a
 * bundle array, or a JSON object for an index). Empty renders are not stored.
 */
export class ChunkedCollection<T> {
  readonly items: ItemStore<T>;
  private readonly render: (entries: [string, T][]) => string;
  private readonly dirty = new Set<string>();
  /** The chunks of the current keys, in key order, each with its object (null: empty; undefined: not stored yet). */
  private layout: { keys: string[]; object: string | null | undefined }[] = [];
  /** The index in `layout` of each key's chunk. */
  private readonly chunkOf = new Map<string, number>();
  /** Whether a key came or went since the layout was cut (a commit usually only changes items). */
  private keysChanged = true;

  /** `store`: where the items are kept (default: a Map). */
  constructor(render: (entries: [string, T][]) => string, items?: Iterable<[string, T]>, store: ItemStore<T> = new Map()) {
    this.render = render;
    this.items = store;
    for (const [key, item] of items ?? []) this.items.set(key, item);
  }

  /**
   * The collection as it was stored (its chunks in key order, each with its object and items), so
   * that only the chunks whose items then change are rendered and stored again.
   */
  static stored<T>(render: (entries: [string, T][]) => string, chunks: readonly { object: string; entries: [string, T][] }[]): ChunkedCollection<T> {
    const collection = new ChunkedCollection(render);
    for (const { object, entries } of chunks) {
      for (const [key, item] of entries) {
        collection.items.set(key, item);
        collection.chunkOf.set(key, collection.layout.length);
      }
      collection.layout.push({ keys: entries.map(([key]) => key), object });
    }
    collection.keysChanged = false;
    return collection;
  }

  set(key: string, item: T | null): void {
    const had = this.items.has(key);
    if (item === null) this.items.delete(key);
    else this.items.set(key, item);
    if (had !== (item !== null)) this.keysChanged = true;
    this.dirty.add(key);
  }

  /**
   * Writes the chunks that changed and returns every non-empty chunk, in key order. Costs what
   * changed: the key order and the cut are kept until a key comes or goes.
   */
  async flush(store: ObjectStore): Promise<ChunkRef[]> {
    if (this.keysChanged) this.cut();
    const stale = new Set<number>();
    this.layout.forEach((chunk, index) => {
      if (chunk.object === undefined) stale.add(index);
    });
    for (const key of this.dirty) {
      const index = this.chunkOf.get(key);
      if (index !== undefined) stale.add(index);
    }
    for (const index of stale) {
      const chunk = this.layout[index];
      const text = this.render(chunk.keys.map((key) => [key, this.items.get(key)!]));
      chunk.object = text === '' ? null : await store.put(text);
    }
    this.dirty.clear();
    return this.layout.flatMap((chunk) => (chunk.object ? [{ first: chunk.keys[0], object: chunk.object }] : []));
  }

  /**
   * The chunks as the last flush stored them, in key order, for a checkpoint to keep beside the
   * items; null when items changed since (then only a flush knows them).
   */
  flushed(): ChunkRef[] | null {
    if (this.dirty.size > 0 || this.keysChanged || this.layout.some((chunk) => chunk.object === undefined)) return null;
    return this.layout.flatMap((chunk) => (chunk.object ? [{ first: chunk.keys[0], object: chunk.object }] : []));
  }

  /**
   * Takes back what `flushed` gave for these very items (a restored checkpoint), so that the next
   * flush renders and stores only the chunks whose items change, not every chunk once more. The
   * cut follows from the keys alone, so it is the one those chunks were stored with.
   */
  adopt(refs: readonly ChunkRef[]): void {
    this.cut();
    const objects = new Map(refs.map((ref) => [ref.first, ref.object]));
    // A chunk that rendered empty is stored as none: rendered again, once.
    for (const chunk of this.layout) chunk.object = objects.get(chunk.keys[0]);
  }

  /** Cuts the keys into chunks, keeping the object of every chunk whose key list is unchanged. */
  private cut(): void {
    const previous = new Map(this.layout.map((chunk) => [chunk.keys.join('\n'), chunk.object]));
    const keys = [...this.items.keys()].sort();
    this.layout = [];
    this.chunkOf.clear();
    let start = 0;
    for (let index = 0; index < keys.length; index++) {
      if (index < keys.length - 1 && !endsChunk(keys[index])) continue;
      const chunkKeys = keys.slice(start, index + 1);
      start = index + 1;
      for (const key of chunkKeys) this.chunkOf.set(key, this.layout.length);
      this.layout.push({ keys: chunkKeys, object: previous.get(chunkKeys.join('\n')) });
    }
    this.keysChanged = false;
  }
}
