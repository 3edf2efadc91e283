/** Recent commits (`/api/pkgs/recent-commits.json`, the `list_catalog_commits` tool). */
import type { CommitInfo } from './types.ts';

export const COMMITS_LIMIT = { default: 30, min: 1, max: 50 } as const;

/**
 * A `limit` query value: an integer clamped into [min, max]; anything non-numeric (absent,
 * empty, `abc`, `12abc`) falls back to the default (SPEC.md Limits).
 */
export function clampLimit(raw: unknown, bounds: { default: number; min: number; max: number } = COMMITS_LIMIT): number {
  const text = Array.isArray(raw) ? raw[0] : raw;
  if (typeof text === 'number' && Number.isFinite(text)) return Math.min(bounds.max, Math.max(bounds.min, Math.trunc(text)));
  if (typeof text !== 'string' || !/^\s*[-+]?\d+(\.\d+)?\s*$/.test(text)) return bounds.default;
  return Math.min(bounds.max, Math.max(bounds.min, Math.trunc(Number(text))));
}

/** The newest `limit` distinct commits of a chain given newest first. */
export function composeRecentCommits(chain: readonly CommitInfo[], limit: number): CommitInfo[] {
  const seen = new Set<string>();
  const commits: CommitInfo[] = [];
  for (const { sha, pushedAt, message } of chain) {
    if (commits.length >= limit) break;
    if (seen.has(sha)) continue;
    seen.add(sha);
    commits.push({ sha, message, pushedAt });
  }
  return commits;
}
