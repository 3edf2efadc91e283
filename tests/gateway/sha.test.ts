/** The sha resolver (gateway/sha.ts) on synthetic chains: SPEC.md "Path parameter grammar" and Errors. */
import { describe, expect, it } from 'vitest';
import { resolveSha } from '../../gateway/sha.ts';

const sha = (prefix: string) => prefix.padEnd(40, '0');
const SORTED = [sha('0000001'), sha('abcdef1'), sha('abcdef1234'), sha('abcdef2'), sha('ffffffff')].sort();

describe('resolveSha', () => {
  it.each([
    ['a full sha on the chain', sha('abcdef2'), { kind: 'exact', sha: sha('abcdef2') }],
    ['a full sha not on the chain', sha('abcdef3'), { kind: 'unknown' }],
    ['a unique 7-hex prefix', 'abcdef2', { kind: 'prefix', sha: sha('abcdef2') }],
    ['a unique prefix at the start of the list', '0000001', { kind: 'prefix', sha: sha('0000001') }],
    ['a unique prefix at the end of the list', 'fffffff', { kind: 'prefix', sha: sha('ffffffff') }],
    ['a prefix of two shas', 'abcdef1', { kind: 'ambiguous', matches: 2 }],
    ['6 hex that start three shas: still no prefix', 'abcdef', { kind: 'malformed' }],
    ['a longer prefix that separates them', 'abcdef12', { kind: 'prefix', sha: sha('abcdef1234') }],
    ['a 39-hex prefix', sha('abcdef2').slice(0, 39), { kind: 'prefix', sha: sha('abcdef2') }],
    ['a prefix of nothing', '1234567', { kind: 'unknown' }],
    ['a prefix past the last sha', 'fffffff1', { kind: 'unknown' }],
    ['upper case', 'ABCDEF2', { kind: 'malformed' }],
    ['6 hex', 'abcdef', { kind: 'malformed' }],
    ['41 hex', `${sha('abcdef2')}0`, { kind: 'malformed' }],
    ['not hex', 'abcdefg', { kind: 'malformed' }],
    ['empty', '', { kind: 'malformed' }],
  ])('%s: %s', (_label, text, outcome) => {
    expect(resolveSha(SORTED, text)).toEqual(outcome);
  });

  it('an empty chain knows no sha, but still tells malformed from unknown', () => {
    expect(resolveSha([], sha('abcdef2'))).toEqual({ kind: 'unknown' });
    expect(resolveSha([], 'abcdef2')).toEqual({ kind: 'unknown' });
    expect(resolveSha([], 'xyz')).toEqual({ kind: 'malformed' });
  });

  it('finds the one match in a long chain by binary search', () => {
    const chain = Array.from({ length: 10_000 }, (_, index) => (index * 2654435761 >>> 0).toString(16).padStart(8, '0').padEnd(40, String(index % 10))).sort();
    for (const target of [chain[0], chain[4321], chain[chain.length - 1]]) {
      expect(resolveSha(chain, target)).toEqual({ kind: 'exact', sha: target });
      expect(resolveSha(chain, target.slice(0, 8))).toEqual({ kind: 'prefix', sha: target });
    }
  });
});
