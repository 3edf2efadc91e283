/**
 * An advisory's severity (CATALOG-FORMAT.md "advisories/<id>.json", DECISIONS.md 9): the
 * database's own label when it has one, else the standard band of its first CVSS v3.x/v4.0 score.
 */
// The package is a CommonJS bundle whose exports Node cannot detect statically: named imports fail at runtime.
import cvssCalculator from 'ae-cvss-calculator';
import type { OsvRecord, Severity } from './types.ts';

const { Cvss3P0, Cvss3P1, Cvss4P0 } = cvssCalculator;

export interface CvssScore {
  version: string;
  vector: string;
  score: number;
}

export const SEVERITY_RANK: Record<Severity, number> = {
  critical: 4,
  high: 3,
  medium: 2,
  low: 1,
  unknown: 0,
};

// A Map, not an object literal: a label like "constructor" must not find a prototype member.
const DATABASE_LABELS = new Map<string, Severity>([
  ['critical', 'critical'],
  ['high', 'high'],
  ['moderate', 'medium'],
  ['medium', 'medium'],
  ['low', 'low'],
]);

type Parsed = { isBaseFullyDefined(): boolean };
// The calculator throws on unknown metrics but silently scores a vector missing base metrics.
const complete = <T extends Parsed>(parsed: T): T | null => (parsed.isBaseFullyDefined() ? parsed : null);

// Base scores only, alike for both versions: v3 `base` leaves temporal/environmental metrics out,
// and v4 `baseMetricsOnly` (CVSS-B) does the same for threat/environmental ones (v4 `base` would not).
const CALCULATORS: { prefix: string; version: string; base: (vector: string) => number | undefined }[] = [
  { prefix: 'CVSS:3.0/', version: '3.0', base: (v) => complete(new Cvss3P0(v))?.calculateScores().base },
  { prefix: 'CVSS:3.1/', version: '3.1', base: (v) => complete(new Cvss3P1(v))?.calculateScores().base },
  { prefix: 'CVSS:4.0/', version: '4.0', base: (v) => complete(new Cvss4P0(v))?.calculateScores().baseMetricsOnly },
];

/** The base score of a v3.x/v4.0 vector, or null when the vector is not one or is incomplete/invalid. */
function scoreVector(vector: string): CvssScore | null {
  const calc = CALCULATORS.find((c) => vector.startsWith(c.prefix));
  if (!calc) return null;
  let score: number | undefined;
  try {
    score = calc.base(vector);
  } catch {
    return null;
  }
  if (typeof score !== 'number' || !Number.isFinite(score) || score < 0 || score > 10) return null;
  return { version: calc.version, vector, score };
}

/** The first `severity[]` entry that is a valid CVSS v3.x/v4.0 vector (invalid ones are passed over). */
function firstCvss(osv: OsvRecord): CvssScore | null {
  const entries: unknown = osv?.severity;
  if (!Array.isArray(entries)) return null;
  for (const entry of entries) {
    if (typeof entry !== 'object' || entry === null || typeof entry.score !== 'string') continue;
    // The vector's own `CVSS:3.x/` / `CVSS:4.0/` prefix picks the calculator, whatever `type` says:
    // a CVSS_V3/V4 entry without one cannot be scored, and a mislabelled one still can.
    const scored = scoreVector(entry.score.trim());
    if (scored) return scored;
  }
  return null;
}

/** The CVSS qualitative bands, with 0.0 ("none") folded into low: the advisory still exists. */
function band(score: number): Severity {
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  return 'low';
}

export function severityOf(osv: OsvRecord): { severity: Severity; cvss: CvssScore | null } {
  const cvss = firstCvss(osv);
  const label: unknown = osv?.database_specific?.severity;
  const fromDatabase = typeof label === 'string' ? DATABASE_LABELS.get(label.trim().toLowerCase()) : undefined;
  return { severity: fromDatabase ?? (cvss ? band(cvss.score) : 'unknown'), cvss };
}

/** The highest severity of the list; null when it is empty. */
export function maxSeverity(list: Severity[]): Severity | null {
  let max: Severity | null = null;
  for (const s of list) if (max === null || SEVERITY_RANK[s] > SEVERITY_RANK[max]) max = s;
  return max;
}
