/**
 * The composer's large text items are kept deflated in memory (build/chunks.ts PackedStrings):
 * what is read back is exactly what was set, in the order it was set, however long. A document
 * that read a rollup is kept while the rollup's digest stays the same, so the digest must follow
 * the text exactly: the same after a checkpoint keeps the item as stored, another when one
 * character changes. The same holds for the records (HashedStrings), whose digests are kept until
 * the item changes: a digest kept past a change would keep a document made from the old record.
 *
 * A keyed collection (a release's manifest, its input table, the composer's records) is stored in
 * chunks whose boundaries depend only on the keys present, so a build from scratch and one that
 * went commit by commit store the same chunks, and a path that comes or goes rewrites the chunk it
 * falls in, not the collection.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ChunkedCollection, HashedStrings, PackedStrings } from '../../build/chunks.ts';
import { ObjectStore } from '../../build/objects.ts';
import { renderKeyedChunk } from '../../src/store/manifest.ts';
import { temporaryDirectory } from '../helpers/catalog.ts';

describe('PackedStrings', () => {
  it('gives back every item exactly, short or long, ASCII or not, in insertion order', () => {
    const long = `{"advisoryId":"OSV-1","culpritPath":["a","b","c"]},`.repeat(2000) + 'é ✓ 😀';
    const items = new PackedStrings([
      ['short', '{"advisoryId":"X","culpritPath":["p","q"]}'],
      ['long', long],
    ]);
    items.set('unicode', 'ü'.repeat(3000));
    expect(items.get('long')).toBe(long);
    expect([...items]).toEqual([
      ['short', '{"advisoryId":"X","culpritPath":["p","q"]}'],
      ['long', long],
      ['unicode', 'ü'.repeat(3000)],
    ]);
    expect([...items.keys()]).toEqual(['short', 'long', 'unicode']);
    expect(items.size).toBe(3);
    items.delete('long');
    expect(items.has('long')).toBe(false);
    expect(items.get('long')).toBeUndefined();
    expect([...items.values()]).toEqual(['{"advisoryId":"X","culpritPath":["p","q"]}', 'ü'.repeat(3000)]);
  });

  it('gives one digest per text: the same for a copy taken as stored (a checkpoint), another for any other text', () => {
    const rollup = `{"advisoryId":"OSV-1","culpritPath":["a","b","c"]},`.repeat(100);
    const items = new PackedStrings([['long', rollup], ['short', '{"advisoryId":"X"}']]);
    const restored = new PackedStrings();
    for (const key of items.keys()) restored.setStored(key, items.stored(key)!);
    expect(restored.get('long')).toBe(rollup);
    expect(restored.digest('long')).toBe(items.digest('long'));
    expect(restored.digest('short')).toBe(items.digest('short'));
    const changed = new PackedStrings([['long', rollup.replace('OSV-1', 'OSV-2')], ['short', '{"advisoryId":"Y"}']]);
    expect(changed.digest('long')).not.toBe(items.digest('long'));
    expect(changed.digest('short')).not.toBe(items.digest('short'));
    expect(items.digest('absent')).toBeUndefined();
  });

  it('changes an item\'s digest in place when a packed item is replaced, and keeps it while the item stays', () => {
    const items = new PackedStrings([['long', 'a'.repeat(5000)]]);
    const before = items.digest('long');
    expect(items.digest('long')).toBe(before);
    items.set('long', 'b'.repeat(5000));
    expect(items.digest('long')).not.toBe(before);
    items.set('long', 'a'.repeat(5000));
    expect(items.digest('long')).toBe(before);
  });
});

describe('HashedStrings', () => {
  it('gives the digest of the text it holds now: another once the item is set again, none once it is gone', () => {
    const records = new HashedStrings();
    records.set('curl', '{"name":"curl","version":"8.0.0"}');
    const first = records.digest('curl');
    // As a short packed item of the same text: one definition of a text's digest.
    expect(first).toBe(new PackedStrings([['curl', '{"name":"curl","version":"8.0.0"}']]).digest('curl'));
    records.set('curl', '{"name":"curl","version":"8.1.0"}');
    expect(records.digest('curl')).not.toBe(first);
    records.set('curl', '{"name":"curl","version":"8.0.0"}');
    expect(records.digest('curl')).toBe(first);
    records.delete('curl');
    expect(records.digest('curl')).toBeUndefined();
    records.set('curl', '{"name":"curl","version":"9.0.0"}');
    records.clear();
    expect([records.size, records.digest('curl')]).toEqual([0, undefined]);
  });
});

/** A manifest-like path per number, so that keys sort unlike their numbers. */
const path = (n: number) => `site/packages/package-${n}/index.html`;

const stores: ObjectStore[] = [];
// A test's writes end with it: its directory is removed after the file, and a write still in flight then fails the removal.
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

/** A store whose objects a test can count (`written`). */
async function countingStore(): Promise<ObjectStore> {
  const store = new ObjectStore(await temporaryDirectory());
  stores.push(store);
  return store;
}

/** The chunks a build from scratch stores for these items. */
async function cutFromScratch(items: ReadonlyMap<string, string>, store: ObjectStore) {
  return new ChunkedCollection<string>(renderKeyedChunk, items).flush(store);
}

describe('ChunkedCollection', () => {
  it('stores, commit after commit of paths coming, going and changing, the chunks a build from scratch stores', async () => {
    const store = await countingStore();
    const items = new Map<string, string>();
    for (let n = 0; n < 2000; n += 2) items.set(path(n), `v${n}`);
    const collection = new ChunkedCollection<string>(renderKeyedChunk, items);
    await collection.flush(store);
    // A fixed walk (mulberry32), so a failure names the same commit every run.
    let seed = 7;
    const next = (below: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) % below;
    };
    for (let commit = 0; commit < 100; commit++) {
      for (let change = 0; change < 1 + next(40); change++) {
        const kind = next(4);
        // Kind 3 adds a path after every other, as a release's newest document does.
        const key = kind === 3 ? `site/tail/${String(commit).padStart(3, '0')}-${String(change).padStart(2, '0')}` : path(next(2400));
        const item = kind === 0 ? null : `v${commit}-${change}`;
        collection.set(key, item);
        if (item === null) items.delete(key);
        else items.set(key, item);
      }
      expect(await collection.flush(store), `commit ${commit}`).toEqual(await cutFromScratch(items, store));
    }
  });

  it('writes one or two chunks when a path comes, at most one when it goes, whatever the number of paths', async () => {
    const store = await countingStore();
    const items = new Map(Array.from({ length: 5000 }, (_, n): [string, string] => [path(n), `v${n}`]));
    const collection = new ChunkedCollection<string>(renderKeyedChunk, items);
    const chunks = (await collection.flush(store)).length;
    await store.settled();
    expect(chunks).toBeGreaterThan(100);
    for (const n of [7001, 7002, 7003, 7004, 7005, 7006, 7007, 7008]) {
      const before = store.written;
      collection.set(path(n), 'new');
      await collection.flush(store);
      await store.settled();
      expect(store.written - before, `adding ${path(n)}`).toBeGreaterThanOrEqual(1);
      expect(store.written - before, `adding ${path(n)}`).toBeLessThanOrEqual(2);
    }
    for (const n of [10, 1000, 2500, 4999, 7001]) {
      const before = store.written;
      collection.set(path(n), null);
      await collection.flush(store);
      await store.settled();
      expect(store.written - before, `removing ${path(n)}`).toBeLessThanOrEqual(1);
    }
  });

  it('takes back the chunks a checkpoint names only when they are its own cut: chunks cut at another spread are stored again', async () => {
    const store = await countingStore();
    const items = new Map(Array.from({ length: 2000 }, (_, n): [string, string] => [path(n), `v${n}`]));
    // A checkpoint of an earlier pkgcat, which cut every 32 keys; this one cuts every 8.
    const earlier = await new ChunkedCollection<string>(renderKeyedChunk, items).flush(store);
    const resumed = new ChunkedCollection<string>(renderKeyedChunk, items, new Map(), 8);
    resumed.adopt(earlier);
    const fromScratch = await new ChunkedCollection<string>(renderKeyedChunk, items, new Map(), 8).flush(store);
    expect(fromScratch.length).toBeGreaterThan(earlier.length * 2);
    expect(await resumed.flush(store)).toEqual(fromScratch);
    // Its own cut is taken back as it is: nothing is rendered again.
    const again = new ChunkedCollection<string>((entries) => { throw new Error(`rendered ${entries[0][0]} again`); }, items, new Map(), 8);
    again.adopt(fromScratch);
    expect(await again.flush(store)).toEqual(fromScratch);
  });
});
