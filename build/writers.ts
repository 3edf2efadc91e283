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
import { badgeFace, badgeOptions, drawBadge, type BadgeSource } from '../src/compose/badge.ts';
import { tipDocuments, type CommitChanges, type TipDocuments } from '../src/compose/documents.ts';
import { composeAdvisoryMarkdown, composePackageMarkdown } from '../src/compose/markdown.ts';
import { composeLlmsFullPart, composeLlmsTxt, llmsFullParts, type LlmsFullPart, type Mirror } from '../src/compose/llms.ts';
import { composeSitemap, SITEMAP_URL_LIMIT } from '../src/compose/sitemap.ts';
import { composeAdvisoryFeed, composeChangesFeed } from '../src/compose/feeds.ts';
import { composeOpenApi, type ApiExamples } from '../src/compose/openapi.ts';
import { isReservedName } from '../src/grammar.ts';
import { closureExceeds, packageClosure, PRERENDERED_SBOM_CLOSURE } from '../src/compose/closure.ts';
import { composeSbom, type ComponentCache } from '../src/compose/sbom/index.ts';
import { resolveQuery } from '../src/surfaces/query.ts';
import { fillTemplate, publicFileTemplates, queryDefault, surface } from '../src/surfaces/registry.ts';
import type { CommitInfo, Diagnostic, VersionEvent } from '../src/compose/types.ts';
import type { PackageRecord, TransitiveAdvisory } from '../src/schemas/wire.ts';
import { advisoryPages, changesPage, packagePages, searchPage, siteContext, type PageView, type SiteContext } from '../src/site/pages.ts';
import { loadSite } from './site.ts';

/** Everything a release is made from (the tip's composed items, the chain, the settings). */
export interface ReleaseContent {
  tip: CommitInfo;
  /** Newest first. */
  chain: CommitInfo[];
  /** Serialized package records at the tip, by name key. */
  records: ReadonlyMap<string, string>;
  /** The commits whose states this build wrote (the release checks they are on disk; earlier builds checked theirs). */
  writtenStates: readonly string[];
  /** Keys whose records this build composed anew; the others were published (and checked) by an earlier build. */
  recomposedRecords: ReadonlySet<string>;
  /** Canonical names at the tip, by name key. */
  names: ReadonlyMap<string, string>;
  diagnostics: readonly Diagnostic[];
  /** The public address of the site, without a trailing slash (sitemap, feeds, llms.txt, SPDX namespaces, the OpenAPI server). */
  siteUrl: string;

  // For the documents (markdown mirrors, llms.txt, sitemap, feeds):
  /** Serialized transitive entries at the tip, by the name key of the package they start at (comma-joined, as the composer keeps them). */
  transitive: ReadonlyMap<string, string>;
  /** Every version each package shipped up to the tip, oldest first, by name key. */
  history: ReadonlyMap<string, readonly VersionEvent[]>;
  /** What each of the newest commits changed, newest first (the changes feed). */
  recentChanges: readonly CommitChanges[];
  /** Where a writer reports what the operator should know (the build's log). */
  log: (line: string) => void;
  /** Bodies of the tip for the OpenAPI document's examples (src/compose/api-examples.ts). */
  examples: ApiExamples;

  // For the HTML pages (they read the documents' fields above too):
  /** The tip's listing bundle, exactly as `/api/pkgs/bundle/{sha}.json` serves it (the search page inlines it). */
  listing: string;
}

export interface PublicBody {
  /** Values of the row's `publicFile` template parameters. */
  readonly params: Readonly<Record<string, string>>;
  /** The query values it answers, when it is a variant file (registry.ts publicFileTemplates); none: the row's own file. */
  readonly query?: Readonly<Record<string, string>>;
  /** The file's text, or its UTF-8 bytes (a rendered page, never decoded). */
  readonly body: string | Uint8Array;
  /** Many files have these very bytes (a badge is one of a few hundred): publish.ts stores them once and links. */
  readonly shared?: boolean;
}

/** The packages of the release whose `/api/pkgs/{name}...` files are written: a fixed route wins over a package of the same name (DECISIONS.md 4). */
function* publishedPackages(content: ReleaseContent): Iterable<{ key: string; name: string; record: string }> {
  for (const [key, record] of content.records) {
    const name = content.names.get(key)!;
    if (!isReservedName(name)) yield { key, name, record };
  }
}

export type Writer = (content: ReleaseContent) => Iterable<PublicBody> | AsyncIterable<PublicBody>;

/** The tip's records, each parsed once per release on first use and shared by every writer (none changes them). */
const parsedRecords = new WeakMap<ReleaseContent, Map<string, PackageRecord>>();

function recordOf(content: ReleaseContent, key: string): PackageRecord | null {
  let parsed = parsedRecords.get(content);
  if (!parsed) parsedRecords.set(content, (parsed = new Map()));
  let record = parsed.get(key);
  if (!record) {
    const text = content.records.get(key);
    if (text === undefined) return null;
    parsed.set(key, (record = JSON.parse(text) as PackageRecord));
  }
  return record;
}

/** Composed once per release, on first use: the documents' input, and the mirrors (llms-full.txt holds them all again). */
const tips = new WeakMap<ReleaseContent, TipDocuments>();
/** The transitive rollups parsed once per release (the documents and the pages read them). */
const rollups = new WeakMap<ReleaseContent, Map<string, TransitiveAdvisory[]>>();

function transitiveOf(content: ReleaseContent): Map<string, TransitiveAdvisory[]> {
  let transitive = rollups.get(content);
  if (!transitive) {
    transitive = new Map();
    for (const [key, text] of content.transitive) transitive.set(key, JSON.parse(`[${text}]`) as TransitiveAdvisory[]);
    rollups.set(content, transitive);
  }
  return transitive;
}
const mirrors = new WeakMap<ReleaseContent, { packages: Map<string, string>; advisories: Map<string, string> }>();

function tipOf(content: ReleaseContent): TipDocuments {
  let tip = tips.get(content);
  if (!tip) {
    tip = tipDocuments({
      commit: content.tip,
      siteUrl: content.siteUrl,
      records: [...content.records.keys()].map((key) => recordOf(content, key)!),
      transitive: transitiveOf(content),
      history: content.history,
    });
    tips.set(content, tip);
  }
  return tip;
}

/** The markdown mirrors of every package (by name key) and every active advisory (by id). */
function mirrorsOf(content: ReleaseContent) {
  let composed = mirrors.get(content);
  if (!composed) {
    const tip = tipOf(content);
    composed = {
      packages: new Map([...tip.records.keys()].map((key) => [key, composePackageMarkdown(tip, key)])),
      advisories: new Map([...tip.advisories.values()].map((reach) => [reach.id, composeAdvisoryMarkdown(tip, reach)])),
    };
    mirrors.set(content, composed);
  }
  return composed;
}

/** The mirrors in llms-full.txt's order (every package by name, then every advisory by id) and how they fall into parts. */
const llmsFull = new WeakMap<ReleaseContent, { mirrors: Mirror[]; parts: LlmsFullPart[] }>();

function llmsFullOf(content: ReleaseContent) {
  let entry = llmsFull.get(content);
  if (!entry) {
    const tip = tipOf(content);
    const { packages, advisories } = mirrorsOf(content);
    const mirrors = [
      ...[...packages].map(([key, text]) => ({ label: tip.records.get(key)!.name, text })),
      ...[...advisories].map(([id, text]) => ({ label: id, text })),
    ];
    llmsFull.set(content, (entry = { mirrors, parts: llmsFullParts(tip, mirrors) }));
  }
  return entry;
}

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
    listing: content.listing,
    envelope: (key) => envelopeOf(content, key),
    record: (key) => recordOf(content, key)!,
    transitive: transitiveOf(content),
    history: content.history,
    changes: content.recentChanges,
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

/**
 * The documents for agents, crawlers and feed readers: rewritten whole with every commit (about a
 * second on a catalog of 3,000 packages), so deferred too. Until the second release brings this
 * commit's, the first one carries the previous release's (build/publish.ts): a reader gets them
 * one commit old for those seconds, never a 404 (each names the commit it was read from).
 */
export const CARRIED_ROWS: ReadonlySet<string> = new Set([
  'advisory-feed', 'changes-feed', 'package-markdown', 'advisory-markdown', 'llms-txt', 'llms-full-txt', 'llms-full-part', 'sitemap',
  // The HTML pages: every one changes with every commit (each carries the tip's commitSha), a few seconds of rendering.
  'search-page', 'package-page', 'advisory-page', 'changes-page',
]);

/**
 * Rows published in a second release right after the first (build/publish.ts), so a new commit's
 * JSON surfaces do not wait for them: a document per package composed from its closure (seconds
 * on a large catalog; the gateway composes a missing one on request), the badges (a folder per
 * package and two files in it: the first release then needs no folder per package; the gateway
 * draws a missing one from the record, the same bytes), and the documents above.
 */
/** Rows whose writer leaves out some packages' files (the gateway composes those on request): the release check does not require them. */
export const PARTIAL_ROWS: ReadonlySet<string> = new Set(['package-sbom']);

export const DEFERRED_ROWS: ReadonlySet<string> = new Set(['package-sbom', 'package-badge', ...CARRIED_ROWS]);

export const WRITERS: Readonly<Record<string, Writer>> = {
  /** `/api/pkgs/recent-commits.json` with the default limit (the gateway composes other limits). */
  'recent-commits': function* (content) {
    const limit = queryDefault(surface('recent-commits'), 'limit') as number;
    yield { params: {}, body: serialize(composeRecentCommits(content.chain, limit)) };
  },
  /** `/api/pkgs/{name}.json` of every package at the tip, in its canonical spelling. */
  package: function* (content) {
    for (const { key, name } of publishedPackages(content)) yield { params: { name }, body: envelopeOf(content, key) };
  },
  /**
   * `/api/pkgs/{name}/badge.svg` in the default style and label, for each metric (the score's is
   * the row's own file, the others its variant files). Badges repeat (a score is one of 101), so
   * each distinct one is drawn once.
   */
  'package-badge': function* (content) {
    const row = surface('package-badge');
    const files = publicFileTemplates(row).map((file) => ({ query: file.query, options: badgeOptions(resolveQuery(row, file.query)) }));
    const drawn = new Map<string, string>();
    for (const { key, name } of publishedPackages(content)) {
      const source: BadgeSource = recordOf(content, key)!;
      for (const { query, options } of files) {
        const face = badgeFace(source, options.metric, options.label);
        const key = `${options.style}\u0000${face.label}\u0000${face.message}\u0000${face.color}`;
        let body = drawn.get(key);
        if (body === undefined) drawn.set(key, (body = drawBadge(face, options.style)));
        yield { params: { name }, query, body, shared: true };
      }
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
  /** `/pkgs/advisories.xml`: the advisories active at the tip, newest first. */
  'advisory-feed': function* (content) {
    yield { params: {}, body: composeAdvisoryFeed(tipOf(content)) };
  },
  /** `/pkgs/changes.xml`: what each of the newest commits changed. */
  'changes-feed': function* (content) {
    yield { params: {}, body: composeChangesFeed(tipOf(content), content.recentChanges) };
  },
  /** `/pkgs/{name}.md` of every package at the tip (reserved names too: the rule is for /api/pkgs/ only). */
  'package-markdown': function* (content) {
    const tip = tipOf(content);
    for (const [key, body] of mirrorsOf(content).packages) yield { params: { name: tip.records.get(key)!.name }, body };
  },
  /** `/advisories/{id}.md` of every advisory active at the tip. */
  'advisory-markdown': function* (content) {
    for (const [id, body] of mirrorsOf(content).advisories) yield { params: { id }, body };
  },
  'llms-txt': function* (content) {
    yield { params: {}, body: composeLlmsTxt(tipOf(content), llmsFullOf(content).parts) };
  },
  /** `/llms-full.txt`: the first part of llms-full (the same bytes as `/llms-full/1.txt`, one file linked twice). */
  'llms-full-txt': function* (content) {
    const { mirrors, parts } = llmsFullOf(content);
    yield { params: {}, body: composeLlmsFullPart(tipOf(content), mirrors, parts, 1), shared: true };
  },
  /** `/llms-full/{part}.txt`: every package mirror, then every advisory mirror, in parts of at most LLMS_FULL_PART_BYTES. */
  'llms-full-part': function* (content) {
    const { mirrors, parts } = llmsFullOf(content);
    for (let part = 1; part <= parts.length; part++) yield { params: { part: String(part) }, body: composeLlmsFullPart(tipOf(content), mirrors, parts, part), shared: part === 1 };
  },
  sitemap: async function* (content) {
    const { xml, omitted } = await composeSitemap(tipOf(content));
    if (omitted > 0) content.log(`warning: sitemap.xml lists the first ${SITEMAP_URL_LIMIT} pages, the protocol's limit; ${omitted} are left out (docs/decisions.md "Sitemap")`);
    yield { params: {}, body: xml };
  },
  /**
   * `/api/pkgs/{name}/sbom.json` of every package at the tip in the default format (CycloneDX),
   * the same bytes as the sha-pinned SBOM at the tip (src/compose/sbom/).
   */
  'package-sbom': async function* (content) {
    const cache: ComponentCache = new WeakMap();
    const lookup = (dependency: string) => recordOf(content, dependency);
    for (const { key, name } of publishedPackages(content)) {
      if (closureExceeds(lookup, key, PRERENDERED_SBOM_CLOSURE)) continue;
      const closure = await packageClosure((dependency) => recordOf(content, dependency), key);
      if (!closure) continue;
      yield { params: { name }, body: serialize(composeSbom('cyclonedx', content.tip, closure, content.siteUrl, cache)) };
    }
  },
  /** `/api/pkgs/openapi.json`: the OpenAPI document, prerendered (SPEC.md Endpoints rule 4). */
  openapi: function* (content) {
    yield { params: {}, body: serialize(composeOpenApi({ siteUrl: content.siteUrl, examples: content.examples })) };
  },
};
