/**
 * Small pure helpers the page view models share: dates, shas, counts and the URLs a page may
 * turn into links. No clock, no locale: the same data gives the same page everywhere.
 */
import type { Severity } from '../compose/types.ts';

/** `2026-01-05T14:03:09Z` as `2026-01-05 14:03 UTC` (commit times are UTC already). */
export function formatTime(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return match ? `${match[1]} ${match[2]} UTC` : iso;
}

/** The date part of an ISO timestamp. */
export function formatDate(iso: string): string {
  return /^\d{4}-\d{2}-\d{2}/.exec(iso)?.[0] ?? iso;
}

/** The 12-character abbreviation pkgcat prints for a commit. */
export function shortSha(sha: string): string {
  return sha.slice(0, 12);
}

/** `2867` as `2,867` (no locale: the same bytes on every machine). */
export function formatCount(count: number): string {
  return String(count).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** `1 package`, `2,867 packages`. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}

/** Severities from the most to the least severe, for ordering and for the filter's options. */
export const SEVERITY_ORDER: readonly Severity[] = ['critical', 'high', 'medium', 'low', 'unknown'];

/** Sorts by severity, most severe first. */
export function bySeverity<T extends { severity: Severity }>(a: T, b: T): number {
  return SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity);
}

/** The first items of a long list, and how many were left out. */
export interface Capped<T> {
  readonly items: readonly T[];
  readonly more: number;
}

export function capped<T>(items: readonly T[], limit: number): Capped<T> {
  return { items: items.slice(0, limit), more: Math.max(0, items.length - limit) };
}
