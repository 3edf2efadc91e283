/**
 * Resolving a `{sha}`/`{base}` path segment against a release's first-parent chain (SPEC.md
 * "Path parameter grammar" and Errors). Pure: the chain's shas come sorted, and a lookup is a
 * binary search, so a prefix costs O(log n) whatever the history's length.
 */
import { isFullSha, isShaPrefix } from '../src/grammar.ts';
import { lowerBound } from '../src/sorted.ts';

export type ShaResolution =
  /** A 40-hex sha on the chain. */
  | { kind: 'exact'; sha: string }
  /** A 7 to 39 hex prefix of exactly one sha on the chain: redirect to it. */
  | { kind: 'prefix'; sha: string }
  /** A prefix of several shas on the chain. */
  | { kind: 'ambiguous'; matches: number }
  /** Well-formed (7 to 40 lowercase hex) but on no commit of the chain. */
  | { kind: 'unknown' }
  /** Anything else: upper case, too short, too long, not hex. */
  | { kind: 'malformed' };

/** The first index whose sha is >= `key`. */
const firstAtOrAfter = (sorted: readonly string[], key: string): number => lowerBound(sorted.length, (index) => sorted[index] < key);

/** Resolves `text` against `sorted`, the chain's shas in ascending order. */
export function resolveSha(sorted: readonly string[], text: string): ShaResolution {
  if (isFullSha(text)) {
    const at = firstAtOrAfter(sorted, text);
    return sorted[at] === text ? { kind: 'exact', sha: text } : { kind: 'unknown' };
  }
  if (!isShaPrefix(text)) return { kind: 'malformed' };
  const first = firstAtOrAfter(sorted, text);
  let end = first;
  while (end < sorted.length && sorted[end].startsWith(text)) end++;
  const matches = end - first;
  if (matches === 0) return { kind: 'unknown' };
  if (matches === 1) return { kind: 'prefix', sha: sorted[first] };
  return { kind: 'ambiguous', matches };
}

/** Whether `text` is a sha as the negative cache understands it (DECISIONS.md 8): 7 to 40 lowercase hex. */
export function isWellFormedSha(text: string): boolean {
  return isFullSha(text) || isShaPrefix(text);
}
