/**
 * Keyed collections stored as content-addressed chunks, so that a commit costs space in
 * proportion to what it changed rather than to the catalog's size (like git's trees).
 *
 * Items are kept in key order. A chunk ends after every key whose hash is 0 modulo
 * CHUNK_SPREAD, so boundaries depend only on the keys present: adding or removing a package
 * rewrites one or two chunks, and a build from scratch cuts the same chunks as an incremental one.
 */
import { createHash } from 'node:crypto';
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

/**
 * A collection of items rendered into chunks by `render` (e.g. comma-joined JSON items for a
 * bundle array, or a JSON object for an index). Empty renders are not stored.
 */
export class ChunkedCollection<T> {
  readonly items = new Map<string, T>();
  private readonly render: (entries: [string, T][]) => string;
  private readonly dirty = new Set<string>();
  /** Chunks of the last flush, by their key list. */
  private previous = new Map<string, string | null>();

  constructor(render: (entries: [string, T][]) => string, items?: Iterable<[string, T]>) {
    this.render = render;
    for (const [key, item] of items ?? []) this.items.set(key, item);
  }

  set(key: string, item: T | null): void {
    if (item === null) this.items.delete(key);
    else this.items.set(key, item);
    this.dirty.add(key);
  }

  /** Writes the chunks that changed and returns every non-empty chunk, in key order. */
  async flush(store: ObjectStore): Promise<ChunkRef[]> {
    const keys = [...this.items.keys()].sort();
    const refs: ChunkRef[] = [];
    const current = new Map<string, string | null>();
    let start = 0;
    for (let index = 0; index < keys.length; index++) {
      if (index < keys.length - 1 && !endsChunk(keys[index])) continue;
      const chunkKeys = keys.slice(start, index + 1);
      start = index + 1;
      const signature = chunkKeys.join('\n');
      let object = this.previous.get(signature);
      if (object === undefined || chunkKeys.some((key) => this.dirty.has(key))) {
        const text = this.render(chunkKeys.map((key) => [key, this.items.get(key)!]));
        object = text === '' ? null : await store.put(text);
      }
      current.set(signature, object);
      if (object !== null) refs.push({ first: chunkKeys[0], object });
    }
    this.previous = current;
    this.dirty.clear();
    return refs;
  }
}
