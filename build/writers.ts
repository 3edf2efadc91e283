/**
 * The writers of a release's public files: one per registry row that has a `publicFile`
 * (src/surfaces/registry.ts), keyed by row id. A writer yields the row's template parameters and
 * the body for each file; publish.ts places it at the row's public file and validate.ts checks it
 * against the row's wire schema. A new static surface is a registry row, a pure compose
 * function, and one writer here.
 */
import { RawJson, serialize } from '../src/serialize.ts';
import { composeEnvelope } from '../src/compose/package.ts';
import { composeRecentCommits } from '../src/compose/commits.ts';
import { isReservedName } from '../src/grammar.ts';
import { fillTemplate, surface } from '../src/surfaces/registry.ts';
import type { CommitInfo, Diagnostic } from '../src/compose/types.ts';
import type { PackageRecord, TransitiveAdvisory, VersionHistory } from '../src/schemas/wire.ts';
import { advisoryPages, changesPage, packagePages, searchPage, siteContext, type CommitChange, type PageView, type SiteContext } from '../src/site/pages.ts';
import { loadSite } from './site.ts';

/** Everything a release is made from (the tip's composed items, the chain, the settings). */
export interface ReleaseContent {
  tip: CommitInfo;
  /** Newest first. */
  chain: CommitInfo[];
  /** Serialized package records at the tip, by name key. */
  records: ReadonlyMap<string, string>;
  /** Keys whose records this build composed anew; the others were published (and checked) by an earlier build. */
  recomposedRecords: ReadonlySet<string>;
  /** Canonical names at the tip, by name key. */
  names: ReadonlyMap<string, string>;
  diagnostics: readonly Diagnostic[];
  /** The public address of the site, without a trailing slash (sitemap, feeds, llms.txt, SPDX namespaces). */
  siteUrl: string;
  /** What the HTML pages need beyond the records (build/build.ts gathers it). */
  pages: PageContent;
}

/** The tip's items the HTML pages read besides its records. */
export interface PageContent {
  /** The listing bundle, exactly as `/api/pkgs/bundle/{sha}.json` serves it (the search page inlines it). */
  listing: string;
  /** Transitive rollups by the name key of the package they start at. */
  transitive: ReadonlyMap<string, readonly TransitiveAdvisory[]>;
  /** Version histories (versions.json's `versions`) by name key. */
  versions: ReadonlyMap<string, VersionHistory['versions']>;
  /** The recent commits' diffs against their parents, newest first (the changes page). */
  changes: readonly CommitChange[];
}

export interface PublicBody {
  /** Values of the row's `publicFile` template parameters. */
  readonly params: Readonly<Record<string, string>>;
  /** The file's text, or its UTF-8 bytes (a rendered page, never decoded). */
  readonly body: string | Uint8Array;
}

export type Writer = (content: ReleaseContent) => Iterable<PublicBody> | AsyncIterable<PublicBody>;

/** Bodies made once per release and read by several writers (the envelope is inlined in its page). */
const shared = new WeakMap<ReleaseContent, { envelopes: Map<string, string>; site?: SiteContext }>();

function sharedOf(content: ReleaseContent) {
  let entry = shared.get(content);
  if (!entry) shared.set(content, (entry = { envelopes: new Map() }));
  return entry;
}

/** The bytes of `/api/pkgs/{name}.json` of the package `key`, serialized once per release. */
function envelopeOf(content: ReleaseContent, key: string): string {
  const { envelopes } = sharedOf(content);
  let envelope = envelopes.get(key);
  if (envelope === undefined) {
    envelope = serialize(composeEnvelope(content.tip, new RawJson(content.records.get(key)!)));
    envelopes.set(key, envelope);
  }
  return envelope;
}

/** What every page of the release is made from (src/site/pages.ts). */
function siteOf(content: ReleaseContent): SiteContext {
  const entry = sharedOf(content);
  entry.site ??= siteContext({
    tip: content.tip,
    chain: content.chain,
    siteUrl: content.siteUrl,
    listing: content.pages.listing,
    envelope: (key) => envelopeOf(content, key),
    record: (key) => JSON.parse(content.records.get(key)!) as PackageRecord,
    transitive: content.pages.transitive,
    versions: content.pages.versions,
    changes: content.pages.changes,
  });
  return entry.site;
}

/** Pages being rendered at once: the render workers stay busy while this thread makes the next views and writes. */
const RENDER_WINDOW = 32;

/** Renders views through the compiled site (build/site.ts): one page per view, at the row's path, in order. */
async function* renderPages<View extends PageView>(
  id: 'search-page' | 'package-page' | 'advisory-page' | 'changes-page',
  views: Iterable<View>,
  params: (view: View) => Record<string, string> = () => ({}),
): AsyncGenerator<PublicBody> {
  const site = await loadSite();
  const { path } = surface(id);
  const rendering: Promise<PublicBody>[] = [];
  for (const view of views) {
    const values = params(view);
    rendering.push(site.render(fillTemplate(path, values), view).then((body) => ({ params: values, body })));
    if (rendering.length >= RENDER_WINDOW) yield await rendering.shift()!;
  }
  while (rendering.length > 0) yield await rendering.shift()!;
}

export const WRITERS: Readonly<Record<string, Writer>> = {
  /** `/api/pkgs/recent-commits.json` with the default limit (the gateway composes other limits). */
  'recent-commits': function* (content) {
    const limit = surface('recent-commits').query![0].default as number;
    yield { params: {}, body: serialize(composeRecentCommits(content.chain, limit)) };
  },
  /** `/api/pkgs/{name}.json` of every package at the tip, in its canonical spelling. */
  package: function* (content) {
    for (const key of content.records.keys()) {
      const name = content.names.get(key)!;
      // A fixed route wins over a package of the same name (DECISIONS.md 4): its file is not written.
      if (isReservedName(name)) continue;
      yield { params: { name }, body: envelopeOf(content, key) };
    }
  },
  /** `/`: the search page, with the listing bundle inline. */
  'search-page': (content) => renderPages('search-page', [searchPage(siteOf(content))]),
  /** `/pkgs/{name}`: every package's detail page, with its envelope inline. */
  'package-page': (content) => renderPages('package-page', packagePages(siteOf(content)), (view) => ({ name: view.name })),
  /** `/advisories/{id}`: a page per advisory active at the tip. */
  'advisory-page': (content) => renderPages('advisory-page', advisoryPages(siteOf(content)), (view) => ({ id: view.advisory.id })),
  /** `/changes`: what the recent commits changed. */
  'changes-page': (content) => renderPages('changes-page', [changesPage(siteOf(content))]),
};
