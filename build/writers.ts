/**
 * The writers of a release's anonymous files: one per registry row that has a `publicFile`
 * (src/surfaces/registry.ts), keyed by row id. A writer yields the row's template parameters and
 * the body for each file; publish.ts stores it and names it in the release's manifest at the
 * row's public file, and validate.ts checks it against the row's wire schema. A new static surface is a registry row, a pure compose
 * function, and one writer here.
 *
 * A document of which the catalog has one per package or advisory is yielded as a `Rendition`:
 * the digest of its own inputs, and how to render it. publish.ts renders it only when that digest
 * differs from the one the previous release's manifest recorded for the file, and otherwise keeps
 * the previous entry (docs/decisions.md "What a document is made from"). A document that must carry
 * the tip (the package page embeds the envelope; the floating SBOM names its commit) is rendered
 * with holes where the tip's values go; the gateway and the static export put the tip's values there.
 */
import { RawJson, serialize } from '../src/serialize.ts';
import { composeEnvelope } from '../src/compose/package.ts';
import { composeRecentCommits } from '../src/compose/commits.ts';
import { badgeFace, badgeOptions, drawBadge, type BadgeSource } from '../src/compose/badge.ts';
import { rollupReach, tipDocuments, type CommitChanges, type RollupReach, type TipDocuments } from '../src/compose/documents.ts';
import { composeAdvisoryMarkdown, composePackageMarkdown } from '../src/compose/markdown.ts';
import { composeLlmsFullPart, composeLlmsTxt, llmsFullPartHeader, llmsFullParts, type LlmsFullPart, type MirrorSize } from '../src/compose/llms.ts';
import { composeSitemap, SITEMAP_URL_LIMIT, sitemapUrlCount } from '../src/compose/sitemap.ts';
import { composeAdvisoryFeed, composeChangesFeed } from '../src/compose/feeds.ts';
import { composeOpenApi, type ApiExamples } from '../src/compose/openapi.ts';
import { isReservedName, nameKey } from '../src/grammar.ts';
import { closureDigests, closureExceeds, packageClosure, PRERENDERED_SBOM_CLOSURE } from '../src/compose/closure.ts';
import { composeSbom } from '../src/compose/sbom/index.ts';
import { tipValues } from '../src/compose/tip-values.ts';
import { contentHash } from '../src/store/hash.ts';
import type { HoleSpan, JoinedSegment } from '../src/store/manifest.ts';
import { resolveQuery } from '../src/surfaces/query.ts';
import { fillTemplate, publicFileTemplates, queryDefault, surface } from '../src/surfaces/registry.ts';
import type { CommitInfo, Diagnostic, VersionEvent } from '../src/compose/types.ts';
import type { PackageRecord, TransitiveAdvisory } from '../src/schemas/wire.ts';
import { advisoryPage, changesPage, searchPage, siteContext, type SiteContext } from '../src/site/pages.ts';
import { packagePageView } from '../src/site/package-page.ts';
import { loadSite } from './site.ts';
import type { DigestedTexts, PackedStrings } from './chunks.ts';
import { memoizedOn, memoizedPer } from '../src/memo.ts';

/** Everything a release is made from (the tip's composed items, the chain, the settings). */
export interface ReleaseContent {
  tip: CommitInfo;
  /** Newest first. */
  chain: CommitInfo[];
  /** Serialized package records at the tip, by name key, each with its digest. */
  records: DigestedTexts;
  /** The commits whose states this build wrote (the release checks they are stored; earlier builds checked theirs). */
  writtenStates: readonly string[];
  /** Canonical names at the tip, by name key. */
  names: ReadonlyMap<string, string>;
  diagnostics: readonly Diagnostic[];
  /** The public address of the site, without a trailing slash (sitemap, feeds, llms.txt, mirrors, pages; the OpenAPI server takes its path). */
  siteUrl: string;

  // For the documents (markdown mirrors, llms.txt, sitemap, feeds):
  /** Serialized transitive entries at the tip, by the name key of the package they start at (comma-joined, as the composer keeps them, deflated). */
  transitive: PackedStrings;
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
  /** The rollups' reach of the previous release, when it was composed by this code (publish.ts): kept while the rollups are the same. */
  reachBefore?: KeptReach | null;
}

/** The advisories' reach as the rollups give it (rollupReach), and the digest of what it was composed from. */
export interface KeptReach {
  /** The package keys in name order that have transitive entries, and the digest of each one's. */
  readonly key: string;
  readonly reached: ReadonlyMap<string, RollupReach>;
}

/** A body with holes: `pieces[i]`, then the tip's value of `holes[i]`, ..., then the last piece. */
export interface Pieces {
  readonly pieces: readonly string[];
  readonly holes: readonly string[];
}

/** A body that joins other stored documents (a part of llms-full and its mirrors: src/store/manifest.ts JoinedSegment). */
export interface Joined {
  readonly joined: readonly JoinedSegment[];
  /** Its length as served: its segments' holes take values as long as the tip's. */
  readonly length: number;
}

export interface Rendered {
  /** The document; with holes when it carries the tip (and its Rendition has `holes`). null: no file (the gateway composes it on request: PARTIAL_ROWS). */
  readonly body: string | Uint8Array | Pieces | Joined | null;
  /** What it read (a traced document): the inputs its key covers. */
  readonly reads?: readonly string[];
  /** Its components are markers for the tip's (a floating SBOM: src/compose/sbom/markers.ts). */
  readonly components?: true;
}

/** A document kept across releases while its inputs stay the same (publish.ts). */
export interface Rendition {
  /**
   * The digest of the document's inputs and of the code that renders it; given, for a traced
   * document, what it read when it was last rendered. null: unknown (render it).
   */
  key(reads: Iterable<string> | undefined): string | null;
  render(): Rendered | Promise<Rendered>;
  /**
   * A document that carries the tip: the values its stored body has in its holes, by hole name
   * (the stand-in's, `storedHoles`: so the stored body does not depend on the tip it was rendered
   * at, and a build from scratch stores what one commit at a time does). Readers put the tip's there.
   * A getter where they cost something to make (a serial number is a UUID v5): read only when rendered.
   */
  readonly holes?: Readonly<Record<string, string>>;
}

export interface PublicBody {
  /** Values of the row's `publicFile` template parameters. */
  readonly params: Readonly<Record<string, string>>;
  /** The query values it answers, when it is a variant file (registry.ts publicFileTemplates); none: the row's own file. */
  readonly query?: Readonly<Record<string, string>>;
  /** The file's text, or its UTF-8 bytes (a rendered page, never decoded), or how to render it when its inputs changed. */
  readonly body: string | Uint8Array | Rendition;
}

export const isRendition = (body: PublicBody['body']): body is Rendition => typeof body === 'object' && 'render' in body;

/** What a release's writers share besides its content: the version of the code that renders, and the bodies of other rows. */
export interface WriterContext {
  readonly content: ReleaseContent;
  /**
   * A hash of the code that composes and renders the documents (src/, site/): a document rendered
   * by another version is rendered again.
   */
  readonly codeVersion: string;
  /**
   * Once the row `rowId` has placed its files: the object, length in bytes and holes of each of them
   * by its parameters, without reading it (llms-full plans its parts from them, and joins them).
   */
  readonly placedFiles: (rowId: string) => Promise<(params: Readonly<Record<string, string>>) => { object: string; length: number; holes: readonly HoleSpan[] }>;
}

/** The packages of the release whose `/api/pkgs/{name}...` files are written: a fixed route wins over a package of the same name (DECISIONS.md 4). */
function* publishedPackages(content: ReleaseContent): Iterable<{ key: string; name: string; record: string }> {
  for (const [key, record] of content.records) {
    const name = content.names.get(key)!;
    if (!isReservedName(name)) yield { key, name, record };
  }
}

export type Writer = (context: WriterContext) => Iterable<PublicBody> | AsyncIterable<PublicBody>;

/** The tip's records, each parsed once per release on first use and shared by every writer (none changes them). */
export const recordOf = memoizedPer((content: ReleaseContent, key: string): PackageRecord | null => {
  const text = content.records.get(key);
  return text === undefined ? null : (JSON.parse(text) as PackageRecord);
});

/** Composed once per release, on first use: the documents' input. */
const tips = new WeakMap<ReleaseContent, TipDocuments>();

/**
 * The tip's transitive entries by package, parsed from the composer's text when asked for and not
 * kept: the rollups of the whole catalog are read once per release, for the advisories' reach
 * (src/compose/documents.ts keeps what the documents show of it), and a package's own when its
 * documents are rendered. Parsed and held at once, those of 20,000 packages took 200 MB.
 */
class ParsedRollups implements ReadonlyMap<string, readonly TransitiveAdvisory[]> {
  readonly #packed: PackedStrings;

  constructor(packed: PackedStrings) {
    this.#packed = packed;
  }

  get(key: string): TransitiveAdvisory[] | undefined {
    const text = this.#packed.get(key);
    return text === undefined ? undefined : (JSON.parse(`[${text}]`) as TransitiveAdvisory[]);
  }

  has(key: string): boolean {
    return this.#packed.has(key);
  }

  get size(): number {
    return this.#packed.size;
  }

  keys(): MapIterator<string> {
    return this.#packed.keys();
  }

  *entries(): MapIterator<[string, TransitiveAdvisory[]]> {
    for (const key of this.#packed.keys()) yield [key, this.get(key)!];
  }

  *values(): MapIterator<TransitiveAdvisory[]> {
    for (const key of this.#packed.keys()) yield this.get(key)!;
  }

  [Symbol.iterator](): MapIterator<[string, TransitiveAdvisory[]]> {
    return this.entries();
  }

  forEach(callback: (value: TransitiveAdvisory[], key: string, map: ReadonlyMap<string, readonly TransitiveAdvisory[]>) => void): void {
    for (const [key, value] of this.entries()) callback(value, key, this);
  }
}

const transitiveOf = (content: ReleaseContent): ParsedRollups => new ParsedRollups(content.transitive);

/** The reach each release's documents were composed with (publish.ts keeps it for the next release). */
const reaches = new WeakMap<ReleaseContent, KeptReach>();

/**
 * The rollups' reach at the tip: the previous release's when every package's rollup is the same
 * (a commit that changes no dependency edge nor advisory, such as a version bump, changes none), so
 * the rollups of the catalog are inflated and parsed only when one changed. `keys`: in name order.
 */
function reachOf(content: ReleaseContent, keys: readonly string[]): ReadonlyMap<string, RollupReach> {
  const key = contentHash(keys.flatMap((packageKey) => (content.transitive.has(packageKey) ? [`${packageKey} ${content.transitive.digest(packageKey)}`] : [])).join('\n'));
  const kept = content.reachBefore?.key === key ? content.reachBefore : { key, reached: rollupReach(keys, transitiveOf(content)) };
  reaches.set(content, kept);
  return kept.reached;
}

/** The reach this release's documents were composed with, once a writer asked for the tip's documents. */
export const releasedReach = (content: ReleaseContent): KeptReach | undefined => reaches.get(content);

function tipOf(content: ReleaseContent): TipDocuments {
  let tip = tips.get(content);
  if (!tip) {
    tip = tipDocuments({
      commit: content.tip,
      siteUrl: content.siteUrl,
      records: [...content.records.keys()].map((key) => recordOf(content, key)!),
      transitive: transitiveOf(content),
      history: content.history,
      reached: (keys) => reachOf(content, keys),
    });
    tips.set(content, tip);
  }
  return tip;
}

// ---- Inputs: what a document read, and their digest -------------------------------------------

/** A read of everything (an iteration of a whole map, the tip's commit): the document is rendered every time. */
const EVERYTHING = '*';

/**
 * A map that notes each key read from it (`<prefix>:<key>`), and EVERYTHING when it is walked
 * whole. Composing a mirror through these tells which records, rollups and histories it is made
 * of: when none of them changed, neither did the mirror (its composition is a pure function of them).
 */
class TracedMap<V> implements ReadonlyMap<string, V> {
  readonly #map: ReadonlyMap<string, V>;
  readonly #prefix: string;
  readonly #reads: Set<string>;

  constructor(map: ReadonlyMap<string, V>, prefix: string, reads: Set<string>) {
    this.#map = map;
    this.#prefix = prefix;
    this.#reads = reads;
  }

  get(key: string): V | undefined {
    this.#reads.add(`${this.#prefix}:${key}`);
    return this.#map.get(key);
  }

  has(key: string): boolean {
    this.#reads.add(`${this.#prefix}:${key}`);
    return this.#map.has(key);
  }

  get size(): number {
    this.#reads.add(EVERYTHING);
    return this.#map.size;
  }

  forEach(callback: (value: V, key: string, map: ReadonlyMap<string, V>) => void): void {
    this.#reads.add(EVERYTHING);
    this.#map.forEach((value, key) => callback(value, key, this));
  }

  entries(): MapIterator<[string, V]> {
    this.#reads.add(EVERYTHING);
    return this.#map.entries();
  }

  keys(): MapIterator<string> {
    this.#reads.add(EVERYTHING);
    return this.#map.keys();
  }

  values(): MapIterator<V> {
    this.#reads.add(EVERYTHING);
    return this.#map.values();
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }
}

/**
 * The tip's documents as one document sees them, noting what it reads. `commit`: the commit it
 * is rendered at, a stand-in for a document with holes for the tip (not a read: the holes take its values).
 */
function tracedTip(tip: TipDocuments, reads: Set<string>, commit?: CommitInfo): TipDocuments {
  return {
    get commit() {
      if (commit) return commit;
      reads.add(EVERYTHING);
      return tip.commit;
    },
    siteUrl: tip.siteUrl,
    records: new TracedMap(tip.records, 'record', reads),
    names: new TracedMap(tip.names, 'name', reads),
    carried: new TracedMap(tip.carried, 'carried', reads),
    transitive: new TracedMap(tip.transitive, 'transitive', reads),
    history: new TracedMap(tip.history, 'history', reads),
    advisories: new TracedMap(tip.advisories, 'advisory', reads),
  };
}

const jsonOf = (value: unknown): string | undefined => (value === undefined ? undefined : JSON.stringify(value));

/**
 * What a floating SBOM says of a package of its closure besides its component (src/compose/sbom/
 * subject.ts): its spelling, its dependencies (the closure's edges and scopes) and its active
 * advisories (the vulnerabilities). Its version, archive and the rest are in its component.
 */
const sbomFrame = (record: PackageRecord): string => JSON.stringify([record.name, record.dependencies, record.advisories]);

/**
 * The digest of each package's closure as its SBOM shows it: the frames of every package of the
 * closure (its own included), made once per release for the whole catalog (src/compose/closure.ts
 * closureDigests). An SBOM reads its package's record and this one input, not a frame per package
 * of its closure (1.45 million reads at 20,000 packages, held in the manifest and looked up on
 * every commit). A dependency that is no package is named by its dependent's frame; when it
 * becomes one, the dependent's closure reaches it, and the digest changes.
 */
const sbomClosures = memoizedOn((content: ReleaseContent): ReadonlyMap<string, string> => {
  const frames = new Map<string, string>();
  for (const key of content.records.keys()) frames.set(key, contentHash(sbomFrame(recordOf(content, key)!)));
  return closuresOfFrames(contentHash([...frames].map(([key, frame]) => `${key} ${frame}`).join('\n')), () =>
    closureDigests(
      frames.keys(),
      (key) => {
        const { build, runtime } = recordOf(content, key)!.dependencies;
        return [...build, ...runtime].map(nameKey).filter((dependency) => frames.has(dependency));
      },
      (members, reached) => contentHash(`${members.map((key) => `${key} ${frames.get(key)}`).join('\n')}\n\n${reached.join('\n')}`),
    ),
  );
});

/**
 * The closures' digests by the digest of every package's frame (they are a function of the frames
 * alone), for the last catalog asked: a commit that changes no frame, such as a version bump, walks
 * no graph (a second at 100,000 packages).
 */
let lastClosures: { readonly frames: string; readonly digests: ReadonlyMap<string, string> } | null = null;

function closuresOfFrames(frames: string, walk: () => ReadonlyMap<string, string>): ReadonlyMap<string, string> {
  if (lastClosures?.frames !== frames) lastClosures = { frames, digests: walk() };
  return lastClosures.digests;
}

/**
 * The hash of one input (`record:<key>`, ...) at the tip, as a document's key covers it (absent
 * inputs hash alike, as `-`), made once per release. The release's input table keeps it too
 * (build/inputs.ts).
 */
export const inputHash = memoizedPer((content: ReleaseContent, read: string): string => {
  const colon = read.indexOf(':');
  const [kind, key] = [read.slice(0, colon), read.slice(colon + 1)];
  // The composer keeps a digest of each record and rollup, made again only when the item changes.
  if (kind === 'record') return content.records.digest(key) ?? '-';
  if (kind === 'transitive') return content.transitive.digest(key) ?? '-';
  if (kind === 'sbom-closure') return sbomClosures(content).get(key) ?? '-';
  const value =
    kind === 'history' ? (content.history.has(key) ? JSON.stringify(content.history.get(key)) : undefined)
    : kind === 'advisory' ? advisoryInput(content, key)
    : kind === 'name' ? tipOf(content).names.get(key)
    : kind === 'carried' ? jsonOf(tipOf(content).carried.get(key))
    : kind === 'severity' ? jsonOf(siteOf(content).severities.get(key))
    : kind === 'advisory-summary' ? jsonOf(siteOf(content).advisories.get(key))
    // A commit as the pages show it: its message (the chain's entries may carry more, which differs by how the build came by them).
    : kind === 'commit' ? (siteOf(content).commits.has(key) ? jsonOf(siteOf(content).commits.get(key)!.message) : undefined)
    : undefined;
  return value === undefined ? '-' : contentHash(value);
});

/**
 * An advisory's reach as the input of a document that reads it: the hashes of the records it is
 * active in (each names its package and holds the advisory as that package sees it), then the
 * paths the documents show (first by name, then nearest first) and how many packages reach it.
 * Not its JSON, which repeats every field name; not the hashes of the reaching packages' whole
 * rollups either, which change with any other advisory they reach.
 */
function advisoryInput(content: ReleaseContent, id: string): string | undefined {
  const reach = tipOf(content).advisories.get(id);
  if (!reach) return undefined;
  const records = reach.direct.map(({ record }) => inputHash(content, `record:${nameKey(record.name)}`)).join(',');
  return `advisory ${id}\nrecords ${records}\nreached by ${reach.reachCount}\npaths ${pathsDigest(reach.reaching)}\nnearest ${pathsDigest(reach.nearest)}`;
}

/**
 * The digest of the paths a list of an advisory's reach shows, made once per list: the lists are
 * kept from one release to the next while no rollup changes (KeptReach), and are long (300 paths
 * of up to 64 names). Package names hold no spaces (src/grammar.ts).
 */
const pathsDigest = memoizedOn((entries: readonly TransitiveAdvisory[]) => contentHash(entries.map(({ culpritPath }) => culpritPath.join(' ')).join('\n')));

/** The key of a traced document: its kind, the code, the site URL and the hash of everything it read; null when it read everything. */
function tracedKey(context: WriterContext, kind: string, reads: Iterable<string> | undefined): string | null {
  const names = reads && [...reads];
  if (!names || names.includes(EVERYTHING)) return null;
  const lines = names.map((read) => `${read}=${inputHash(context.content, read)}`);
  return contentHash(`${kind}\n${context.codeVersion}\n${context.content.siteUrl}\n${lines.join('\n')}`);
}

// ---- Holes: the tip's values in a document that carries it ------------------------------------

/**
 * Two stand-ins for the tip, unlike any real commit. A document that carries the tip is rendered
 * at a stand-in, and each value derived from the tip is found in the text: the rest is the
 * document's pieces. When its inputs hold something a stand-in's value could come from (the
 * catalog's text is free), it is rendered at both: where the two differ only by those values, the
 * rest is the pieces; where they differ otherwise, the document is rendered at the real tip.
 */
const STAND_INS: readonly CommitInfo[] = [
  { sha: 'f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0', pushedAt: '2999-01-01T01:01:01Z', message: null },
  { sha: '0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e', pushedAt: '2998-02-02T02:02:02Z', message: null },
] as CommitInfo[];

/** The values a stored document has in its holes: the first stand-in's (src/compose/tip-values.ts); `name`: a package's document's. */
const storedHoles = (name: string | undefined): Record<string, string> => tipValues(STAND_INS[0], name);

/**
 * What a stand-in's values could be made from: their shas, their years (a date in any time zone
 * that lands on them), a UUID v5 (the serial numbers). Text without any is rendered once.
 */
const STAND_IN_SOURCES = /f0f0f0f0|0e0e0e0e|299[89]-|[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-/i;

/**
 * `text` cut at each occurrence of a hole's value; null when a value is empty. Found left to right,
 * a longer value first where two start at once. Found with indexOf, one value at a time: a pattern
 * of the values, made for each document (an SBOM's serial number is its own), took 8 s of a
 * 20,000-package build.
 */
function cutAtHoles(text: string, values: Readonly<Record<string, string>>): Pieces | null {
  const byValue = new Map(Object.entries(values).map(([hole, value]) => [value, hole]));
  if (byValue.has('') || byValue.size !== Object.keys(values).length) return null;
  // Each value, longest first, and where it next occurs from `from` on.
  const next = [...byValue.keys()].sort((a, b) => b.length - a.length).map((value) => ({ value, at: text.indexOf(value) }));
  const pieces: string[] = [];
  const holes: string[] = [];
  let from = 0;
  for (;;) {
    let first: (typeof next)[number] | null = null;
    for (const candidate of next) {
      if (candidate.at >= 0 && candidate.at < from) candidate.at = text.indexOf(candidate.value, from);
      if (candidate.at >= 0 && (first === null || candidate.at < first.at)) first = candidate;
    }
    if (first === null) break;
    pieces.push(text.slice(from, first.at));
    holes.push(byValue.get(first.value)!);
    from = first.at + first.value.length;
  }
  pieces.push(text.slice(from));
  return { pieces, holes };
}

/**
 * The pieces of a document that carries the tip (`render` at a commit, `holes` its values at that
 * commit), or its text at `tip` when the pieces cannot be told apart. `plain`: its inputs hold
 * nothing a stand-in's value could come from (STAND_IN_SOURCES), so one rendering tells them.
 */
async function withHoles(
  tip: CommitInfo,
  render: (commit: CommitInfo) => string | Promise<string>,
  holes: (commit: CommitInfo) => Record<string, string>,
  plain: boolean,
): Promise<Pieces | string> {
  if (plain) return cutAtHoles(await render(STAND_INS[0]), holes(STAND_INS[0])) ?? render(tip);
  const [first, second] = await Promise.all(STAND_INS.map(async (standIn) => cutAtHoles(await render(standIn), holes(standIn))));
  const same = first && second && first.holes.join() === second.holes.join() && first.pieces.every((piece, index) => piece === second.pieces[index]);
  return same ? first : render(tip);
}

/** Whether the record of `key` holds nothing a stand-in's value could come from, checked once per release. */
const plainRecord = memoizedPer((content: ReleaseContent, key: string): boolean => !STAND_IN_SOURCES.test(content.records.get(key) ?? ''));


// ---- Pages -----------------------------------------------------------------------------------

/**
 * What the package pages are rendered with in place of the envelope: the page is cut there, and
 * the envelope's pieces put in (the page embeds it byte for byte, holes and all). NUL never reaches a page from
 * the catalog's text unescaped; if it did, the page would have two and be rendered at the tip.
 */
const ENVELOPE_HOLE = '\u0000pkgcat-envelope\u0000';


/** A mirror of llms-full: its label and length, and where this release placed it. */
interface PlacedMirror extends MirrorSize {
  readonly row: 'package-markdown' | 'advisory-markdown';
  readonly params: Readonly<Record<string, string>>;
  /** The object holding it, and its holes for the tip: a part's key is made of its mirrors' objects, and it joins them. */
  readonly object: string;
  readonly holes: readonly HoleSpan[];
}

/** llms-full's plan: the mirrors in its order (every package by name, then every advisory by id), and how they fall into parts. */
interface LlmsFullPlan {
  readonly mirrors: readonly PlacedMirror[];
  readonly parts: readonly LlmsFullPart[];
}

const llmsFull = new WeakMap<ReleaseContent, Promise<LlmsFullPlan>>();

/**
 * The plan of llms-full, made once per release from the placed mirrors' lengths and objects, as
 * the manifest records them: no mirror is read for it. Every mirror of the catalog at once is
 * hundreds of megabytes, so none is kept: a part reads its own, when it is composed (llmsFullPart).
 */
function llmsFullOf({ content, placedFiles }: WriterContext): Promise<LlmsFullPlan> {
  let entry = llmsFull.get(content);
  if (!entry) {
    const tip = tipOf(content);
    entry = (async () => {
      const [packageMirror, advisoryMirror] = await Promise.all([placedFiles('package-markdown'), placedFiles('advisory-markdown')]);
      const mirrors: PlacedMirror[] = [];
      const measure = (label: string, row: PlacedMirror['row'], params: Record<string, string>, placed: typeof packageMirror) => {
        const { object, length, holes } = placed(params);
        mirrors.push({ label, row, params, object, holes, bytes: length });
      };
      for (const record of tip.records.values()) measure(record.name, 'package-markdown', { name: record.name }, packageMirror);
      for (const id of tip.advisories.keys()) measure(id, 'advisory-markdown', { id }, advisoryMirror);
      return { mirrors, parts: llmsFullParts(tip, mirrors) };
    })();
    llmsFull.set(content, entry);
  }
  return entry;
}

/**
 * Part `number` of llms-full as a Rendition: its key is its header and its mirrors' objects, so a
 * commit composes again only the parts whose mirrors (or header) changed. It is stored as the list
 * of what it joins (its header and separators, its mirrors' objects and holes), which the readers
 * join with the tip's values in the mirrors' holes: no mirror is read to compose it, and a part is
 * a few kilobytes, not half a megabyte, for each commit that changes one of its mirrors.
 */
function llmsFullPart(context: WriterContext, { mirrors, parts }: LlmsFullPlan, number: number): Rendition {
  const tip = tipOf(context.content);
  const own = mirrors.slice(parts[number - 1].start, parts[number - 1].end);
  const key = contentHash(['llms-full-part', context.codeVersion, llmsFullPartHeader(tip, number, parts.length), ...own.map(({ object }) => object)].join('\n'));
  return {
    key: () => key,
    render: () => {
      const joined = composeLlmsFullPart(tip, parts, number, own.map(({ object, holes, bytes }) => ({ segment: [object, holes] as JoinedSegment, bytes })));
      return {
        body: {
          joined: joined.map((piece) => (typeof piece === 'string' ? piece : piece.segment)),
          length: joined.reduce((length, piece) => length + (typeof piece === 'string' ? Buffer.byteLength(piece) : piece.bytes), 0),
        },
      };
    },
  };
}

/** What every page of a release is made from, made once per release (siteOf). */
const sites = new WeakMap<ReleaseContent, SiteContext>();

/** `/api/pkgs/{name}.json` of the package `key` at `commit`. */
const envelopeAt = (content: ReleaseContent, key: string, commit: CommitInfo): string => serialize(composeEnvelope(commit, new RawJson(content.records.get(key)!)));

/**
 * The envelope of the package `key` with holes for the tip's sha and push time (its text at the
 * tip when they cannot be told apart). Made again for its page rather than kept: it is a
 * serialization and a cut, and keeping every package's held them all until the release was done.
 */
const envelopePieces = (content: ReleaseContent, key: string, name: string): Promise<Pieces | string> =>
  withHoles(content.tip, (commit) => envelopeAt(content, key, commit), (commit) => tipValues(commit, name), plainRecord(content, key));

/** What every page of the release is made from (src/site/pages.ts); the package pages get ENVELOPE_HOLE. */
function siteOf(content: ReleaseContent): SiteContext {
  let site = sites.get(content);
  if (!site) {
    site = siteContext({
      tip: content.tip,
      chain: content.chain,
      siteUrl: content.siteUrl,
      listing: content.listing,
      envelope: () => ENVELOPE_HOLE,
      record: (key) => recordOf(content, key)!,
      transitive: transitiveOf(content),
      reach: tipOf(content).advisories,
      history: content.history,
      changes: content.recentChanges,
    });
    sites.set(content, site);
  }
  return site;
}

const decoder = new TextDecoder();

/** The changes page as a Rendition: its key is the hash of its view (everything the template lays out) and of the site's code. */
function changesPageRendition(context: WriterContext): Rendition {
  const view = changesPage(siteOf(context.content));
  const key = contentHash(['changes-page', context.codeVersion, JSON.stringify(view)].join('\n'));
  const path = fillTemplate(surface('changes-page').path, {});
  return { key: () => key, render: async () => ({ body: await (await loadSite()).render(path, view) }) };
}

/**
 * An advisory page as a Rendition. Its view is made through maps that note what it reads (its
 * reach, whose input covers the records it is active in, and the names of the packages it links),
 * so its key is known without making the view: a commit makes the views of the advisories whose
 * inputs changed, not of every one. A blast radius cut short links to the tip's full bundle: its
 * view names a stand-in's sha there, and the page has a hole for the tip's. When the catalog's
 * text holds something a stand-in's value could come from, it is rendered at the tip and not kept.
 */
function advisoryPageRendition(context: WriterContext, params: Record<string, string>, id: string): Rendition {
  const { content } = context;
  const path = fillTemplate(surface('advisory-page').path, params);
  return {
    key: (reads) => tracedKey(context, 'advisory-page', reads),
    get holes() {
      return storedHoles(undefined);
    },
    render: async () => {
      const reads = new Set<string>();
      const tip = tipOf(content);
      const view = advisoryPage(siteOf(content), id, STAND_INS[0].sha, { reach: new TracedMap(tip.advisories, 'advisory', reads), names: new TracedMap(tip.names, 'name', reads) });
      const site = await loadSite();
      if (STAND_IN_SOURCES.test(JSON.stringify({ ...view, wholeReach: null }))) {
        const wholeReach = view.wholeReach && fillTemplate(surface('full-bundle').path, { sha: content.tip.sha });
        return { body: await site.render(path, { ...view, wholeReach }) };
      }
      return { body: cutAtHoles(decoder.decode(await site.render(path, view)), storedHoles(undefined))!, reads: [...reads] };
    },
  };
}

/**
 * A document of one package, kept while what it read stays the same. A warm release walks every
 * package's documents and keeps nearly all of them, so each is one small object (its kind's
 * render function is shared): an object literal with a getter and closures per document made
 * hundreds of megabytes of garbage per commit at 50,000 packages.
 */
class PackageDocument implements Rendition {
  readonly context: WriterContext;
  /** Its kind, in its key: the row's id. */
  readonly kind: string;
  readonly packageKey: string;
  readonly name: string;
  readonly renderer: (document: PackageDocument) => Rendered | Promise<Rendered>;

  constructor(context: WriterContext, kind: string, packageKey: string, name: string, renderer: (document: PackageDocument) => Rendered | Promise<Rendered>) {
    this.context = context;
    this.kind = kind;
    this.packageKey = packageKey;
    this.name = name;
    this.renderer = renderer;
  }

  key(reads: Iterable<string> | undefined): string | null {
    return tracedKey(this.context, this.kind, reads);
  }

  render(): Rendered | Promise<Rendered> {
    return this.renderer(this);
  }
}

/** A package's document that carries the tip: the stand-in's values in its holes (Rendition.holes). */
class PackageDocumentWithHoles extends PackageDocument {
  get holes(): Readonly<Record<string, string>> {
    return storedHoles(this.name);
  }
}

/** `/api/pkgs/{name}.json`: its record alone, whose digest the composer keeps (not the record's text hashed again for every package on every commit). */
const renderEnvelope = async ({ context, packageKey, name }: PackageDocument): Promise<Rendered> => ({ body: await envelopePieces(context.content, packageKey, name), reads: [`record:${packageKey}`] });

/**
 * A package page. Its view is made through maps that note what it reads (the cards of its
 * dependencies and dependents, the advisories and commits it names) besides its record, rollup
 * and history, so its key is known without making the view: a commit makes the views of the pages
 * whose inputs changed, not of every package. It embeds its envelope byte for byte, and so carries
 * the envelope's holes for the tip.
 */
async function renderPackagePage({ context, packageKey: key, name }: PackageDocument): Promise<Rendered> {
  const { content } = context;
  const path = fillTemplate(surface('package-page').path, { name });
  const site = siteOf(content);
  const reads = new Set([`record:${key}`, `transitive:${key}`, `history:${key}`]);
  const view = packagePageView({
    envelope: ENVELOPE_HOLE,
    record: recordOf(content, key)!,
    transitive: transitiveOf(content).get(key) ?? [],
    history: content.history.get(key) ?? [],
    severities: new TracedMap(site.severities, 'severity', reads),
    names: new TracedMap(tipOf(content).names, 'name', reads),
    advisories: new TracedMap(site.advisories, 'advisory-summary', reads),
    commits: new TracedMap(site.commits, 'commit', reads),
    siteUrl: content.siteUrl,
  });
  const html = await (await loadSite()).render(path, view);
  const around = decoder.decode(html).split(ENVELOPE_HOLE);
  const inside = await envelopePieces(content, key, name);
  // Anything but one place for the envelope, or an envelope without holes (the catalog's text held a stand-in): the page as it is at this tip, not kept.
  if (around.length !== 2 || typeof inside === 'string') {
    return { body: await (await loadSite()).render(path, { ...view, envelope: envelopeAt(content, key, content.tip) }) };
  }
  const pieces = [...inside.pieces];
  pieces[0] = around[0] + pieces[0];
  pieces[pieces.length - 1] += around[1];
  return { body: { pieces, holes: inside.holes }, reads: [...reads] };
}

/** `/pkgs/{name}.md`: composed through the tip's maps, noting what it reads. */
function renderPackageMarkdown({ context, packageKey }: PackageDocument): Rendered {
  const reads = new Set<string>();
  const body = composePackageMarkdown(tracedTip(tipOf(context.content), reads), packageKey);
  return { body, reads: [...reads] };
}

/**
 * `/api/pkgs/{name}/sbom.json`: its own record, and of each other package of its closure what the
 * SBOM says besides that package's component, which is a marker the readers fill with the tip's.
 */
async function renderPackageSbom({ context, packageKey: key, name }: PackageDocument): Promise<Rendered> {
  const { content } = context;
  const lookup = (dependency: string) => recordOf(content, dependency);
  // A closure of thousands (a long dependency cycle) makes a document of megabytes per package: composed on request instead.
  // Checked here, when its inputs changed: a kept SBOM's closure is the one it was rendered from.
  if (closureExceeds(lookup, key, PRERENDERED_SBOM_CLOSURE)) return { body: null };
  const closure = (await packageClosure(lookup, key))!;
  const plain = [key, ...closure.packages.keys()].every((member) => plainRecord(content, member));
  const body = await withHoles(content.tip, (commit) => serialize(composeSbom('cyclonedx', commit, closure, true)), (commit) => tipValues(commit, name), plain);
  return { body, reads: [`record:${key}`, `sbom-closure:${key}`], components: true };
}

/** Rows whose writer leaves out some packages' files (the gateway composes those on request): the release check does not require them. */
export const PARTIAL_ROWS: ReadonlySet<string> = new Set(['package-sbom']);

export const WRITERS: Readonly<Record<string, Writer>> = {
  /** `/api/pkgs/recent-commits.json` with the default limit (the gateway composes other limits). */
  'recent-commits': function* ({ content }) {
    const limit = queryDefault(surface('recent-commits'), 'limit') as number;
    yield { params: {}, body: serialize(composeRecentCommits(content.chain, limit)) };
  },
  /** `/api/pkgs/{name}.json` of every package at the tip, in its canonical spelling: the tip's values around the stored record. */
  package: function* (context) {
    for (const { key, name } of publishedPackages(context.content)) yield { params: { name }, body: new PackageDocumentWithHoles(context, 'package', key, name, renderEnvelope) };
  },
  /**
   * `/api/pkgs/{name}/badge.svg` in the default style and label, for each metric (the score's is
   * the row's own file, the others its variant files). Badges repeat (a score is one of 101), so
   * each distinct one is drawn once.
   */
  'package-badge': function* ({ content }) {
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
        yield { params: { name }, query, body };
      }
    }
  },
  /**
   * `/`: the search page, with the listing bundle inline. Its view is made of the listing bundle
   * and the site URL alone, so its key is theirs, not the view's JSON (the listing again, and more).
   */
  'search-page': function* (context) {
    const { content } = context;
    const key = contentHash(['search-page', context.codeVersion, content.siteUrl, contentHash(content.listing)].join('\n'));
    const path = fillTemplate(surface('search-page').path, {});
    yield { params: {}, body: { key: () => key, render: async () => ({ body: await (await loadSite()).render(path, searchPage(siteOf(content))) }) } };
  },
  /** `/pkgs/{name}`: every package's detail page, with its envelope inline (and so its holes for the tip). */
  'package-page': function* (context) {
    for (const card of siteOf(context.content).bundle.packages) {
      yield { params: { name: card.name }, body: new PackageDocumentWithHoles(context, 'package-page', nameKey(card.name), card.name, renderPackagePage) };
    }
  },
  /** `/advisories/{id}`: a page per advisory active at the tip (one whose blast radius is cut short has a hole for the tip). */
  'advisory-page': function* (context) {
    for (const id of tipOf(context.content).advisories.keys()) yield { params: { id }, body: advisoryPageRendition(context, { id }, id) };
  },
  /** `/changes`: what the recent commits changed. */
  'changes-page': function* (context) {
    yield { params: {}, body: changesPageRendition(context) };
  },
  /**
   * `/pkgs/advisories.xml`: the advisories active at the tip, newest first. Its key is every
   * advisory's input (`advisory:<id>`: the records it is active in, the paths it shows, how many
   * reach it), so it is composed only when an advisory changed; its `updated` is the tip's time, a
   * hole, so that it is stored once for as long as its entries stay the same (3.5 MB at 20,000 packages).
   */
  'advisory-feed': function* (context) {
    const { content } = context;
    const tip = tipOf(content);
    const advisories = [...tip.advisories.keys()].map((id) => `${id}=${inputHash(content, `advisory:${id}`)}`);
    const key = contentHash(['advisory-feed', context.codeVersion, content.siteUrl, ...advisories].join('\n'));
    yield {
      params: {},
      body: {
        key: () => key,
        get holes() {
          return storedHoles(undefined);
        },
        render: async () => ({ body: await withHoles(content.tip, (commit) => composeAdvisoryFeed({ ...tip, commit }), (commit) => tipValues(commit, undefined), false) }),
      },
    };
  },
  /** `/pkgs/changes.xml`: what each of the newest commits changed. */
  'changes-feed': function* ({ content }) {
    yield { params: {}, body: composeChangesFeed(tipOf(content), content.recentChanges) };
  },
  /** `/pkgs/{name}.md` of every package at the tip (reserved names too: the rule is for /api/pkgs/ only). */
  'package-markdown': function* (context) {
    for (const [key, record] of tipOf(context.content).records) yield { params: { name: record.name }, body: new PackageDocument(context, 'package-markdown', key, record.name, renderPackageMarkdown) };
  },
  /** `/advisories/{id}.md` of every advisory active at the tip (one whose blast radius is cut short links to the tip's full bundle: a hole). */
  'advisory-markdown': function* (context) {
    const { content } = context;
    const tip = tipOf(content);
    for (const id of tip.advisories.keys()) {
      yield {
        params: { id },
        body: {
          key: (reads) => tracedKey(context, 'advisory-markdown', reads),
          get holes() {
            return storedHoles(undefined);
          },
          render: async () => {
            const reads = new Set<string>();
            const render = (commit: CommitInfo) => {
              const traced = tracedTip(tip, reads, commit);
              return composeAdvisoryMarkdown(traced, traced.advisories.get(id)!);
            };
            // Rendered at both stand-ins: what it makes of the commit is not only the values themselves.
            const body = await withHoles(content.tip, render, (commit) => tipValues(commit, undefined), false);
            return { body, reads: [...reads] };
          },
        },
      };
    }
  },
  'llms-txt': async function* (context) {
    yield { params: {}, body: composeLlmsTxt(tipOf(context.content), (await llmsFullOf(context)).parts) };
  },
  /** `/llms-full.txt`: the first part of llms-full (the same bytes as `/llms-full/1.txt`, one file linked twice). */
  'llms-full-txt': async function* (context) {
    yield { params: {}, body: llmsFullPart(context, await llmsFullOf(context), 1) };
  },
  /** `/llms-full/{part}.txt`: every package mirror, then every advisory mirror, in parts of at most LLMS_FULL_PART_BYTES. */
  'llms-full-part': async function* (context) {
    const plan = await llmsFullOf(context);
    for (let part = 1; part <= plan.parts.length; part++) {
      yield { params: { part: String(part) }, body: llmsFullPart(context, plan, part) };
    }
  },
  /** `/sitemap.xml`: the pages of the packages and advisories at the tip, by name and id: its key is their names, so a new version alone composes none. */
  sitemap: function* (context) {
    const { content } = context;
    const tip = tipOf(content);
    const omitted = sitemapUrlCount(tip) - SITEMAP_URL_LIMIT;
    if (omitted > 0) content.log(`warning: sitemap.xml lists the first ${SITEMAP_URL_LIMIT} pages, the protocol's limit; ${omitted} are left out (docs/decisions.md "Sitemap")`);
    const key = contentHash(['sitemap', context.codeVersion, content.siteUrl, ...tip.names.values(), '', ...tip.advisories.keys()].join('\n'));
    yield { params: {}, body: { key: () => key, render: async () => ({ body: (await composeSitemap(tip)).xml }) } };
  },
  /**
   * `/api/pkgs/{name}/sbom.json` of every package at the tip in the default format (CycloneDX),
   * the same bytes as the sha-pinned SBOM at the tip (src/compose/sbom/): made from the package's
   * closure, with holes for the tip's sha, time and the serial number derived from them.
   */
  'package-sbom': function* (context) {
    for (const { key, name } of publishedPackages(context.content)) yield { params: { name }, body: new PackageDocumentWithHoles(context, 'package-sbom', key, name, renderPackageSbom) };
  },
  /** `/api/pkgs/openapi.json`: the OpenAPI document, prerendered (SPEC.md Endpoints rule 4). */
  openapi: function* ({ content }) {
    yield { params: {}, body: serialize(composeOpenApi({ siteUrl: content.siteUrl, examples: content.examples })) };
  },
};
