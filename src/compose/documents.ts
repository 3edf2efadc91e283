/**
 * What the documents for agents, crawlers and feed readers (markdown mirrors, llms.txt, the
 * sitemap, the Atom feeds) are composed from: the latest state as the build already holds it
 * (the composed records, the transitive rollups, the version history), plus the facts derived
 * once from it for all of them (the advisories active at the tip and how far they reach).
 * Pure, like the rest of src/compose.
 */
import { sharedStrings } from '../memo.ts';
import { compareNames, nameKey } from '../grammar.ts';
import { fillTemplate, surface, type SurfaceId } from '../surfaces/registry.ts';
import type { Diff, FullAdvisory, PackageRecord, TransitiveAdvisory } from '../schemas/wire.ts';
import type { CommitInfo, VersionEvent } from './types.ts';

export interface TipDocuments {
  /** The latest commit of main. */
  readonly commit: CommitInfo;
  /** The public address of the site, without a trailing slash (DECISIONS.md 13). */
  readonly siteUrl: string;
  /** The composed record of every package at the tip, by name key, in listing order (compareNames). */
  readonly records: ReadonlyMap<string, PackageRecord>;
  /** The canonical name of every package at the tip, by name key: all a link to a package needs. */
  readonly names: ReadonlyMap<string, string>;
  /**
   * Each active advisory as the package that carries it sees it (its own fixed versions), by
   * `<name key> <advisory id>` (neither holds a space, src/grammar.ts): what a culprit path's
   * last package tells, without its record, which changes with every version it ships.
   */
  readonly carried: ReadonlyMap<string, FullAdvisory>;
  /** The transitive entries whose path starts at each package, by name key (absent: none). */
  readonly transitive: ReadonlyMap<string, readonly TransitiveAdvisory[]>;
  /** Every version each package shipped up to the tip, oldest first, by name key. */
  readonly history: ReadonlyMap<string, readonly VersionEvent[]>;
  /** The advisories active at the tip, by id (sorted), with how far each reaches. */
  readonly advisories: ReadonlyMap<string, AdvisoryReach>;
}

/** One advisory active at the tip: the packages it is active on, and every package that reaches one of them. */
export interface AdvisoryReach {
  readonly id: string;
  /** The advisory as seen from each package it is active on (their own fixed versions), in name order. */
  readonly direct: readonly { readonly record: PackageRecord; readonly advisory: FullAdvisory }[];
  /**
   * The blast radius: the packages that reach a directly affected one through build and runtime
   * dependencies, each with its path (the package's transitive entry: shortest, names first;
   * DECISIONS.md 2). A directly affected package is in `direct`, not here. Only what a document
   * shows is kept: the first BLAST_RADIUS_SHOWN in name order, the first BLAST_RADIUS_SHOWN
   * nearest first (shortest path, then name), and how many there are; the full bundle of a commit
   * has every one.
   */
  readonly reaching: readonly TransitiveAdvisory[];
  readonly nearest: readonly TransitiveAdvisory[];
  readonly reachCount: number;
}

/**
 * The most packages of an advisory's blast radius a document lists (its page, its markdown
 * mirror): the nearest (the page) or the first by name (the mirror), then how many more. An
 * advisory on a package everything depends on reaches thousands (vcpkg's zlib: 1,900), each with
 * a path, which made mirrors of megabytes; the full bundle of the commit has every one
 * (wholeBlastRadius). Atom feed entries list fewer (FEED_LIST_ITEMS).
 */
export const BLAST_RADIUS_SHOWN = 300;

/**
 * The most dependents of a package a document lists (its page, its mirror), then how many more:
 * enough for any ordinary package, and a bound on the documents of a package everything depends
 * on (vcpkg's `vcpkg-cmake` has 2,591). Its JSON record lists them all.
 */
export const DEPENDENTS_SHOWN = 300;

/** Where the whole blast radius of every advisory is: the full bundle of `sha` (signed in), each package's `transitiveAdvisories`. */
export function wholeBlastRadius(tip: Pick<TipDocuments, 'siteUrl'>, sha: string): string {
  return siteLink(tip, 'full-bundle', { sha });
}

/** What one commit changed against its first parent (the root: against an empty catalog), for the changes feed. */
export interface CommitChanges {
  readonly commit: CommitInfo;
  /** composeDiff of the commit against its parent: the same helper as the diff endpoint. */
  readonly diff: Pick<Diff, 'added' | 'removed' | 'versionChanges' | 'advisoryChanges'>;
  /** True for the first commit of main (diffed against an empty catalog). */
  readonly root: boolean;
}

/** What the transitive rollups say of one advisory's reach: its AdvisoryReach without the packages it is active on. */
export type RollupReach = Pick<AdvisoryReach, 'reaching' | 'nearest' | 'reachCount'>;

/**
 * Assembles the documents' input; `records` in any order. `reached`: the rollups' reach from the
 * package keys in name order (default: rollupReach over `transitive`), for a caller that kept it.
 */
export function tipDocuments(
  input: Omit<TipDocuments, 'advisories' | 'records' | 'names' | 'carried'> & { records: Iterable<PackageRecord>; reached?: (keys: readonly string[]) => ReadonlyMap<string, RollupReach> },
): TipDocuments {
  const { records: unsorted, reached = (keys) => rollupReach(keys, input.transitive), ...tip } = input;
  const sorted = [...unsorted].sort((a, b) => compareNames(a.name, b.name));
  const records = new Map(sorted.map((record) => [nameKey(record.name), record]));
  const names = new Map(sorted.map((record) => [nameKey(record.name), record.name]));
  const carried = new Map(sorted.flatMap((record) => record.advisories.map((advisory) => [carriedKey(record.name, advisory.id), advisory] as const)));
  return { ...tip, records, names, carried, advisories: advisoryReach(records, reached([...records.keys()])) };
}

/** The reach of every advisory active at the tip: the packages it is active on, from the records in name order (compareNames), and what the rollups say (rollupReach). */
export function advisoryReach(records: ReadonlyMap<string, PackageRecord>, reached: ReadonlyMap<string, RollupReach>): Map<string, AdvisoryReach> {
  const direct = new Map<string, { record: PackageRecord; advisory: FullAdvisory }[]>();
  for (const record of records.values()) {
    for (const advisory of record.advisories) {
      const list = direct.get(advisory.id);
      if (list) list.push({ record, advisory });
      else direct.set(advisory.id, [{ record, advisory }]);
    }
  }
  const none = { reaching: [], nearest: [], reachCount: 0 };
  return new Map([...direct.keys()].sort().map((id) => [id, { id, direct: direct.get(id)!, ...(reached.get(id) ?? none) }]));
}

/**
 * What the transitive entries of the packages `keys` (in name order) say of each advisory's reach.
 * Each package's entries are read once, and only what the documents show is kept of them: the
 * blast radius of an advisory on a package everything depends on is every package of the catalog,
 * each with a path. It reads every rollup of the catalog, so the build keeps it while they stay the same.
 */
export function rollupReach(keys: Iterable<string>, transitive: ReadonlyMap<string, readonly TransitiveAdvisory[]>): Map<string, RollupReach> {
  const reached = new Map<string, { reaching: TransitiveAdvisory[]; nearest: TransitiveAdvisory[]; reachCount: number }>();
  const shared = sharedStrings();
  for (const key of keys) {
    for (const entry of transitive.get(key) ?? []) {
      let reach = reached.get(entry.advisoryId);
      if (!reach) reached.set(entry.advisoryId, (reach = { reaching: [], nearest: [], reachCount: 0 }));
      reach.reachCount++;
      // Keys come in name order: the first ones are the first by name, and of two paths of one length the earlier stays first.
      const first = reach.reaching.length < BLAST_RADIUS_SHOWN;
      const near = isNearest(reach.nearest, entry.culpritPath.length);
      if (!first && !near) continue;
      const kept = sharedEntry(entry, shared);
      if (first) reach.reaching.push(kept);
      if (near) keepNearest(reach.nearest, kept);
    }
  }
  return reached;
}

/**
 * The reach `reached` (as a release stored it) with one string per distinct name and id: the kept
 * paths of the advisories on a hub run through the same few packages, and parsed, each occurrence
 * is a string of its own (at 20,000 packages, tens of MB of the same names).
 */
export function sharedReach(reached: Iterable<[string, RollupReach]>): Map<string, RollupReach> {
  const shared = sharedStrings();
  const entries = (list: readonly TransitiveAdvisory[]) => list.map((entry) => sharedEntry(entry, shared));
  return new Map([...reached].map(([id, { reaching, nearest, reachCount }]) => [shared(id), { reaching: entries(reaching), nearest: entries(nearest), reachCount }]));
}

const sharedEntry = (entry: TransitiveAdvisory, shared: (text: string) => string): TransitiveAdvisory => ({
  advisoryId: shared(entry.advisoryId),
  culpritPath: entry.culpritPath.map(shared),
});

/** Whether a path of `length` is one of the BLAST_RADIUS_SHOWN shortest of `nearest` (sorted by length, then by arrival). */
const isNearest = (nearest: readonly TransitiveAdvisory[], length: number): boolean =>
  nearest.length < BLAST_RADIUS_SHOWN || nearest[nearest.length - 1].culpritPath.length > length;

/** Adds `entry`, one of the BLAST_RADIUS_SHOWN shortest paths (isNearest), to `nearest`, after those no longer than it. */
function keepNearest(nearest: TransitiveAdvisory[], entry: TransitiveAdvisory): void {
  const length = entry.culpritPath.length;
  let at = nearest.length;
  while (at > 0 && nearest[at - 1].culpritPath.length > length) at--;
  nearest.splice(at, 0, entry);
  if (nearest.length > BLAST_RADIUS_SHOWN) nearest.pop();
}

/** The absolute URL of a registry row's path with its parameters (percent-encoded). */
export function siteLink(tip: Pick<TipDocuments, 'siteUrl'>, id: SurfaceId, params: Readonly<Record<string, string>> = {}): string {
  return `${tip.siteUrl}${fillTemplate(surface(id).path, params)}`;
}

/** The absolute URL of a site-relative path (a record's `links`). */
export function absolute(tip: Pick<TipDocuments, 'siteUrl'>, path: string): string {
  return `${tip.siteUrl}${path}`;
}

/** The key of TipDocuments.carried: the advisory `id` as the package `name` carries it. */
const carriedKey = (name: string, id: string) => `${nameKey(name)} ${id}`;

/** The advisory of `id` as the culprit of a transitive entry sees it (the last package of its path). */
export function culpritAdvisory(tip: TipDocuments, entry: TransitiveAdvisory): FullAdvisory | null {
  return tip.carried.get(carriedKey(entry.culpritPath[entry.culpritPath.length - 1], entry.advisoryId)) ?? null;
}

/**
 * Catalog text made safe to print in a text format: line ends as `\n`, and without the
 * characters XML 1.0 forbids (C0 controls but tab and line feed, lone surrogates, U+FFFE/U+FFFF),
 * which no reader of a mirror or a feed wants either.
 */
export function plainText(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/[^\t\n\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '');
}

/** Printable ASCII with single inner spaces: already on one line (most catalog text; the fast path). */
const ONE_LINE_ASCII = /^[\x21-\x7E]+(?: [\x21-\x7E]+)*$/;

/** Catalog text on one line: every run of white space (line ends included) as one space, trimmed. */
export function oneLine(text: string): string {
  return ONE_LINE_ASCII.test(text) ? text : plainText(text).replace(/\s+/g, ' ').trim();
}

/**
 * An http(s) URL from the catalog, normalized (spaces, quotes and angle brackets percent-encoded);
 * null for anything else (`javascript:`, relative, garbage), which documents and pages show as
 * text, never as a link.
 */
export function webUrl(raw: string | null | undefined): string | null {
  if (!raw) return null;
  try {
    const url = new URL(raw.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}
