import { describe, it, expect } from 'vitest';
import { serialize } from '../../src/serialize.ts';
import { analyze } from '../../src/compose/analysis.ts';
import { composeListingBundle } from '../../src/compose/bundles.ts';
import { composeDiff, type DiffSide } from '../../src/compose/diff.ts';
import type { Manifest, OsvRecord } from '../../src/compose/types.ts';
import { advisory, catalogState, manifest, sha } from '../helpers/state.ts';
import { SCHEMA_VERSION } from '../helpers/spec.ts';

const BASE = { sha: sha(1), pushedAt: '2026-03-01T00:00:00Z' };
const HEAD = { sha: sha(2), pushedAt: '2026-03-02T00:00:00Z' };

/** A listing bundle composed whole: its cards are a plain array, which is what a DiffSide reads. */
function listing(commit: { sha: string; pushedAt: string }, packages: Manifest[], advisories: OsvRecord[] = []): DiffSide {
  const state = catalogState({ commit, packages, advisories });
  return composeListingBundle(state, analyze(state)) as DiffSide;
}

/** The diff from `base` packages to `head` packages, with the same advisories on both sides unless given. */
function diff(base: Manifest[], head: Manifest[], advisories: OsvRecord[] = [], headAdvisories: OsvRecord[] = advisories) {
  return composeDiff(listing(BASE, base, advisories), listing(HEAD, head, headAdvisories));
}

describe('composeDiff: packages added and removed (SPEC.md "Diff")', () => {
  it.each([
    ['one added', [manifest('a')], [manifest('a'), manifest('b', { version: '2.0' })], [{ name: 'b', version: '2.0' }], []],
    ['one removed', [manifest('a'), manifest('b', { version: '2.0' })], [manifest('a')], [], [{ name: 'b', version: '2.0' }]],
    [
      'several, sorted by name case-insensitively',
      [manifest('keep'), manifest('Old2'), manifest('old1')],
      [manifest('keep'), manifest('new-b'), manifest('New-A'), manifest('Zed')],
      [{ name: 'New-A', version: '1.0.0' }, { name: 'new-b', version: '1.0.0' }, { name: 'Zed', version: '1.0.0' }],
      [{ name: 'old1', version: '1.0.0' }, { name: 'Old2', version: '1.0.0' }],
    ],
    ['a change of spelling only is neither (DECISIONS 4: names are case-insensitive)', [manifest('zlib')], [manifest('ZLib')], [], []],
    ['from an empty catalog', [], [manifest('a')], [{ name: 'a', version: '1.0.0' }], []],
    ['to an empty catalog', [manifest('a')], [], [], [{ name: 'a', version: '1.0.0' }]],
  ])('%s', (_why, base, head, added, removed) => {
    const result = diff(base, head);
    expect(result.added).toEqual(added);
    expect(result.removed).toEqual(removed);
    expect(result.versionChanges).toEqual([]);
    expect(result.advisoryChanges).toEqual([]);
  });
});

describe('composeDiff: version changes with direction (DECISIONS.md 5, CATALOG-FORMAT.md version order)', () => {
  it.each([
    ['1.0.0', '1.1.0', 'upgrade'],
    ['1.9', '1.10', 'upgrade'],
    ['2.0', '1.9', 'downgrade'],
    ['2023-03-19', '0.1.2', 'downgrade'],
    ['0.1.2', '2023-03-19', 'upgrade'],
    ['1.0.0', '1.0.0-rc1', 'downgrade'],
    ['1.0.0-rc1', '1.0.0', 'upgrade'],
    ['2.0beta', '2.0', 'upgrade'],
    ['2.14_1', '2.14.1', 'equivalent'],
    ['1.01', '1.1', 'equivalent'],
  ])('%s -> %s is %s', (from, to, direction) => {
    const result = diff([manifest('pkg', { version: from })], [manifest('pkg', { version: to })]);
    expect(result.versionChanges).toEqual([{ name: 'pkg', fromVersion: from, toVersion: to, direction }]);
    expect(result.added).toEqual([]);
    expect(result.removed).toEqual([]);
  });

  it('the same version gives no change', () => {
    expect(diff([manifest('pkg', { version: '1.2' })], [manifest('pkg', { version: '1.2', stars: 9 })]).versionChanges).toEqual([]);
  });

  it('the name in a version change is the head spelling', () => {
    expect(diff([manifest('zlib', { version: '1' })], [manifest('ZLib', { version: '2' })]).versionChanges).toEqual([
      { name: 'ZLib', fromVersion: '1', toVersion: '2', direction: 'upgrade' },
    ]);
  });

  it('version changes are sorted by name', () => {
    const base = [manifest('c', { version: '1' }), manifest('A', { version: '1' }), manifest('b', { version: '1' })];
    const head = [manifest('b', { version: '0' }), manifest('c', { version: '2' }), manifest('A', { version: '2' })];
    expect(diff(base, head).versionChanges.map((v) => [v.name, v.direction])).toEqual([
      ['A', 'upgrade'],
      ['b', 'downgrade'],
      ['c', 'upgrade'],
    ]);
  });
});

describe('composeDiff: advisory deltas (DECISIONS.md 5: count change and severity transition of the highest severity)', () => {
  const high = advisory('H-1', { package: 'zlib', fixed: '1.2.12', severity: 'HIGH' });
  const low = advisory('L-1', { package: 'zlib', severity: 'LOW' });
  const critical = advisory('C-1', { package: 'zlib', introduced: '1.3', severity: 'CRITICAL' });

  it.each([
    [
      'a new advisory: fromSeverity null',
      [manifest('zlib', { version: '1.2.11' })],
      [manifest('zlib', { version: '1.2.11' })],
      [],
      [high],
      [{ name: 'zlib', fromCount: 0, toCount: 1, fromSeverity: null, toSeverity: 'high', added: ['H-1'], removed: [] }],
    ],
    [
      'fixed by an upgrade: toSeverity null',
      [manifest('zlib', { version: '1.2.11' })],
      [manifest('zlib', { version: '1.2.12' })],
      [high],
      [high],
      [{ name: 'zlib', fromCount: 1, toCount: 0, fromSeverity: 'high', toSeverity: null, added: [], removed: ['H-1'] }],
    ],
    [
      'withdrawn: counts as gone',
      [manifest('zlib', { version: '1.2.11' })],
      [manifest('zlib', { version: '1.2.11' })],
      [high],
      [{ ...high, withdrawn: '2026-03-02T00:00:00Z' }],
      [{ name: 'zlib', fromCount: 1, toCount: 0, fromSeverity: 'high', toSeverity: null, added: [], removed: ['H-1'] }],
    ],
    [
      'severity rises when a worse advisory arrives',
      [manifest('zlib', { version: '1.2' })],
      [manifest('zlib', { version: '1.3' })],
      [low, critical],
      [low, critical],
      [{ name: 'zlib', fromCount: 1, toCount: 2, fromSeverity: 'low', toSeverity: 'critical', added: ['C-1'], removed: [] }],
    ],
    [
      'one swapped for another: same count, severity rises',
      [manifest('zlib', { version: '1.2.11' })],
      [manifest('zlib', { version: '1.3' })],
      [high, critical, low],
      [high, critical, low],
      [{ name: 'zlib', fromCount: 2, toCount: 2, fromSeverity: 'high', toSeverity: 'critical', added: ['C-1'], removed: ['H-1'] }],
    ],
    [
      'a downgrade swaps them back: severity falls',
      [manifest('zlib', { version: '1.3' })],
      [manifest('zlib', { version: '1.2.11' })],
      [high, critical, low],
      [high, critical, low],
      [{ name: 'zlib', fromCount: 2, toCount: 2, fromSeverity: 'critical', toSeverity: 'high', added: ['H-1'], removed: ['C-1'] }],
    ],
    [
      'the same ids, but the advisory was re-rated: a severity transition',
      [manifest('zlib')],
      [manifest('zlib')],
      [advisory('R-1', { package: 'zlib', severity: 'MODERATE' })],
      [advisory('R-1', { package: 'zlib', severity: 'CRITICAL' })],
      [{ name: 'zlib', fromCount: 1, toCount: 1, fromSeverity: 'medium', toSeverity: 'critical', added: [], removed: [] }],
    ],
    [
      'the same ids and severity: no entry',
      [manifest('zlib', { version: '1.0' })],
      [manifest('zlib', { version: '1.1' })],
      [low],
      [low],
      [],
    ],
    [
      'a new advisory of a lower severity: counted, severity unchanged',
      [manifest('zlib', { version: '1.2.11' })],
      [manifest('zlib', { version: '1.2.11' })],
      [high],
      [high, low],
      [{ name: 'zlib', fromCount: 1, toCount: 2, fromSeverity: 'high', toSeverity: 'high', added: ['L-1'], removed: [] }],
    ],
    [
      'an added package with advisories: from nothing',
      [],
      [manifest('zlib', { version: '1.2.11' })],
      [high, low],
      [high, low],
      [{ name: 'zlib', fromCount: 0, toCount: 2, fromSeverity: null, toSeverity: 'high', added: ['H-1', 'L-1'], removed: [] }],
    ],
    [
      'a removed package with advisories shows them removed',
      [manifest('zlib', { version: '1.2.11' })],
      [],
      [high, low],
      [high, low],
      [{ name: 'zlib', fromCount: 2, toCount: 0, fromSeverity: 'high', toSeverity: null, added: [], removed: ['H-1', 'L-1'] }],
    ],
    ['a removed package without advisories: no advisory entry', [manifest('zlib', { version: '9' })], [], [high], [high], []],
    ['an added package without advisories: no advisory entry', [], [manifest('zlib', { version: '9' })], [high], [high], []],
  ])('%s', (_why, base, head, baseAdvisories, headAdvisories, expected) => {
    expect(diff(base, head, baseAdvisories, headAdvisories).advisoryChanges).toEqual(expected);
  });

  it('advisory changes are sorted by name, removed packages among the others', () => {
    const advisories = [advisory('X', { package: ['a', 'B', 'c', 'd'] })];
    const result = diff([manifest('a'), manifest('B'), manifest('d')], [manifest('c'), manifest('d')], [], advisories);
    // Base has no advisories at all; head gains X on c and d. a and B are removed without advisories.
    expect(result.advisoryChanges.map((c) => c.name)).toEqual(['c', 'd']);
    const both = diff([manifest('a'), manifest('B'), manifest('d')], [manifest('c'), manifest('d', { version: '2' })], advisories, [
      advisory('X', { package: ['a', 'B', 'c', 'd'], fixed: '2' }),
    ]);
    expect(both.advisoryChanges.map((c) => [c.name, c.fromCount, c.toCount])).toEqual([
      ['a', 1, 0],
      ['B', 1, 0],
      ['c', 0, 1],
      ['d', 1, 0],
    ]);
  });
});

describe('composeDiff: whole payload (SPEC.md "Diff", DECISIONS.md 5)', () => {
  it('base == head gives empty sections', () => {
    const side = listing(BASE, [manifest('zlib'), manifest('png', { runtime: ['zlib'] })], [advisory('X', { package: 'zlib', severity: 'HIGH' })]);
    expect(composeDiff(side, side)).toEqual({
      schemaVersion: SCHEMA_VERSION,
      sha: BASE.sha,
      base: BASE.sha,
      pushedAt: BASE.pushedAt,
      basePushedAt: BASE.pushedAt,
      added: [],
      removed: [],
      versionChanges: [],
      advisoryChanges: [],
    });
  });

  it('is exact, byte for byte, for a small change', () => {
    const base = listing(BASE, [manifest('zlib', { version: '1.2.11' }), manifest('old')], [advisory('H-1', { package: 'zlib', fixed: '1.2.12', severity: 'HIGH' })]);
    const head = listing(HEAD, [manifest('zlib', { version: '1.2.12' }), manifest('new', { version: '0.1' })], [advisory('H-1', { package: 'zlib', fixed: '1.2.12', severity: 'HIGH' })]);
    expect(serialize(composeDiff(base, head))).toBe(
      '{"added":[{"name":"new","version":"0.1"}],' +
        '"advisoryChanges":[{"added":[],"fromCount":1,"fromSeverity":"high","name":"zlib","removed":["H-1"],"toCount":0,"toSeverity":null}],' +
        `"base":"${BASE.sha}","basePushedAt":"${BASE.pushedAt}","pushedAt":"${HEAD.pushedAt}",` +
        '"removed":[{"name":"old","version":"1.0.0"}],' +
        `"schemaVersion":${SCHEMA_VERSION},"sha":"${HEAD.sha}",` +
        '"versionChanges":[{"direction":"upgrade","fromVersion":"1.2.11","name":"zlib","toVersion":"1.2.12"}]}',
    );
  });

  it('is computed the same way whichever side is older: swapping sides inverts it', () => {
    const a = listing(BASE, [manifest('zlib', { version: '1.2.11' }), manifest('old')], [advisory('H-1', { package: 'zlib', fixed: '1.2.12', severity: 'HIGH' })]);
    const b = listing(HEAD, [manifest('zlib', { version: '1.2.12' }), manifest('new')], [advisory('H-1', { package: 'zlib', fixed: '1.2.12', severity: 'HIGH' })]);
    const back = composeDiff(b, a);
    expect(back).toMatchObject({ sha: BASE.sha, base: HEAD.sha, pushedAt: BASE.pushedAt, basePushedAt: HEAD.pushedAt });
    expect(back.added).toEqual([{ name: 'old', version: '1.0.0' }]);
    expect(back.removed).toEqual([{ name: 'new', version: '1.0.0' }]);
    expect(back.versionChanges).toEqual([{ name: 'zlib', fromVersion: '1.2.12', toVersion: '1.2.11', direction: 'downgrade' }]);
    expect(back.advisoryChanges).toEqual([{ name: 'zlib', fromCount: 0, toCount: 1, fromSeverity: null, toSeverity: 'high', added: ['H-1'], removed: [] }]);
  });
});
