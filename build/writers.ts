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
import { tipDocuments, type CommitChanges, type TipDocuments } from '../src/compose/documents.ts';
import { composeAdvisoryMarkdown, composePackageMarkdown } from '../src/compose/markdown.ts';
import { composeLlmsFullTxt, composeLlmsTxt } from '../src/compose/llms.ts';
import { composeSitemap, SITEMAP_URL_LIMIT } from '../src/compose/sitemap.ts';
import { composeAdvisoryFeed, composeChangesFeed } from '../src/compose/feeds.ts';
import { isReservedName } from '../src/grammar.ts';
import { surface } from '../src/surfaces/registry.ts';
import type { CommitInfo, Diagnostic, VersionEvent } from '../src/compose/types.ts';
import type { PackageRecord, TransitiveAdvisory } from '../src/schemas/wire.ts';

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

  // For the documents (markdown mirrors, llms.txt, sitemap, feeds):
  /** Serialized transitive entries at the tip, by the name key of the package they start at (comma-joined, as the composer keeps them). */
  transitive: ReadonlyMap<string, string>;
  /** Every version each package shipped up to the tip, oldest first, by name key. */
  history: ReadonlyMap<string, readonly VersionEvent[]>;
  /** What each of the newest commits changed, newest first (the changes feed). */
  recentChanges: readonly CommitChanges[];
  /** Where a writer reports what the operator should know (the build's log). */
  log: (line: string) => void;
}

export interface PublicBody {
  /** Values of the row's `publicFile` template parameters. */
  readonly params: Readonly<Record<string, string>>;
  readonly body: string;
}

export type Writer = (content: ReleaseContent) => Iterable<PublicBody> | AsyncIterable<PublicBody>;

/** Composed once per release, on first use: the documents' input, and the mirrors (llms-full.txt holds them all again). */
const tips = new WeakMap<ReleaseContent, TipDocuments>();
const mirrors = new WeakMap<ReleaseContent, { packages: Map<string, string>; advisories: Map<string, string> }>();

function tipOf(content: ReleaseContent): TipDocuments {
  let tip = tips.get(content);
  if (!tip) {
    const transitive = new Map<string, TransitiveAdvisory[]>();
    for (const [key, text] of content.transitive) transitive.set(key, JSON.parse(`[${text}]`) as TransitiveAdvisory[]);
    tip = tipDocuments({
      commit: content.tip,
      siteUrl: content.siteUrl,
      records: [...content.records.values()].map((text) => JSON.parse(text) as PackageRecord),
      transitive,
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

export const WRITERS: Readonly<Record<string, Writer>> = {
  /** `/api/pkgs/recent-commits.json` with the default limit (the gateway composes other limits). */
  'recent-commits': function* (content) {
    const limit = surface('recent-commits').query![0].default as number;
    yield { params: {}, body: serialize(composeRecentCommits(content.chain, limit)) };
  },
  /** `/api/pkgs/{name}.json` of every package at the tip, in its canonical spelling. */
  package: function* (content) {
    for (const [key, record] of content.records) {
      const name = content.names.get(key)!;
      // A fixed route wins over a package of the same name (DECISIONS.md 4): its file is not written.
      if (isReservedName(name)) continue;
      yield { params: { name }, body: serialize(composeEnvelope(content.tip, new RawJson(record))) };
    }
  },
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
    yield { params: {}, body: composeLlmsTxt(tipOf(content)) };
  },
  /** `/llms-full.txt`: every package mirror, then every advisory mirror. */
  'llms-full-txt': function* (content) {
    const { packages, advisories } = mirrorsOf(content);
    yield { params: {}, body: composeLlmsFullTxt(tipOf(content), [...packages.values(), ...advisories.values()]) };
  },
  sitemap: async function* (content) {
    const { xml, omitted } = await composeSitemap(tipOf(content));
    if (omitted > 0) content.log(`warning: sitemap.xml lists the first ${SITEMAP_URL_LIMIT} pages, the protocol's limit; ${omitted} are left out (docs/decisions.md "Sitemap")`);
    yield { params: {}, body: xml };
  },
};
