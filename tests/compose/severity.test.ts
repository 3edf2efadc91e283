import { describe, it, expect } from 'vitest';
import { SEVERITY_RANK, maxSeverity, severityOf } from '../../src/compose/severity.ts';
import type { OsvRecord, Severity } from '../../src/compose/types.ts';

function adv(extra: Record<string, unknown>): OsvRecord {
  return { id: 'TEST-1', modified: '2026-01-01T00:00:00Z', ...extra } as OsvRecord;
}
const v3 = (score: string) => ({ severity: [{ type: 'CVSS_V3', score }] });
const v4 = (score: string) => ({ severity: [{ type: 'CVSS_V4', score }] });

// Expected scores were not taken from ae-cvss-calculator: the v3.x ones come from the CVSS 3.1
// specification's formulas (worked by hand/script), the v4.0 ones from FIRST's calculator values as
// published in other implementations' test suites.
const V31_CRITICAL = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H'; // 9.8
const V31_HIGH = 'CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H'; // 8.8
const V31_MEDIUM = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N'; // 6.1
const V31_LOW = 'CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:L/I:N/A:N'; // 3.3
const V40_CRITICAL = 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N'; // 9.3
const V40_HIGH = 'CVSS:4.0/AV:L/AC:L/AT:P/PR:L/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N'; // 7.3
const V40_MEDIUM = 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:L/VI:L/VA:L/SC:N/SI:N/SA:N'; // 6.9
const V40_LOW = 'CVSS:4.0/AV:P/AC:H/AT:P/PR:H/UI:A/VC:L/VI:N/VA:N/SC:N/SI:N/SA:N'; // 1.0

describe('severityOf: database_specific.severity', () => {
  it.each([
    ['CRITICAL', 'critical'],
    ['HIGH', 'high'],
    ['MODERATE', 'medium'],
    ['MEDIUM', 'medium'],
    ['LOW', 'low'],
    ['moderate', 'medium'],
    ['Critical', 'critical'],
  ])('%j maps to %j (case-insensitive)', (label, expected) => {
    expect(severityOf(adv({ database_specific: { severity: label } })).severity).toBe(expected);
  });

  it.each([
    ['the label wins over a CVSS vector of another band', { database_specific: { severity: 'LOW' }, ...v3(V31_CRITICAL) }, 'low'],
    ['an unrecognised label falls back to the vector', { database_specific: { severity: 'SEVERE' }, ...v3(V31_HIGH) }, 'high'],
    ['a prototype member name is not a label', { database_specific: { severity: 'constructor' } }, 'unknown'],
    ['a non-string label falls back to the vector', { database_specific: { severity: 9 }, ...v3(V31_MEDIUM) }, 'medium'],
    ['an unrecognised label and no vector', { database_specific: { severity: 'SEVERE' } }, 'unknown'],
  ])('%s', (_why, extra, expected) => {
    expect(severityOf(adv(extra)).severity).toBe(expected);
  });

  it('keeps the first valid vector and its score when the label decides', () => {
    const result = severityOf(adv({ database_specific: { severity: 'MODERATE' }, ...v4(V40_CRITICAL) }));
    expect(result).toEqual({ severity: 'medium', cvss: { version: '4.0', vector: V40_CRITICAL, score: 9.3 } });
  });
});

describe('severityOf: computed from CVSS', () => {
  it.each([
    // [why, record fields, severity, cvss]
    ['v3.1 9.8: critical', v3(V31_CRITICAL), 'critical', { version: '3.1', vector: V31_CRITICAL, score: 9.8 }],
    ['v3.1 scope changed, 10.0: critical', v3('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H'), 'critical', { version: '3.1', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H', score: 10 }],
    ['v3.1 8.8: high', v3(V31_HIGH), 'high', { version: '3.1', vector: V31_HIGH, score: 8.8 }],
    ['v3.1 7.5: high (lower edge region)', v3('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H'), 'high', { version: '3.1', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H', score: 7.5 }],
    ['v3.1 6.1: medium', v3(V31_MEDIUM), 'medium', { version: '3.1', vector: V31_MEDIUM, score: 6.1 }],
    ['v3.1 3.3: low', v3(V31_LOW), 'low', { version: '3.1', vector: V31_LOW, score: 3.3 }],
    ['v3.1 1.6: low', v3('CVSS:3.1/AV:P/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N'), 'low', { version: '3.1', vector: 'CVSS:3.1/AV:P/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N', score: 1.6 }],
    ['v3.1 0.0 (no impact): low', v3('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N'), 'low', { version: '3.1', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N', score: 0 }],
    ['v3.0 9.8: critical', v3('CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H'), 'critical', { version: '3.0', vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', score: 9.8 }],
    ['v3.1 temporal metrics do not lower the base score', v3(`${V31_CRITICAL}/E:U/RL:O/RC:U`), 'critical', { version: '3.1', vector: `${V31_CRITICAL}/E:U/RL:O/RC:U`, score: 9.8 }],
    ['v4.0 9.3: critical', v4(V40_CRITICAL), 'critical', { version: '4.0', vector: V40_CRITICAL, score: 9.3 }],
    ['v4.0 7.3: high', v4(V40_HIGH), 'high', { version: '4.0', vector: V40_HIGH, score: 7.3 }],
    ['v4.0 6.9: medium', v4(V40_MEDIUM), 'medium', { version: '4.0', vector: V40_MEDIUM, score: 6.9 }],
    ['v4.0 1.0: low', v4(V40_LOW), 'low', { version: '4.0', vector: V40_LOW, score: 1 }],
    ['v4.0 0.0 (no impact): low', v4('CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:N/VI:N/VA:N/SC:N/SI:N/SA:N'), 'low', { version: '4.0', vector: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:N/VI:N/VA:N/SC:N/SI:N/SA:N', score: 0 }],
    // FIRST: 7.7 for the base metrics, 5.2 (CVSS-BT) with E:U; the base score is what counts, as for v3.
    ['v4.0 threat metrics do not lower the base score', v4('CVSS:4.0/AV:N/AC:L/AT:P/PR:N/UI:P/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N/E:U'), 'high', { version: '4.0', vector: 'CVSS:4.0/AV:N/AC:L/AT:P/PR:N/UI:P/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N/E:U', score: 7.7 }],
    ['type mislabelled, vector prefix decides', { severity: [{ type: 'CVSS_V2', score: V31_HIGH }] }, 'high', { version: '3.1', vector: V31_HIGH, score: 8.8 }],
    ['a CVSS v2 entry is skipped for the v3 one after it', { severity: [{ type: 'CVSS_V2', score: 'AV:N/AC:L/Au:N/C:P/I:P/A:P' }, { type: 'CVSS_V3', score: V31_LOW }] }, 'low', { version: '3.1', vector: V31_LOW, score: 3.3 }],
    ['the first of several valid vectors wins', { severity: [{ type: 'CVSS_V4', score: V40_MEDIUM }, { type: 'CVSS_V3', score: V31_CRITICAL }] }, 'medium', { version: '4.0', vector: V40_MEDIUM, score: 6.9 }],
    ['an invalid vector is passed over for the next valid one', { severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L' }, { type: 'CVSS_V4', score: V40_HIGH }] }, 'high', { version: '4.0', vector: V40_HIGH, score: 7.3 }],
  ])('%s', (_why, extra, severity, cvss) => {
    expect(severityOf(adv(extra))).toEqual({ severity, cvss });
  });
});

describe('severityOf: unknown', () => {
  it.each([
    ['nothing at all', {}],
    ['empty severity[]', { severity: [] }],
    ['v3 vector missing base metrics', v3('CVSS:3.1/AV:N/AC:L')],
    ['v3 vector with an invalid value', v3('CVSS:3.1/AV:X/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H')],
    ['v3 vector with an unknown metric', v3(`${V31_CRITICAL}/ZZ:Q`)],
    ['v4 vector missing base metrics', v4('CVSS:4.0/AV:N/AC:L')],
    ['v4 vector that is garbage', v4('CVSS:4.0/garbage')],
    ['v3 metrics under a v4 prefix', v4('CVSS:4.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H')],
    ['not a vector at all', v3('HIGH')],
    ['a v3 vector without its CVSS:3.x prefix', v3('AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H')],
    ['only a CVSS v2 vector', { severity: [{ type: 'CVSS_V2', score: 'AV:N/AC:L/Au:N/C:P/I:P/A:P' }] }],
    ['severity[] not an array', { severity: 'CVSS:3.1/AV:N' }],
    ['severity[] with junk entries', { severity: [null, 7, { type: 'CVSS_V3' }, { type: 'CVSS_V3', score: 9.8 }] }],
    ['database_specific not an object', { database_specific: 'HIGH' }],
    ['database_specific null', { database_specific: null }],
  ])('%s', (_why, extra) => {
    expect(severityOf(adv(extra))).toEqual({ severity: 'unknown', cvss: null });
  });
});

describe('SEVERITY_RANK and maxSeverity', () => {
  it('ranks critical > high > medium > low > unknown', () => {
    const order: Severity[] = ['critical', 'high', 'medium', 'low', 'unknown'];
    const byRank = [...order].sort((a, b) => SEVERITY_RANK[b] - SEVERITY_RANK[a]);
    expect(byRank).toEqual(order);
    expect(new Set(Object.values(SEVERITY_RANK)).size).toBe(order.length);
  });

  it.each([
    ['empty list', [], null],
    ['single entry', ['low'], 'low'],
    ['critical beats everything', ['low', 'critical', 'high'], 'critical'],
    ['medium beats low and unknown', ['unknown', 'medium', 'low'], 'medium'],
    ['unknown alone', ['unknown', 'unknown'], 'unknown'],
    ['low beats unknown', ['unknown', 'low'], 'low'],
  ] as [string, Severity[], Severity | null][])('%s', (_why, list, expected) => {
    expect(maxSeverity(list)).toBe(expected);
  });
});
