/**
 * Keyed collections stored as content-addressed chunks, so that a commit costs space in
 * proportion to what it changed rather than to the catalog's size (like git's trees).
 *
 * Items are kept in key order. A chunk ends after every key whose hash is 0 modulo the
 * collection's spread, so boundaries depend only on the keys present: adding or removing a package
 * rewrites one or two chunks, and a build from scratch cuts the same chunks as an incremental one.
 */
import { createHash } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { memoizedOn } from '../src/memo.ts';
import { contentHash } from '../src/store/hash.ts';
import { lowerBound } from '../src/sorted.ts';
import type { ObjectStore } from './objects.ts';
import type { ChunkRef } from '../src/store/layout.ts';

/** About one chunk boundary every CHUNK_SPREAD keys, unless a collection says otherwise. */
const CHUNK_SPREAD = 32;

/** Whether `key` ends a chunk of a collection cut about every `spread` keys (made for a key when the cut is, and for a key that comes or goes). */
const endsChunk = (key: string, spread: number): boolean => createHash('sha1').update(key).digest().readUInt32BE(0) % spread === 0;

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

/** A run of consecutive keys stored as one object (null: it rendered empty; undefined: not stored since it changed). */
interface Chunk {
  keys: string[];
  object: string | null | undefined;
}

/** The index of the first chunk whose last key is not before `key` (layout.length: none). */
const chunkAtOrAfter = (layout: readonly Chunk[], key: string): number => lowerBound(layout.length, (index) => layout[index].keys.at(-1)! < key);

/** The index of the first of the sorted `keys` not before `key`. */
const sortedIndex = (keys: readonly string[], key: string): number => lowerBound(keys.length, (index) => keys[index] < key);

/** The chunk that holds `key`, if one does: found by its keys, where a map of every key to its chunk held a reference per key. */
function chunkHolding(layout: readonly Chunk[], key: string): Chunk | undefined {
  const chunk = layout[chunkAtOrAfter(layout, key)];
  return chunk?.keys[sortedIndex(chunk.keys, key)] === key ? chunk : undefined;
}

/**
 * A collection of items rendered into chunks by `render` (e.g. comma-joined JSON items for a
 * bundle array, or a JSON object for an index). Empty renders are not stored.
 *
 * Once laid out, the chunks follow each key that comes or goes where it falls: the chunk that
 * takes it is split at a new boundary key, and a chunk whose boundary key goes runs on into the
 * next. That gives the cut a from-scratch layout would, at the cost of one chunk, not of sorting
 * every key (a 20,000-package release's manifest has 121,000 paths, its input table 200,000 names).
 */
export class ChunkedCollection<T> {
  readonly items: ItemStore<T>;
  private readonly render: (entries: [string, T][]) => string;
  /** Keys whose item changed since the last flush. */
  private readonly dirty = new Set<string>();
  /** The chunks of the current keys, in key order; null until the first flush cuts them. */
  private layout: Chunk[] | null = null;

  /** About one chunk boundary every `spread` keys. */
  readonly #spread: number;

  /** The keys set since `noteSets` was last called; null before it is (nothing is noted). */
  #noted: Set<string> | null = null;

  /** `store`: where the items are kept (default: a Map). */
  constructor(render: (entries: [string, T][]) => string, items?: Iterable<[string, T]>, store: ItemStore<T> = new Map(), spread = CHUNK_SPREAD) {
    this.render = render;
    this.#spread = spread;
    this.items = store;
    for (const [key, item] of items ?? []) this.items.set(key, item);
  }

  /**
   * The collection as it was stored (its chunks in key order, each with its object and items), so
   * that only the chunks whose items then change are rendered and stored again.
   */
  static stored<T>(render: (entries: [string, T][]) => string, chunks: readonly { object: string; entries: [string, T][] }[]): ChunkedCollection<T> {
    const collection = new ChunkedCollection(render);
    collection.layout = chunks.map(({ object, entries }) => {
      for (const [key, item] of entries) collection.items.set(key, item);
      return { keys: entries.map(([key]) => key), object };
    });
    return collection;
  }

  set(key: string, item: T | null): void {
    const had = this.items.has(key);
    if (item === null) this.items.delete(key);
    else this.items.set(key, item);
    if (this.layout && had !== (item !== null)) {
      if (item === null) this.remove(this.layout, key);
      else this.insert(this.layout, key);
    }
    this.dirty.add(key);
    this.#noted?.add(key);
  }

  /**
   * Notes the key of every item set from now on (the keys noted so far are let go): a builder that
   * stays up asks which items a release's commits may have changed (build/build.ts).
   */
  noteSets(): void {
    this.#noted = new Set();
  }

  /** The keys set since `noteSets`, each of which may have another item now; null when nothing is noted. */
  get noted(): ReadonlySet<string> | null {
    return this.#noted;
  }

  /**
   * Writes the chunks that changed and returns every non-empty chunk, in key order. Costs what
   * changed: the chunks are cut once and then follow the keys that come and go.
   */
  async flush(store: ObjectStore): Promise<ChunkRef[]> {
    const layout = (this.layout ??= this.cut());
    for (const key of this.dirty) {
      const chunk = chunkHolding(layout, key);
      if (chunk) chunk.object = undefined;
    }
    this.dirty.clear();
    for (const chunk of layout.filter(({ object }) => object === undefined)) {
      const text = this.#text(chunk);
      chunk.object = text === '' ? null : await store.put(text);
    }
    return this.refs(layout);
  }

  /** Each stored chunk's object and text, rendered again from the items (the bytes the last flush stored under that object). */
  *chunkTexts(): Generator<[object: string, text: string]> {
    for (const chunk of this.layout ?? []) {
      if (chunk.object) yield [chunk.object, this.#text(chunk)];
    }
  }

  /** A chunk's text, rendered from its items. */
  #text(chunk: Chunk): string {
    return this.render(chunk.keys.map((key) => [key, this.items.get(key)!]));
  }

  /**
   * The chunks as the last flush stored them, in key order, for a checkpoint to keep beside the
   * items; null when items changed since (then only a flush knows them).
   */
  flushed(): ChunkRef[] | null {
    const layout = this.layout;
    if (!layout || this.dirty.size > 0 || layout.some((chunk) => chunk.object === undefined)) return null;
    return this.refs(layout);
  }

  /**
   * Takes back what `flushed` gave for these very items (a restored checkpoint), so that the next
   * flush renders and stores only the chunks whose items change, not every chunk once more. The
   * cut follows from the keys alone, so it is the one those chunks were stored with.
   */
  adopt(refs: readonly ChunkRef[]): void {
    const layout = (this.layout = this.cut());
    // Only the chunks of this very cut: another pkgcat may have cut at other boundaries (and a chunk
    // that rendered empty has no ref). Otherwise every chunk is rendered again, once.
    if (refs.length !== layout.length || refs.some((ref, index) => ref.first !== layout[index].keys[0])) return;
    layout.forEach((chunk, index) => (chunk.object = refs[index].object));
  }

  private refs(layout: readonly Chunk[]): ChunkRef[] {
    return layout.flatMap((chunk) => (chunk.object ? [{ first: chunk.keys[0], object: chunk.object }] : []));
  }

  /** Cuts every key into chunks, none of them stored yet: a chunk ends after each key that ends one, and at the last key. */
  private cut(): Chunk[] {
    const keys = [...this.items.keys()].sort();
    const layout: Chunk[] = [];
    let start = 0;
    for (let index = 0; index < keys.length; index++) {
      if (index < keys.length - 1 && !endsChunk(keys[index], this.#spread)) continue;
      layout.push({ keys: keys.slice(start, index + 1), object: undefined });
      start = index + 1;
    }
    return layout;
  }

  /** A new key joins the chunk of the first key after it, or the last chunk; it ends that chunk there if it ends chunks. */
  private insert(layout: Chunk[], key: string): void {
    let index = chunkAtOrAfter(layout, key);
    const last = layout[layout.length - 1];
    if (index === layout.length && (!last || endsChunk(last.keys[last.keys.length - 1], this.#spread))) {
      // After every key, and the last chunk ends at a boundary (or there is none): a chunk of its own.
      layout.push({ keys: [key], object: undefined });
      return;
    }
    index = Math.min(index, layout.length - 1);
    const chunk = layout[index];
    const at = sortedIndex(chunk.keys, key);
    chunk.keys.splice(at, 0, key);
    chunk.object = undefined;
    if (endsChunk(key, this.#spread) && at < chunk.keys.length - 1) layout.splice(index + 1, 0, { keys: chunk.keys.splice(at + 1), object: undefined });
  }

  /** A key that goes leaves its chunk; when it ended that chunk, the chunk runs on into the next. */
  private remove(layout: Chunk[], key: string): void {
    const index = chunkAtOrAfter(layout, key);
    const chunk = layout[index];
    const at = sortedIndex(chunk.keys, key);
    chunk.keys.splice(at, 1);
    if (chunk.keys.length === 0) {
      // It was the chunk's only key: the chunks around it keep their keys, and their objects.
      layout.splice(index, 1);
      return;
    }
    chunk.object = undefined;
    if (at === chunk.keys.length && index < layout.length - 1) {
      chunk.keys.push(...layout[index + 1].keys);
      layout.splice(index + 1, 1);
    }
  }
}
