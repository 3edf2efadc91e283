/**
 * The composer's large text items are kept deflated in memory (build/chunks.ts PackedStrings):
 * what is read back is exactly what was set, in the order it was set, however long.
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
});
