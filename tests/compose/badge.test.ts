/**
 * The badge of a package record (src/compose/badge.ts): what it says and in which colour for each
 * score band and each highest severity, every style drawn as an SVG document, and the label's
 * fallbacks. The colours are badge-maker's values for the names docs/badges.md gives.
 */
import { describe, expect, it } from 'vitest';
import { composeBadge, type BadgeSource, type BadgeStyle } from '../../src/compose/badge.ts';
import { resolveQuery } from '../../src/surfaces/query.ts';
import { surface } from '../../src/surfaces/registry.ts';
import { expectSvgDocuments, parseFlatBadge } from '../helpers/svg.ts';

const scored = (normalizedScore: number | null): BadgeSource => ({ scorecard: { normalizedScore }, advisories: [] });
const advised = (...severities: BadgeSource['advisories'][number]['severity'][]): BadgeSource => ({
  scorecard: null,
  advisories: severities.map((severity) => ({ severity })),
});

/** The badge of the package-badge row for a raw query, as the gateway resolves it. */
const badge = (record: BadgeSource, raw: Record<string, string> = {}) => {
  const query = resolveQuery(surface('package-badge'), raw);
  return composeBadge(record, { metric: query.metric as 'score', style: query.style as BadgeStyle, label: query.label as string });
};

const STYLES = ['flat', 'flat-square', 'plastic', 'for-the-badge', 'social'];

describe('the score badge', () => {
  it.each([
    [100, '100/100', '#67ac09'],
    [80, '80/100', '#67ac09'],
    [79, '79/100', '#95991a'],
    [60, '60/100', '#95991a'],
    [59, '59/100', '#d8b800'],
    [40, '40/100', '#d8b800'],
    [39, '39/100', '#ea7233'],
    [20, '20/100', '#ea7233'],
    [19, '19/100', '#dd4343'],
    [0, '0/100', '#dd4343'],
  ])('%i shows "%s" in %s', async (score, message, color) => {
    expect(await parseFlatBadge(badge(scored(score)))).toEqual({ title: `scorecard: ${message}`, messageColor: color });
  });

  it('shows a grey "no score" for a package without a scorecard, or with an unknown score', async () => {
    const noScore = { title: 'scorecard: no score', messageColor: '#939393' };
    expect(await parseFlatBadge(badge({ scorecard: null, advisories: [] }))).toEqual(noScore);
    expect(await parseFlatBadge(badge(scored(null)))).toEqual(noScore);
  });
});

describe('the advisories badge', () => {
  it.each([
    [[], 'advisories: 0', '#67ac09'],
    [['low'], 'advisories: 1', '#95991a'],
    [['unknown'], 'advisories: 1', '#939393'],
    [['low', 'medium'], 'advisories: 2', '#ea7233'],
    [['high', 'unknown'], 'advisories: 2', '#dd4343'],
    [['critical', 'low'], 'advisories: 2', '#a4161a'],
  ] as const)('%j shows "%s" in %s', async (severities, title, color) => {
    expect(await parseFlatBadge(badge(advised(...severities), { metric: 'advisories' }))).toEqual({ title, messageColor: color });
  });
});

describe('options', () => {
  it('draws every metric in every style as an SVG document', async () => {
    const record: BadgeSource = { scorecard: { normalizedScore: 87 }, advisories: [{ severity: 'high' }] };
    const svgs = STYLES.flatMap((style) => ['score', 'advisories'].map((metric) => badge(record, { metric, style })));
    expect(new Set(svgs).size).toBe(10);
    await expectSvgDocuments(svgs);
  });

  it('falls back to the score and the flat style for values it does not know, and to the metric\'s label when none is given', () => {
    const record = scored(87);
    const plain = badge(record);
    expect(badge(record, { metric: 'bogus', style: 'bogus' })).toBe(plain);
    expect(badge(record, { metric: 'score', style: 'flat', label: '' })).toBe(plain);
    expect(badge(record, { label: 'scorecard' })).toBe(plain);
    expect(badge(record, { label: ' \t\n' })).toBe(plain);
  });

  it('cuts a label to 40 characters and drops control characters', async () => {
    expect((await parseFlatBadge(badge(scored(87), { label: 'x'.repeat(500) }))).title).toBe(`${'x'.repeat(40)}: 87/100`);
    expect((await parseFlatBadge(badge(scored(87), { label: 'my\u0000 lib\u0007' }))).title).toBe('my lib: 87/100');
    // Characters beyond the BMP count once and are never split.
    expect((await parseFlatBadge(badge(scored(87), { label: '🦀'.repeat(50) }))).title).toBe(`${'🦀'.repeat(40)}: 87/100`);
  });

  it('escapes the label: markup in it is text, not elements', async () => {
    const svg = badge(scored(87), { label: '<script>alert("x")</script>&' });
    await expectSvgDocuments([svg]);
    expect(svg).not.toContain('<script');
    expect((await parseFlatBadge(svg)).title).toBe('<script>alert("x")</script>&: 87/100');
  });

  it('is byte-stable: the same record gives the same bytes', () => {
    expect(badge(scored(42), { style: 'plastic' })).toBe(badge(scored(42), { style: 'plastic' }));
  });
});
