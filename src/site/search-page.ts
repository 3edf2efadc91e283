/**
 * The search page (`/`): the listing bundle inline, exactly as `/api/pkgs/bundle/{sha}.json`
 * serves it (SPEC.md "Listing bundle"), and a plain list of every package rendered from it, which
 * works without JavaScript; the script filters and sorts that list (search-filter.ts).
 */
import type { ListingBundle, PackageCard } from '../schemas/wire.ts';
import type { Severity } from '../compose/types.ts';
import { packagePageHref, pageFrame, SITE_PATHS, type PageFrame } from './frame.ts';
import { formatCount, plural, SEVERITY_ORDER } from './format.ts';

export interface SearchRow {
  readonly name: string;
  readonly href: string;
  readonly version: string;
  readonly description: string;
  readonly license: string;
  readonly categories: readonly string[];
  readonly stars: number;
  readonly starsText: string;
  readonly maxSeverity: Severity | null;
  /** `2 advisories` or null. */
  readonly advisoriesText: string | null;
}

export interface SearchPageView {
  readonly kind: 'search';
  readonly frame: PageFrame;
  /** The listing bundle's bytes, verbatim: embedded as `<script type="application/json">`. */
  readonly bundle: string;
  readonly packages: readonly SearchRow[];
  readonly categories: readonly string[];
  readonly severities: readonly Severity[];
  readonly countText: string;
}

export interface SearchPageInput {
  /** The tip's listing bundle as served (the serializer escaped `<`, `>` and `&`: safe inline). */
  readonly listing: string;
  /** The same, parsed. */
  readonly bundle: ListingBundle;
  readonly siteUrl: string;
}

function row(card: PackageCard): SearchRow {
  return {
    name: card.name,
    href: packagePageHref(card.name),
    version: card.version,
    description: card.description,
    license: card.license,
    categories: card.categories,
    stars: card.stars,
    starsText: formatCount(card.stars),
    maxSeverity: card.maxSeverity,
    advisoriesText: card.advisories.length > 0 ? plural(card.advisories.length, 'advisory', 'advisories') : null,
  };
}

export function searchPageView(input: SearchPageInput): SearchPageView {
  const { bundle } = input;
  return {
    kind: 'search',
    frame: pageFrame({
      title: 'pkgcat · package catalog',
      description: `Search ${plural(bundle.packages.length, 'package')} of the catalog by name and description, by category and by advisory severity.`,
      path: SITE_PATHS.search,
      section: 'search',
      tip: { sha: bundle.commitSha, pushedAt: bundle.pushedAt, message: null },
      siteUrl: input.siteUrl,
      alternates: [{ href: SITE_PATHS.llms, type: 'text/plain', title: 'llms.txt' }],
    }),
    bundle: input.listing,
    packages: bundle.packages.map(row),
    categories: bundle.allCategories,
    severities: SEVERITY_ORDER,
    countText: plural(bundle.packages.length, 'package'),
  };
}
