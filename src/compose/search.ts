/**
 * The `search_packages` tool's search (SPEC.md "Tool server", DECISIONS.md 9), and the closest
 * names an "unknown package" answer suggests. Pure: an index is made once from a commit's
 * listing bundle (gateway/mcp/search-index.ts keeps one per published release), and a search
 * reads only it: a query word is checked against the packages holding all of its trigrams, and
 * filters are lists made in advance, so a call reads no file and walks no list of every package.
 *
 * How a search matches and orders (docs/mcp.md repeats it for users):
 * - `query` is split into words at white space; a package matches when EVERY word occurs,
 *   case-insensitively, as a substring of its name or of its description (each word may be found
 *   in either).
 * - `category` keeps packages that have that category among theirs (case-insensitive, whole category).
 * - `severity` keeps packages with at least one active direct advisory of exactly that severity.
 * - Order: with a query, packages whose name is one of its words first, then names starting with
 *   one of them, then names containing one, then the rest (matched through their descriptions);
 *   within each group, and without a query, by name (case-folded, as every listing). The same
 *   query on the same commit gives the same order, so `offset` pages through it.
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
}

export interface SearchIndex {
  /** The commit indexed. */
  readonly commitSha: string;
  readonly pushedAt: string;
  /** In listing order (by name); the lists below hold positions in it, ascending. */
  readonly entries: readonly Entry[];
  /** Each entry's name and description, lower case: what a query word must occur in. */
  readonly texts: readonly string[];
  /**
   * The entries whose text holds each trigram (three characters in a row): a word of three or
   * more characters can only occur in the entries holding all of its trigrams, so a search
   * checks those few instead of every package.
   */
  readonly trigrams: ReadonlyMap<string, Int32Array>;
  /** The entries with each category, by its lower-case form. */
  readonly byCategory: ReadonlyMap<string, readonly number[]>;
  /** The entries with at least one active direct advisory of each severity. */
  readonly bySeverity: ReadonlyMap<Severity, readonly number[]>;
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

const GRAM = 3;

/** Adds `position` to the list of `key` (positions come in ascending order, each list holds one once). */
function addTo<K>(map: Map<K, number[]>, key: K, position: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [position]);
  else if (list[list.length - 1] !== position) list.push(position);
}

/** The index of a commit's listing bundle (its cards are in name order already). */
export function buildSearchIndex(listing: ListingBundle): SearchIndex {
  const byCategory = new Map<string, number[]>();
  const bySeverity = new Map<Severity, number[]>();
  const trigrams = new Map<string, number[]>();
  const texts: string[] = [];
  const entries = listing.packages.map((card, position): Entry => {
    const text = `${nameKey(card.name)}\n${card.description.toLowerCase()}`;
    texts.push(text);
    for (let at = 0; at + GRAM <= text.length; at++) addTo(trigrams, text.slice(at, at + GRAM), position);
    for (const category of card.categories) addTo(byCategory, category.toLowerCase(), position);
    for (const advisory of card.advisories) addTo(bySeverity, advisory.severity, position);
    const { name, version, license, categories, advisories, maxSeverity } = card;
    return { hit: { name, version, license, categories, advisories, maxSeverity }, name: nameKey(name) };
  });
  return {
    commitSha: listing.commitSha,
    pushedAt: listing.pushedAt,
    entries,
    texts,
    trigrams: new Map([...trigrams].map(([gram, list]) => [gram, Int32Array.from(list)])),
    byCategory,
    bySeverity,
    categories: new Map(listing.allCategories.map((category) => [category.toLowerCase(), category])),
  };
}

/** The words of a query: split at white space, lower case; none for a blank query. */
export function queryWords(query: string | undefined): string[] {
  return (query ?? '').toLowerCase().split(/\s+/).filter((word) => word !== '');
}

function contains(sorted: Int32Array, value: number): boolean {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle] === value) return true;
    if (sorted[middle] < value) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}

/** The entries whose text holds `word`, ascending. */
function holding(index: SearchIndex, word: string): number[] {
  let candidates: Iterable<number> = index.texts.keys();
  if (word.length >= GRAM) {
    const lists: Int32Array[] = [];
    for (let at = 0; at + GRAM <= word.length; at++) {
      const list = index.trigrams.get(word.slice(at, at + GRAM));
      if (list === undefined) return [];
      lists.push(list);
    }
    // The rarest trigrams narrow it down; the text itself decides.
    lists.sort((a, b) => a.length - b.length);
    let narrowed = Array.from(lists[0]);
    for (const list of lists.slice(1, 4)) narrowed = narrowed.filter((position) => contains(list, position));
    candidates = narrowed;
  }
  const found: number[] = [];
  for (const position of candidates) if (index.texts[position].includes(word)) found.push(position);
  return found;
}

/** The positions in every one of `lists` (each ascending), ascending. */
function intersect(lists: readonly (readonly number[])[]): readonly number[] {
  const [shortest, ...others] = [...lists].sort((a, b) => a.length - b.length);
  const sets = others.map((list) => new Set(list));
  return shortest.filter((position) => sets.every((set) => set.has(position)));
}

/** The group a matching entry sorts in (lower first); see the module comment. */
function rank(entry: Entry, words: readonly string[]): number {
  if (words.includes(entry.name)) return 0;
  if (words.some((word) => entry.name.startsWith(word))) return 1;
  if (words.some((word) => entry.name.includes(word))) return 2;
  return 3;
}

/** Every match of `search` in the documented order, then the page `offset`..`offset + limit`. */
export function searchPackages(index: SearchIndex, search: SearchQuery): SearchResult {
  const words = queryWords(search.query);
  const lists: (readonly number[])[] = words.map((word) => holding(index, word));
  if (search.category !== undefined) lists.push(index.byCategory.get(search.category.toLowerCase()) ?? []);
  if (search.severity !== undefined) lists.push(index.bySeverity.get(search.severity) ?? []);
  let matches: readonly Entry[];
  if (lists.length === 0) {
    matches = index.entries;
  } else {
    const positions = intersect(lists);
    // One list per rank group, each in the listing's name order.
    const groups: Entry[][] = [[], [], [], []];
    for (const position of positions) {
      const entry = index.entries[position];
      groups[words.length > 0 ? rank(entry, words) : 0].push(entry);
    }
    matches = groups.flat();
  }
  return {
    schemaVersion: SCHEMA_VERSION,
    commitSha: index.commitSha,
    pushedAt: index.pushedAt,
    total: matches.length,
    offset: search.offset,
    packages: matches.slice(search.offset, search.offset + search.limit).map((entry) => entry.hit),
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
