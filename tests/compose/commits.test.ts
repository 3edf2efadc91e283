import { describe, it, expect } from 'vitest';
import { COMMITS_LIMIT, clampLimit, composeRecentCommits } from '../../src/compose/commits.ts';
import { serialize } from '../../src/serialize.ts';
import type { CommitInfo } from '../../src/compose/types.ts';
import { sha } from '../helpers/state.ts';

describe('clampLimit (SPEC.md Limits: `limit` default 30, clamped to 1 to 50, non-numeric falls back to 30)', () => {
  it.each([
    ['absent', undefined, 30],
    ['null', null, 30],
    ['empty string', '', 30],
    ['only spaces', '   ', 30],
    ['text', 'abc', 30],
    ['digits then text', '12abc', 30],
    ['text then digits', 'abc12', 30],
    ['exponent notation is not an integer query', '1e3', 30],
    ['zero clamps up to 1', '0', 1],
    ['negative clamps up to 1', '-5', 1],
    ['the minimum', '1', 1],
    ['in range', '12', 12],
    ['explicit plus sign', '+7', 7],
    ['the maximum', '50', 50],
    ['above the maximum clamps down', '51', 50],
    ['far above the maximum clamps down', '99999999999999999999999', 50],
    ['a decimal truncates', '7.9', 7],
    ['a decimal below 1 clamps up', '0.5', 1],
    ['a repeated parameter: the first value', ['3', '9'], 3],
    ['a repeated parameter whose first value is not numeric', ['abc', '9'], 30],
    ['an empty list', [], 30],
    ['a number above the maximum', 100, 50],
    ['a number in range', 12, 12],
    ['a non-integer number truncates', 12.7, 12],
    ['the number 0', 0, 1],
    ['NaN', NaN, 30],
    ['Infinity', Infinity, 30],
    ['a boolean', true, 30],
    ['an object', { limit: 5 }, 30],
  ])('%s: %j gives %i', (_why, raw, expected) => {
    expect(clampLimit(raw)).toBe(expected);
  });

  it('the default bounds are the recent-commits ones', () => {
    expect(COMMITS_LIMIT).toEqual({ default: 30, min: 1, max: 50 });
  });

  it.each([
    [undefined, 20],
    ['abc', 20],
    ['0', 1],
    ['60', 50],
    ['25', 25],
  ])('other bounds (search_packages: default 20, 1 to 50): %j gives %i', (raw, expected) => {
    expect(clampLimit(raw, { default: 20, min: 1, max: 50 })).toBe(expected);
  });
});

describe('composeRecentCommits (SPEC.md "Recent commits", DECISIONS.md 10)', () => {
  const c = (n: number, message: string | null = `commit ${n}`): CommitInfo => ({ sha: sha(n), pushedAt: `2026-03-${String(n).padStart(2, '0')}T00:00:00Z`, message });
  const chain = [c(9), c(8, null), c(7), c(6), c(5)];

  it.each([
    ['newest first, as the chain gives them', chain, 30, [9, 8, 7, 6, 5]],
    ['the newest `limit` of them', chain, 2, [9, 8]],
    ['a limit of 1', chain, 1, [9]],
    ['a limit equal to the chain length', chain, 5, [9, 8, 7, 6, 5]],
    ['distinct: a repeated sha is listed once, at its first (newest) place', [c(9), c(8), c(9), c(7), c(8)], 30, [9, 8, 7]],
    ['distinct commits count toward the limit, repeats do not', [c(9), c(9), c(9), c(8), c(7)], 2, [9, 8]],
    ['an empty chain', [], 30, []],
  ])('%s', (_why, input, limit, expected) => {
    expect(composeRecentCommits(input, limit).map((entry) => entry.sha)).toEqual(expected.map(sha));
  });

  it('entries are exactly {sha, message, pushedAt}; a null message is kept as null', () => {
    const extra = { ...c(3), parents: ['x'], author: 'someone' } as CommitInfo;
    const entries = composeRecentCommits([c(4, null), extra], 30);
    expect(entries).toEqual([
      { sha: sha(4), message: null, pushedAt: '2026-03-04T00:00:00Z' },
      { sha: sha(3), message: 'commit 3', pushedAt: '2026-03-03T00:00:00Z' },
    ]);
    expect(serialize(entries)).toBe(
      `[{"message":null,"pushedAt":"2026-03-04T00:00:00Z","sha":"${sha(4)}"},{"message":"commit 3","pushedAt":"2026-03-03T00:00:00Z","sha":"${sha(3)}"}]`,
    );
  });

  it('does not change the chain it is given', () => {
    const input = [c(2), c(2), c(1)];
    const copy = structuredClone(input);
    composeRecentCommits(input, 1);
    expect(input).toEqual(copy);
  });
});
