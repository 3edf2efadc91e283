import { describe, it, expect } from 'vitest';
import { compareVersions, fixedVersions, isAffected, isWithdrawn } from '../../src/compose/versions.ts';
import type { OsvRecord } from '../../src/compose/types.ts';

/** An advisory with the given `affected[]`; `unknown` so malformed shapes can be written too. */
function adv(affected: unknown, extra: Record<string, unknown> = {}): OsvRecord {
  return { id: 'TEST-1', modified: '2026-01-01T00:00:00Z', affected, ...extra } as OsvRecord;
}
const range = (events: unknown, type = 'ECOSYSTEM') => ({ type, events });
const pkg = (name: unknown, rest: Record<string, unknown>) => ({ package: { name, ecosystem: 'x' }, ...rest });

describe('compareVersions', () => {
  it.each([
    // [a, b, sign of compare(a, b), why]
    ['1.0.0', '1.0.0', 0, 'identical'],
    ['2.14_1', '2.14.1', 0, '`_` is a separator like `.`'],
    ['2.0.1-7', '2.0.1.7', 0, '`-` is a separator like `.`'],
    ['0.4.9_1', '0.4.9.1', 0, 'port revision suffix equals a fourth component'],
    ['1.01', '1.1', 0, 'leading zeros do not count'],
    ['1..2', '1.2', 0, 'empty pieces are dropped'],
    ['2.22.0', '2.20.0', 1, 'numeric, not text: 22 > 20'],
    ['7.41', '7.5.25', 1, '41 > 5 numerically, though "4" < "5" as text'],
    ['1.10', '1.9', 1, 'numeric, not text: 10 > 9'],
    ['2023-03-19', '0.1.2', 1, 'date versions are numbers too: 2023 > 0'],
    ['1.32.0_1', '1.32.0', 1, 'a trailing numeric revision is later'],
    ['8.1_4', '8.1.1', 1, '4 > 1 in the third position'],
    ['1.0.1', '1.0', 1, 'a longer list whose next token is a number is later'],
    ['1.0.0', '1.0', 1, 'trailing zero components still count (numeric next token)'],
    ['1.0.0-rc1', '1.0.0', -1, 'pre-release tag sorts before the release'],
    ['2.0beta', '2.0', -1, 'text glued to a number is a pre-release tag'],
    ['2.0beta', '2.0.0', -1, 'text before number at the same position'],
    ['1.13+new-skia-api', '1.13', -1, '`+` suffix with text is a pre-release'],
    ['4.3.5a', '4.3.5', -1, 'letter suffix is a pre-release'],
    ['1.0.0-alpha', '1.0.0-beta', -1, 'text tags compare as text'],
    ['1.0.0-rc1', '1.0.0-rc2', -1, 'numbers inside tags compare as numbers'],
    ['1.0.0-rc2', '1.0.0-rc10', -1, 'rc10 is after rc2, numerically'],
    ['1.0.0-rc', '1.0.0-rc1', -1, 'numeric next token: rc1 comes after bare rc'],
    ['1.0-B', '1.0-a', -1, 'plain code-unit order: uppercase before lowercase'],
    ['deprecated', '1.0', -1, 'text sorts before a number at the same position'],
    ['99999999999999999999999', '99999999999999999999998', 1, 'long numbers do not overflow'],
    ['100000000000000000000', '99999999999999999999', 1, 'more digits is larger'],
    ['0010', '9', 1, 'leading zeros stripped before the length comparison'],
    ['', '0', -1, 'empty version sorts before any number'],
  ])('compare(%j, %j) has sign %i: %s', (a, b, sign) => {
    expect(Math.sign(compareVersions(a, b))).toBe(sign);
    // The ordering is antisymmetric: swapping the operands flips the sign.
    expect(Math.sign(compareVersions(b, a))).toBe(-sign || 0);
  });
});

describe('isAffected', () => {
  const introducedFixed = adv([pkg('zlib', { ranges: [range([{ introduced: '1.2.0' }, { fixed: '1.2.12' }])] })]);
  const fromZero = adv([pkg('zlib', { ranges: [range([{ introduced: '0' }, { fixed: '1.2.12' }])] })]);
  const lastAffected = adv([pkg('zlib', { ranges: [range([{ introduced: '1.0' }, { last_affected: '1.2.11' }])] })]);
  const withLimit = adv([pkg('zlib', { ranges: [range([{ introduced: '1.0' }, { limit: '1.3' }])] })]);
  const starLimit = adv([pkg('zlib', { ranges: [range([{ introduced: '1.0' }, { limit: '*' }])] })]);
  const twoIntervals = adv([
    pkg('zlib', { ranges: [range([{ fixed: '2.1' }, { introduced: '1.0' }, { introduced: '2.0' }, { fixed: '1.5' }])] }),
  ]);
  const listed = adv([pkg('zlib', { versions: ['1.2.11', '2.14_1'] })]);
  const git = adv([pkg('zlib', { ranges: [range([{ introduced: '0' }, { fixed: 'abc123' }], 'GIT')] })]);
  const otherType = adv([pkg('zlib', { ranges: [range([{ introduced: '0' }], 'PURL')] })]);
  const semver = adv([pkg('zlib', { ranges: [range([{ introduced: '1.0.0' }, { fixed: '1.0.5' }], 'SEMVER')] })]);
  const mixedCase = adv([pkg('ZLib', { versions: ['1.2.11'] })]);
  const twoPackages = adv([pkg('openssl', { versions: ['3.0.0'] }), pkg('zlib', { versions: ['1.2.11'] })]);
  const preRelease = adv([pkg('zlib', { ranges: [range([{ introduced: '0' }, { fixed: '2.0' }])] })]);

  it.each([
    // [why, advisory, packageKey, version, expected]
    ['introduced itself is affected', introducedFixed, 'zlib', '1.2.0', true],
    ['inside [introduced, fixed)', introducedFixed, 'zlib', '1.2.11', true],
    ['fixed itself is not affected', introducedFixed, 'zlib', '1.2.12', false],
    ['after fixed', introducedFixed, 'zlib', '1.3', false],
    ['before introduced', introducedFixed, 'zlib', '1.1.9', false],
    ['pre-release of the introduced version is before it', introducedFixed, 'zlib', '1.2.0-rc1', false],
    ['introduced "0" covers the very first version', fromZero, 'zlib', '0.0.1', true],
    ['introduced "0" covers text-only versions, which sort before numbers', fromZero, 'zlib', 'deprecated', true],
    ['introduced "0", at fixed', fromZero, 'zlib', '1.2.12', false],
    ['last_affected itself is affected', lastAffected, 'zlib', '1.2.11', true],
    ['after last_affected', lastAffected, 'zlib', '1.2.11_1', false],
    ['below the limit', withLimit, 'zlib', '1.2.9', true],
    ['at the limit', withLimit, 'zlib', '1.3', false],
    ['above the limit', withLimit, 'zlib', '2.0', false],
    ['limit "*" is no limit', starLimit, 'zlib', '99.0', true],
    ['events out of order: first interval', twoIntervals, 'zlib', '1.4', true],
    ['events out of order: gap between intervals', twoIntervals, 'zlib', '1.7', false],
    ['events out of order: second interval', twoIntervals, 'zlib', '2.0.5', true],
    ['events out of order: after the second fix', twoIntervals, 'zlib', '2.1', false],
    ['listed in versions[]', listed, 'zlib', '1.2.11', true],
    ['listed under another spelling that compares equal', listed, 'zlib', '2.14.1', true],
    ['not listed', listed, 'zlib', '1.2.12', false],
    ['GIT ranges are ignored', git, 'zlib', '1.0', false],
    ['range types other than ECOSYSTEM/SEMVER are ignored', otherType, 'zlib', '1.0', false],
    ['SEMVER ranges count', semver, 'zlib', '1.0.4', true],
    ['SEMVER fixed', semver, 'zlib', '1.0.5', false],
    ['pre-release of the fixed version is still affected', preRelease, 'zlib', '2.0-rc1', true],
    ['package names are case-insensitive in the record', mixedCase, 'zlib', '1.2.11', true],
    ['packageKey is lowercased too', mixedCase, 'ZLIB', '1.2.11', true],
    ['another package in the record is ignored', twoPackages, 'zlib', '3.0.0', false],
    ['the matching entry among several', twoPackages, 'openssl', '3.0.0', true],
    ['a package the record does not name', introducedFixed, 'libpng', '1.2.5', false],
  ])('%s', (_why, osv, key, version, expected) => {
    expect(isAffected(osv, key, version)).toBe(expected);
  });

  it.each([
    ['affected is not an array', adv({ package: { name: 'zlib' } })],
    ['affected missing', { id: 'X', modified: 'y' } as OsvRecord],
    ['null entry', adv([null])],
    ['package missing', adv([{ versions: ['1.0'] }])],
    ['package name not a string', adv([pkg(42, { versions: ['1.0'] })])],
    ['versions not an array', adv([pkg('zlib', { versions: '1.0' })])],
    ['versions with non-strings', adv([pkg('zlib', { versions: [1.0, null] })])],
    ['ranges not an array', adv([pkg('zlib', { ranges: { type: 'ECOSYSTEM' } })])],
    ['events not an array', adv([pkg('zlib', { ranges: [range('introduced 0')] })])],
    ['event value not a string', adv([pkg('zlib', { ranges: [range([{ introduced: 0 }])] })])],
    ['event with no known key', adv([pkg('zlib', { ranges: [range([{ introduced: '0' }, { since: '2.0' }])] })])],
    ['event with two keys', adv([pkg('zlib', { ranges: [range([{ introduced: '0', fixed: '2.0' }])] })])],
    // Dropping only the broken `fixed` would leave [0, ∞) and mark fixed versions as affected.
    ['malformed fixed event drops the whole range', adv([pkg('zlib', { ranges: [range([{ introduced: '0' }, { fixed: null }])] })])],
    ['null range', adv([pkg('zlib', { ranges: [null] })])],
  ])('malformed record is not matching and does not throw: %s', (_why, osv) => {
    expect(isAffected(osv, 'zlib', '1.0')).toBe(false);
  });
});

describe('fixedVersions', () => {
  it.each([
    [
      'fixed events of ECOSYSTEM and SEMVER ranges, ascending, distinct',
      adv([
        pkg('zlib', {
          ranges: [
            range([{ introduced: '2.0' }, { fixed: '2.10' }, { introduced: '0' }, { fixed: '1.9' }]),
            range([{ introduced: '2.0' }, { fixed: '2.10' }], 'SEMVER'),
            range([{ introduced: '0' }, { fixed: 'deadbeef' }], 'GIT'),
          ],
        }),
        pkg('openssl', { ranges: [range([{ introduced: '0' }, { fixed: '3.0.7' }])] }),
      ]),
      'zlib',
      ['1.9', '2.10'],
    ],
    [
      'across several entries for the same package, case-insensitive',
      adv([pkg('ZLib', { ranges: [range([{ introduced: '0' }, { fixed: '1.2.12' }])] }), pkg('zlib', { ranges: [range([{ introduced: '0' }, { fixed: '1.2.12-rc1' }])] })]),
      'zlib',
      ['1.2.12-rc1', '1.2.12'],
    ],
    ['only last_affected: no fix', adv([pkg('zlib', { ranges: [range([{ introduced: '0' }, { last_affected: '1.0' }])] })]), 'zlib', []],
    ['package not named', adv([pkg('zlib', { versions: ['1.0'] })]), 'libpng', []],
    ['malformed record', adv('nope'), 'zlib', []],
  ])('%s', (_why, osv, key, expected) => {
    expect(fixedVersions(osv, key)).toEqual(expected);
  });
});

describe('isWithdrawn', () => {
  it.each([
    ['withdrawn timestamp present', adv([], { withdrawn: '2026-02-01T00:00:00Z' }), true],
    ['no withdrawn field', adv([]), false],
    ['withdrawn not a string', adv([], { withdrawn: true }), false],
  ])('%s', (_why, osv, expected) => {
    expect(isWithdrawn(osv)).toBe(expected);
  });
});
