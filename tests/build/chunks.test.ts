/**
 * The composer's large text items are kept deflated in memory (build/chunks.ts PackedStrings):
 * what is read back is exactly what was set, in the order it was set, however long. A document
 * that read a rollup is kept while the rollup's digest stays the same, so the digest must follow
 * the text exactly: the same after a checkpoint keeps the item as stored, another when one
 * character changes.
 */
import { describe, expect, it } from 'vitest';
import { PackedStrings } from '../../build/chunks.ts';

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
});
