/**
 * Version ordering and OSV range evaluation (CATALOG-FORMAT.md "advisories/<id>.json").
 *
 * The rule: split on `.`, `-`, `+`, `_` (empty pieces dropped), then each piece into runs of
 * digits and runs of non-digits. Numbers compare as numbers, text as text (code-unit order), and
 * text sorts before a number at the same position. When one list is a prefix of the other, the
 * longer one's next token decides: text marks a pre-release (`1.0-rc1` < `1.0`), a number a
 * later release (`1.0.1` > `1.0`).
 *
 * Catalog versions come from many upstream schemes (dates, `_1` port revisions, `2.0beta`), so no
 * single semver/PEP 440 library fits; this is the small rule the format documents.
 */
import type { OsvAffected, OsvEvent, OsvRecord } from './types.ts';

type Token = { num: string } | { text: string };

function tokenize(version: string): Token[] {
  const tokens: Token[] = [];
  for (const piece of version.split(/[.\-+_]/)) {
    for (const run of piece.match(/\d+|\D+/g) ?? []) {
      // Numbers are kept as digit strings without leading zeros: no parseInt overflow on long ones.
      tokens.push(/^\d/.test(run) ? { num: run.replace(/^0+/, '') } : { text: run });
    }
  }
  return tokens;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareTokens(a: Token, b: Token): number {
  if ('num' in a && 'num' in b) {
    return a.num.length - b.num.length || compareText(a.num, b.num);
  }
  if ('text' in a && 'text' in b) return compareText(a.text, b.text);
  return 'text' in a ? -1 : 1;
}

/** Negative when `a` sorts before `b`, 0 when they are the same version, positive otherwise. */
export function compareVersions(a: string, b: string): number {
  const ta = tokenize(a);
  const tb = tokenize(b);
  const shared = Math.min(ta.length, tb.length);
  for (let i = 0; i < shared; i++) {
    const c = compareTokens(ta[i]!, tb[i]!);
    if (c !== 0) return Math.sign(c);
  }
  if (ta.length === tb.length) return 0;
  // One is a prefix of the other: a trailing text token is a pre-release tag, a number is a later release.
  const longerIsA = ta.length > tb.length;
  const next = longerIsA ? ta[shared]! : tb[shared]!;
  const longerSign = 'text' in next ? -1 : 1;
  return longerIsA ? longerSign : -longerSign;
}

type EventKind = keyof OsvEvent;
const EVENT_KINDS: readonly EventKind[] = ['introduced', 'fixed', 'last_affected', 'limit'];
interface Event {
  kind: EventKind;
  version: string;
}

/** The entries of `affected[]` that name the package (case-insensitive); malformed ones are skipped. */
function entriesFor(osv: OsvRecord, packageKey: string): OsvAffected[] {
  const key = packageKey.toLowerCase();
  const affected: unknown = osv?.affected;
  if (!Array.isArray(affected)) return [];
  return affected.filter(
    (entry): entry is OsvAffected =>
      typeof entry === 'object' && entry !== null &&
      typeof entry.package?.name === 'string' && entry.package.name.toLowerCase() === key,
  );
}

/** An OSV event is exactly one of the four keys, with a string version; anything else is null. */
function parseEvent(raw: unknown): Event | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const kinds = EVENT_KINDS.filter((k) => k in raw);
  const version = kinds.length === 1 ? (raw as Record<string, unknown>)[kinds[0]!] : undefined;
  return typeof version === 'string' ? { kind: kinds[0]!, version } : null;
}

/**
 * The events of the entry's ECOSYSTEM/SEMVER ranges, one list per range. A range with a malformed
 * event is dropped whole: guessing which half of a broken range to trust could mark fixed
 * versions as affected or the other way round.
 */
function rangesOf(entry: OsvAffected): Event[][] {
  const ranges: unknown = entry.ranges;
  if (!Array.isArray(ranges)) return [];
  const result: Event[][] = [];
  for (const range of ranges) {
    if (typeof range !== 'object' || range === null) continue;
    if (range.type !== 'ECOSYSTEM' && range.type !== 'SEMVER') continue;
    if (!Array.isArray(range.events)) continue;
    const events = (range.events as unknown[]).map(parseEvent);
    if (events.every((e) => e !== null)) result.push(events);
  }
  return result;
}

// `introduced: "0"` means "from the beginning": below every version, whatever its scheme.
const isZero = (e: Event): boolean => e.kind === 'introduced' && e.version === '0';

/** The OSV reference walk: events sorted by version, each one switching the state on or off. */
function inRange(events: Event[], version: string): boolean {
  const limits = events.filter((e) => e.kind === 'limit').map((e) => e.version);
  // `limit: "*"` is the OSV spelling of "no upper limit".
  if (limits.length > 0 && !limits.some((l) => l === '*' || compareVersions(version, l) < 0)) {
    return false;
  }
  const sorted = events
    .filter((e) => e.kind !== 'limit')
    .sort((x, y) =>
      isZero(x) || isZero(y) ? Number(isZero(y)) - Number(isZero(x)) : compareVersions(x.version, y.version),
    );
  let affected = false;
  for (const e of sorted) {
    const c = isZero(e) ? 1 : compareVersions(version, e.version);
    if (e.kind === 'introduced' && c >= 0) affected = true;
    else if (e.kind === 'fixed' && c >= 0) affected = false;
    else if (e.kind === 'last_affected' && c > 0) affected = false;
  }
  return affected;
}

/** Whether `version` of the package (lowercased name) is affected by the advisory. Never throws. */
export function isAffected(osv: OsvRecord, packageKey: string, version: string): boolean {
  return entriesFor(osv, packageKey).some((entry) => {
    const listed: unknown = entry.versions;
    if (Array.isArray(listed) && listed.some((v) => typeof v === 'string' && compareVersions(v, version) === 0)) {
      return true;
    }
    return rangesOf(entry).some((events) => inRange(events, version));
  });
}

/** The `fixed` versions the advisory names for the package, distinct, ascending. */
export function fixedVersions(osv: OsvRecord, packageKey: string): string[] {
  const fixed = new Set<string>();
  for (const entry of entriesFor(osv, packageKey)) {
    for (const events of rangesOf(entry)) {
      for (const e of events) if (e.kind === 'fixed') fixed.add(e.version);
    }
  }
  // Spellings that compare equal (`2.14_1`, `2.14.1`) are both kept; text order keeps the output stable.
  return [...fixed].sort((a, b) => compareVersions(a, b) || compareText(a, b));
}

export function isWithdrawn(osv: OsvRecord): boolean {
  return typeof osv?.withdrawn === 'string';
}
