/**
 * Every HTML page of a release, as view models: what each page shows, computed from the bytes
 * and items the build composed. The Astro templates (site/) only lay these out, so everything a
 * page says is decided (and tested) here. Pure: no I/O, no clock.
 */
import { nameKey } from '../grammar.ts';
import type { AdvisoryReach, CommitChanges } from '../compose/documents.ts';
import type { CommitInfo, Severity, VersionEvent } from '../compose/types.ts';
import type { ListingBundle, PackageRecord, SlimAdvisory, TransitiveAdvisory } from '../schemas/wire.ts';
import { advisoryPageViews, type AdvisoryPageView } from './advisory-page.ts';
import { changesPageView, type ChangesPageView } from './changes-page.ts';
import { packagePageView, type PackagePageView } from './package-page.ts';
import { searchPageView, type SearchPageView } from './search-page.ts';

export type PageView = SearchPageView | PackagePageView | AdvisoryPageView | ChangesPageView;
export type { AdvisoryPageView, ChangesPageView, CommitChanges, PackagePageView, SearchPageView };

/** What the pages of one release are made from (build/writers.ts gathers it). */
export interface SiteInput {
  readonly tip: CommitInfo;
  /** The first-parent chain, newest first. */
  readonly chain: readonly CommitInfo[];
  readonly siteUrl: string;
  /** The tip's listing bundle, as `/api/pkgs/bundle/{sha}.json` serves it. */
  readonly listing: string;
  /** The bytes of `/api/pkgs/{name}.json` of a package present at the tip, by name key. */
  readonly envelope: (key: string) => string;
  /** The package record at the tip, by name key. */
  readonly record: (key: string) => PackageRecord;
  /** Transitive entries at the tip, by the name key of the package they start at. */
  readonly transitive: ReadonlyMap<string, readonly TransitiveAdvisory[]>;
  /** The advisories active at the tip and how far each reaches (src/compose/documents.ts advisoryReach). */
  readonly reach: ReadonlyMap<string, AdvisoryReach>;
  /** Every version each package shipped up to the tip, oldest first, by name key. */
  readonly history: ReadonlyMap<string, readonly VersionEvent[]>;
  /** What each of the newest commits changed (composeDiff against its parent), newest first. */
  readonly changes: readonly CommitChanges[];
}

/** Lookups every page kind shares, made once per release. */
export interface SiteContext {
  readonly input: SiteInput;
  readonly bundle: ListingBundle;
  /** The highest severity of each package's active advisories (null: none), by name key. */
  readonly severities: ReadonlyMap<string, Severity | null>;
  /** The canonical name of every package at the tip, by name key. */
  readonly names: ReadonlyMap<string, string>;
  readonly advisories: ReadonlyMap<string, SlimAdvisory>;
  readonly commits: ReadonlyMap<string, CommitInfo>;
}

export function siteContext(input: SiteInput): SiteContext {
  const bundle = JSON.parse(input.listing) as ListingBundle;
  const advisories = new Map<string, SlimAdvisory>();
  for (const card of bundle.packages) for (const advisory of card.advisories) if (!advisories.has(advisory.id)) advisories.set(advisory.id, advisory);
  const names = new Map(bundle.packages.map((card) => [nameKey(card.name), card.name]));
  const severities = new Map(bundle.packages.map((card) => [nameKey(card.name), card.maxSeverity]));
  return { input, bundle, severities, names, advisories, commits: new Map(input.chain.map((commit) => [commit.sha, commit])) };
}

export function searchPage(context: SiteContext): SearchPageView {
  return searchPageView({ listing: context.input.listing, bundle: context.bundle, siteUrl: context.input.siteUrl });
}

/** The detail page of every package at the tip, in listing order. */
export function* packagePages(context: SiteContext): Generator<PackagePageView> {
  const { input } = context;
  for (const card of context.bundle.packages) {
    const key = nameKey(card.name);
    yield packagePageView({
      envelope: input.envelope(key),
      record: input.record(key),
      transitive: input.transitive.get(key) ?? [],
      history: input.history.get(key) ?? [],
      severities: context.severities,
      names: context.names,
      advisories: context.advisories,
      commits: context.commits,
      siteUrl: input.siteUrl,
    });
  }
}

/**
 * The page of `id`, an advisory active at the tip. `tipSha`: the sha a blast radius cut short links
 * to (the build gives a stand-in, and the page a hole there). `maps`: the reach and names it is made
 * through (the build notes what the page reads through them).
 */
export function advisoryPage(
  context: SiteContext,
  id: string,
  tipSha: string = context.input.tip.sha,
  maps: { reach: ReadonlyMap<string, AdvisoryReach>; names: ReadonlyMap<string, string> } = { reach: context.input.reach, names: context.names },
): AdvisoryPageView {
  // The records it is active in, each as it carries this advisory alone.
  const records = maps.reach.get(id)!.direct.map(({ record, advisory }) => ({ ...record, advisories: [advisory] }));
  return advisoryPageViews({ records, reach: maps.reach, names: maps.names, siteUrl: context.input.siteUrl, tipSha })[0];
}

export function changesPage(context: SiteContext): ChangesPageView {
  const { input } = context;
  return changesPageView({
    tip: input.tip,
    changes: input.changes,
    chain: input.chain,
    names: context.names,
    activeAdvisories: new Set(context.advisories.keys()),
    siteUrl: input.siteUrl,
  });
}
