/**
 * The `search_packages` tool's search (SPEC.md "Tool server", DECISIONS.md 9), and the closest
 * names an "unknown package" answer suggests. Pure: an index is made once from a commit's
 * listing bundle (gateway/mcp/search-index.ts keeps one per published release), and each search
 * walks its in-memory entries, so a call reads no file.
 *
 * How a search matches and orders (docs/mcp.md repeats it for users):
 * - `query` is split into words at white space; a package matches when EVERY word occurs,
 *   case-insensitively, as a substring of its name or of its description (each word may be found
 *   in either).
 * - `category` keeps packages that have that category among theirs (case-insensitive, whole category).
 * - `severity` keeps packages with at least one active direct advisory of exactly that severity.
 * - Order: with a query, packages whose name equals the query first, then names starting with it,
 *   then names holding every word, then matches through the description; within each group, and
 *   without a query, by name (case-folded, as every listing). The same query on the same commit
 *   gives the same order, so `offset` pages through it.
 */
import { compareNames, nameKey } from '../grammar.ts';
import { SCHEMA_VERSION, type ListingBundle, type SearchHit, type SearchResult } from '../schemas/wire.ts';
import type { Severity } from './types.ts';

/** `limit` of search_packages: SPEC.md Limits. */
export const SEARCH_LIMIT = { default: 20, min: 1, max: 50 } as const;

interface Entry {
  readonly hit: SearchHit;
  /** The name, lower case. */
  readonly name: string;
  /** Name and description, lower case, for word matches. */
  readonly text: string;
  readonly categories: ReadonlySet<string>;
  readonly severities: ReadonlySet<Severity>;
}

export interface SearchIndex {
  /** The commit indexed. */
  readonly commitSha: string;
  readonly pushedAt: string;
  /** In listing order (by name). */
  readonly entries: readonly Entry[];
  /** Every category at the commit, as spelled in the catalog, by its lower-case form. */
  readonly categories: ReadonlyMap<string, string>;
}

export interface SearchQuery {
  readonly query?: string;
  readonly category?: string;
  readonly severity?: Severity;
  readonly limit: number;
  readonly offset: number;
}

/** The index of a commit's listing bundle (its cards are in name order already). */
export function buildSearchIndex(listing: ListingBundle): SearchIndex {
  const entries = listing.packages.map((card): Entry => ({
    hit: {
      name: card.name,
      version: card.version,
      license: card.license,
      categories: card.categories,
      advisories: card.advisories,
      maxSeverity: card.maxSeverity,
    },
    name: nameKey(card.name),
    text: `${nameKey(card.name)}\n${card.description.toLowerCase()}`,
    categories: new Set(card.categories.map((category) => category.toLowerCase())),
    severities: new Set(card.advisories.map((advisory) => advisory.severity)),
  }));
  const categories = new Map(listing.allCategories.map((category) => [category.toLowerCase(), category]));
  return { commitSha: listing.commitSha, pushedAt: listing.pushedAt, entries, categories };
}

/** The words of a query: split at white space, lower case; none for a blank query. */
export function queryWords(query: string | undefined): string[] {
  return (query ?? '').toLowerCase().split(/\s+/).filter((word) => word !== '');
}

/** The group a matching entry sorts in (lower first); see the module comment. */
function rank(entry: Entry, phrase: string, words: readonly string[]): number {
  if (entry.name === phrase) return 0;
  if (entry.name.startsWith(phrase)) return 1;
  if (words.every((word) => entry.name.includes(word))) return 2;
  return 3;
}

/** Every match of `search` in the documented order, then the page `offset`..`offset + limit`. */
export function searchPackages(index: SearchIndex, search: SearchQuery): SearchResult {
  const words = queryWords(search.query);
  const category = search.category?.toLowerCase();
  const matches: { entry: Entry; rank: number }[] = [];
  for (const entry of index.entries) {
    if (category !== undefined && !entry.categories.has(category)) continue;
    if (search.severity !== undefined && !entry.severities.has(search.severity)) continue;
    if (!words.every((word) => entry.text.includes(word))) continue;
    matches.push({ entry, rank: words.length === 0 ? 0 : rank(entry, words.join(' '), words) });
  }
  // Array.prototype.sort is stable: within a group the listing's name order stays.
  if (words.length > 0) matches.sort((a, b) => a.rank - b.rank);
  return {
    schemaVersion: SCHEMA_VERSION,
    commitSha: index.commitSha,
    pushedAt: index.pushedAt,
    total: matches.length,
    offset: search.offset,
    packages: matches.slice(search.offset, search.offset + search.limit).map((match) => match.entry.hit),
  };
}

/** Levenshtein distance of `a` and `b`, or `limit + 1` as soon as it must exceed `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMinimum = i;
    for (let j = 1; j <= b.length; j++) {
      const value = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      current.push(value);
      rowMinimum = Math.min(rowMinimum, value);
    }
    if (rowMinimum > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length];
}

/**
 * Up to `max` of `names` closest to `wanted`, for an "unknown package" answer: names within a few
 * edits (a third of the length, at least 2), and names that contain it or that it contains;
 * nearest first, then by name.
 */
export function closestNames(names: Iterable<string>, wanted: string, max = 5): string[] {
  const key = nameKey(wanted);
  if (key === '') return [];
  const limit = Math.max(2, Math.floor(key.length / 3));
  const scored: { name: string; score: number }[] = [];
  for (const name of names) {
    const candidate = nameKey(name);
    const distance = editDistance(key, candidate, limit);
    const contains = key.length >= 3 && (candidate.includes(key) || (candidate.length >= 3 && key.includes(candidate)));
    if (distance <= limit) scored.push({ name, score: distance });
    else if (contains) scored.push({ name, score: limit + Math.abs(candidate.length - key.length) });
  }
  scored.sort((a, b) => a.score - b.score || compareNames(a.name, b.name));
  return scored.slice(0, max).map((entry) => entry.name);
}
