/**
 * `/api/pkgs/{name}/badge.svg`: a shields-style SVG badge of a package record (SPEC.md Endpoints,
 * additional rule 1), drawn by shields' own `badge-maker`. The record is the one the package JSON
 * serves, so the badge and the JSON never disagree. Pure: the same record and options give the
 * same bytes. docs/badges.md shows every face and colour.
 */
import { makeBadge } from 'badge-maker';
import type { PackageRecord } from '../schemas/wire.ts';
import { maxSeverity } from './severity.ts';
import type { Severity } from './types.ts';

/** The metrics (registry row `package-badge`, parameter `metric`). */
export type BadgeMetric = 'score' | 'advisories';

/** shields' five styles, as badge-maker names them (the registry's `style` values; tests/compose/badge.test.ts draws each). */
export type BadgeStyle = NonNullable<Parameters<typeof makeBadge>[0]['style']>;

export interface BadgeOptions {
  readonly metric: BadgeMetric;
  readonly style: BadgeStyle;
  /** The left-hand text; '' gives the metric's own (DEFAULT_LABEL). */
  readonly label: string;
}

/** What a badge says, before it is drawn. */
export interface BadgeFace {
  readonly label: string;
  readonly message: string;
  /** A badge-maker colour: a shields name or a hex value. */
  readonly color: string;
}

export const DEFAULT_LABEL: Readonly<Record<BadgeMetric, string>> = {
  score: 'scorecard',
  advisories: 'advisories',
};

/** Score bands, highest first: a 0 to 100 score takes the colour of the first band it reaches. */
export const SCORE_BANDS: readonly { readonly min: number; readonly color: string }[] = [
  { min: 80, color: 'green' },
  { min: 60, color: 'yellowgreen' },
  { min: 40, color: 'yellow' },
  { min: 20, color: 'orange' },
  { min: 0, color: 'red' },
];

/** A package without a scorecard, or whose scorecard has no overall score (-1). */
export const NO_SCORE: Omit<BadgeFace, 'label'> = { message: 'no score', color: 'lightgrey' };

/** The advisory count's colour: the highest active severity's; green when there is none. */
export const SEVERITY_COLOR: Readonly<Record<Severity, string>> = {
  critical: '#a4161a',
  high: 'red',
  medium: 'orange',
  low: 'yellowgreen',
  unknown: 'lightgrey',
};
export const NO_ADVISORIES_COLOR = 'green';

/** The part of a record a badge reads. */
export type BadgeSource = {
  readonly scorecard: Pick<NonNullable<PackageRecord['scorecard']>, 'normalizedScore'> | null;
  readonly advisories: readonly Pick<PackageRecord['advisories'][number], 'severity'>[];
};

function scoreFace(record: BadgeSource): Omit<BadgeFace, 'label'> {
  const score = record.scorecard?.normalizedScore ?? null;
  if (score === null) return NO_SCORE;
  const band = SCORE_BANDS.find((candidate) => score >= candidate.min) ?? SCORE_BANDS[SCORE_BANDS.length - 1];
  return { message: `${score}/100`, color: band.color };
}

function advisoriesFace(record: BadgeSource): Omit<BadgeFace, 'label'> {
  const highest = maxSeverity(record.advisories.map(({ severity }) => severity));
  return { message: String(record.advisories.length), color: highest === null ? NO_ADVISORIES_COLOR : SEVERITY_COLOR[highest] };
}

/** What the badge of `record` says for `metric`, under `label` ('' gives the metric's own). */
export function badgeFace(record: BadgeSource, metric: BadgeMetric, label: string): BadgeFace {
  return { label: label || DEFAULT_LABEL[metric], ...(metric === 'advisories' ? advisoriesFace(record) : scoreFace(record)) };
}

/** The SVG of a face: badge-maker escapes the texts. */
export function drawBadge(face: BadgeFace, style: BadgeStyle): string {
  return makeBadge({ label: face.label, message: face.message, color: face.color, style });
}

export function composeBadge(record: BadgeSource, options: BadgeOptions): string {
  return drawBadge(badgeFace(record, options.metric, options.label), options.style);
}

/** The options of a resolved query (src/surfaces/query.ts resolveQuery on the `package-badge` row). */
export function badgeOptions(query: Readonly<Record<string, string | number>>): BadgeOptions {
  return { metric: query.metric as BadgeMetric, style: query.style as BadgeStyle, label: String(query.label ?? '') };
}
