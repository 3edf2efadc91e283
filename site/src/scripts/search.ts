/**
 * The search page's script: filters and sorts the server-rendered list in place, from the
 * listing bundle inlined in the page, and keeps the filters in the URL's query string. The
 * filter itself is src/site/search-filter.ts (tested there). Without JavaScript the page shows
 * the whole list, and a `<noscript>` style hides the form.
 */
import { readState, select, writeState, type FilterCard, type SearchState, type SortKey } from '../../../src/site/search-filter.ts';

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

export function startSearch(): void {
  const form = byId<HTMLFormElement>('search');
  const list = byId<HTMLOListElement>('packages');
  const count = byId<HTMLParagraphElement>('count');
  const signIn = document.getElementById('sign-in') as HTMLAnchorElement | null;
  const signInPath = signIn ? new URL(signIn.href).pathname : '';
  const q = byId<HTMLInputElement>('q');
  const category = byId<HTMLSelectElement>('category');
  const severity = byId<HTMLSelectElement>('severity');
  const sort = byId<HTMLSelectElement>('sort');
  const cards = (JSON.parse(byId('bundle').textContent ?? '{}') as { packages: FilterCard[] }).packages;
  // The list holds one item per card, in the bundle's order.
  const items = Array.from(list.children) as HTMLLIElement[];
  const options = (select: HTMLSelectElement) => Array.from(select.options, (option) => option.value).filter((value) => value !== '');
  const known = { categories: options(category), severities: options(severity) };

  const apply = (state: SearchState, updateUrl: boolean) => {
    const kept = select(cards, state);
    const shown = new Set(kept);
    items.forEach((item, index) => (item.hidden = !shown.has(index)));
    // Reordered only when the order changes: moving every item costs a layout.
    const order = kept.map((index) => items[index]);
    const current = Array.from(list.children).filter((item) => !(item as HTMLElement).hidden);
    if (order.some((item, index) => current[index] !== item)) list.append(...order);
    count.textContent = `${kept.length.toLocaleString('en-US')} of ${cards.length.toLocaleString('en-US')} packages`;
    const query = writeState(state);
    if (updateUrl && query !== location.search) history.replaceState(null, '', `${location.pathname}${query}`);
    if (signIn) signIn.href = query === '' ? signInPath : `${signInPath}?next=${encodeURIComponent(`${location.pathname}${query}`)}`;
  };
  const fromForm = (): SearchState => ({ q: q.value.trim(), category: category.value, severity: severity.value, sort: sort.value as SortKey });

  const initial = readState(new URLSearchParams(location.search), known);
  q.value = initial.q;
  category.value = initial.category;
  severity.value = initial.severity;
  sort.value = initial.sort;
  form.addEventListener('submit', (event) => event.preventDefault());
  form.addEventListener('input', () => apply(fromForm(), true));
  form.addEventListener('change', () => apply(fromForm(), true));
  apply(initial, false);
}
