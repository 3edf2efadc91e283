/**
 * The composer's large text items are kept deflated in memory (build/chunks.ts PackedStrings):
 * what is read back is exactly what was set, in the order it was set, however long. A document
 * that read a rollup is kept while the rollup's digest stays the same, so the digest must follow
 * the text exactly: the same after a checkpoint keeps the item as stored, another when one
 * character changes. The same holds for the records (HashedStrings), whose digests are kept until
 * the item changes: a digest kept past a change would keep a document made from the old record.
 */
import { describe, expect, it } from 'vitest';
import { HashedStrings, PackedStrings } from '../../build/chunks.ts';

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
