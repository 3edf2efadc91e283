/**
 * The search page's filter, shared by the browser script (site/src/scripts/search.ts) and the
 * tests: the state in the URL's query string, which packages it keeps, and their order. Pure and
 * self-contained (it is bundled into the page): no imports.
 *
 *   ?q=       words, each found (case-insensitively) in the name or the description
 *   ?category= a category the package lists
 *   ?severity= packages with at least one active direct advisory of exactly that severity (DECISIONS.md 9)
 *   ?sort=stars  most stars first (default: by name, the listing bundle's order)
 */

/** What the filter reads of a listing bundle card. */
export interface FilterCard {
  readonly name: string;
  readonly description: string;
  readonly categories: readonly string[];
  readonly stars: number;
  readonly advisories: readonly { readonly severity: string }[];
}

export type SortKey = 'name' | 'stars';

export interface SearchState {
  readonly q: string;
  readonly category: string;
  readonly severity: string;
  readonly sort: SortKey;
}

export const EMPTY_STATE: SearchState = { q: '', category: '', severity: '', sort: 'name' };

/** The state a query string asks for; values it does not know fall back to "no filter". */
export function readState(params: URLSearchParams, known: { categories: readonly string[]; severities: readonly string[] }): SearchState {
  const category = params.get('category') ?? '';
  const severity = params.get('severity') ?? '';
  return {
    q: (params.get('q') ?? '').trim(),
    category: known.categories.includes(category) ? category : '',
    severity: known.severities.includes(severity) ? severity : '',
    sort: params.get('sort') === 'stars' ? 'stars' : 'name',
  };
}

/** The query string of a state (`?q=...`), defaults left out; empty when nothing is set. */
export function writeState(state: SearchState): string {
  const params = new URLSearchParams();
  if (state.q !== '') params.set('q', state.q);
  if (state.category !== '') params.set('category', state.category);
  if (state.severity !== '') params.set('severity', state.severity);
  if (state.sort !== 'name') params.set('sort', state.sort);
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** The lowercase words of a query. */
export function queryWords(q: string): string[] {
  return q.toLowerCase().split(/\s+/).filter((word) => word !== '');
}

/** True when `card` passes every filter of `state` (`words` = queryWords(state.q)). */
export function matches(card: FilterCard, state: SearchState, words: readonly string[] = queryWords(state.q)): boolean {
  if (state.category !== '' && !card.categories.includes(state.category)) return false;
  if (state.severity !== '' && !card.advisories.some((advisory) => advisory.severity === state.severity)) return false;
  if (words.length === 0) return true;
  const text = `${card.name}\n${card.description}`.toLowerCase();
  return words.every((word) => text.includes(word));
}

/** Indices of the cards `state` keeps, in its order (cards come in the listing's order, by name). */
export function select(cards: readonly FilterCard[], state: SearchState): number[] {
  const words = queryWords(state.q);
  const kept: number[] = [];
  for (let index = 0; index < cards.length; index++) if (matches(cards[index], state, words)) kept.push(index);
  if (state.sort === 'stars') kept.sort((a, b) => cards[b].stars - cards[a].stars || a - b);
  return kept;
}
