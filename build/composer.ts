/**
 * Composes each commit's bodies incrementally. It keeps the serialized items of the last
 * composed state (records, cards, transitive rollups, the package index) and recomposes only
 * the items that a commit's changes reach: the changed packages, the packages whose reverse
 * dependencies, dependency views or transitive rollups depend on them. Everything it writes is
 * byte-identical to composing the state whole (tests/build check both ways).
 */
import { serialize, serializeSegments, StoredArray, StoredValue, type Segment } from '../src/serialize.ts';
import { analyze, reanalyze, type CatalogAnalysis } from '../src/compose/analysis.ts';
import { advisoryMap } from '../src/compose/advisories.ts';
import { reroutedAdvisories, transitiveRollups } from '../src/compose/transitive.ts';
import { composeCard, composeDeps, composeRecord, composeVersions } from '../src/compose/package.ts';
import { listingBundle } from '../src/compose/bundles.ts';
import type { CatalogState, CommitInfo } from '../src/compose/types.ts';
import { composeDiff, type DiffSide } from '../src/compose/diff.ts';
import type { Diff } from '../src/schemas/wire.ts';
import type { PackageCard } from '../src/compose/package.ts';
import { fullBundleSegments, TRANSITIVE_ENTRY_START, type PackageIndexEntry, type StateRootFile, type StoredBody } from '../src/store/layout.ts';
import { contentEtag } from '../src/store/hash.ts';
import { ChunkedCollection, HashedStrings, PackedStrings, type ChunkRef } from './chunks.ts';
import type { AppliedCommit } from './model.ts';
import type { ObjectStore } from './objects.ts';

/** The entries of a rollup's text (each serialized apart, comma-joined, sorted by advisory id), as [advisory id, entry text]. */
function* serializedEntries(text: string): Generator<[string, string]> {
  const start = TRANSITIVE_ENTRY_START;
  for (let at = 0; at < text.length; ) {
    const next = text.indexOf(`,${start}`, at);
    const end = next < 0 ? text.length : next;
    yield [text.slice(at + start.length, text.indexOf('"', at + start.length)), text.slice(at, end)];
    at = end + 1;
  }
}

/**
 * About one chunk boundary every ROLLUP_SPREAD packages in the transitive rollups' chunks, not
 * every 32 as elsewhere: a rollup is 15 KB on average at 20,000 packages (a record 1 KB), and a
 * commit stores again every chunk one of its changed rollups is in, each inflated item by item.
 * Chunks of 32 made a 20,000-package history of 200 commits store 5.5 GB of rollup chunks.
 */
const ROLLUP_SPREAD = 8;

const joinItems = (entries: [string, string][]) => entries.map(([, text]) => text).filter((text) => text !== '').join(',');
const indexObject = (entries: [string, PackageIndexEntry][]) => serialize(Object.fromEntries(entries));

/** The composer's items, kept in the checkpoint so the next build resumes without recomposing (read one at a time when it is saved). */
export interface ComposerSnapshot {
  records: Iterable<[string, string]>;
  cards: Iterable<[string, string]>;
  transitive: Iterable<[string, string]>;
  index: Iterable<[string, PackageIndexEntry]>;
  /** Each collection's chunks as stored for these items (ChunkedCollection.flushed): the next build writes only the chunks that change. */
  chunks?: CollectionChunks | null;
  /**
   * The byte length of each of those chunks (a bundle's Content-Length adds them up): without
   * them, a resumed build reads every chunk of the catalog back to learn its length.
   */
  chunkLengths?: Readonly<Record<string, number>> | null;
}

/** The chunks of the composer's collections, by collection. */
export interface CollectionChunks {
  records: ChunkRef[];
  cards: ChunkRef[];
  transitive: ChunkRef[];
  index: ChunkRef[];
}

/** What a state root records of one composed commit (src/store/layout.ts StateRootFile). */
export type ComposedCommit = Pick<StateRootFile, 'listing' | 'full' | 'records' | 'transitive' | 'packages'>;

function storedBody(segments: Segment[], lengthOf: (hash: string) => number): StoredBody {
  let length = 0;
  for (const segment of segments) length += typeof segment === 'string' ? Buffer.byteLength(segment) : lengthOf(segment.object);
  // Segments name their chunks by content hash, so a hash of the recipe identifies the bytes.
  return { etag: contentEtag(JSON.stringify(segments)), length, segments };
}

/**
 * The listing bundle's `allCategories`, kept across commits: how many packages list each
 * category, updated for the packages a commit changed (allCategories(state) walks every package,
 * which made each commit cost a little more as the catalog grew). Equal to allCategories(state).
 */
class CategoryCounts {
  readonly #counts = new Map<string, number>();
  readonly #byPackage = new Map<string, readonly string[]>();
  #sorted: string[] | null = null;
  #filled = false;

  /** Takes in the packages `keys` (all of them on first use) as they are in `state`. */
  update(state: CatalogState, keys: Iterable<string>): void {
    for (const key of this.#filled ? keys : state.packages.keys()) {
      const before = this.#byPackage.get(key) ?? [];
      const manifest = state.packages.get(key)?.manifest;
      const after = manifest ? [...new Set(manifest.categories)] : [];
      if (sameList(before, after)) continue;
      for (const category of before) {
        const count = this.#counts.get(category)! - 1;
        if (count === 0) this.#counts.delete(category);
        else this.#counts.set(category, count);
      }
      for (const category of after) this.#counts.set(category, (this.#counts.get(category) ?? 0) + 1);
      if (after.length > 0) this.#byPackage.set(key, after);
      else this.#byPackage.delete(key);
      this.#sorted = null;
    }
    this.#filled = true;
  }

  get sorted(): string[] {
    return (this.#sorted ??= [...this.#counts.keys()].sort());
  }
}

const sameList = (a: readonly string[] | undefined, b: readonly string[] | undefined) =>
  (a ?? []).length === (b ?? []).length && (a ?? []).every((item, index) => item === b![index]);

export class Composer {
  readonly records: ChunkedCollection<string>;
  /** The records' items, with each one's digest (the release's documents read them). */
  readonly recordTexts = new HashedStrings();
  readonly cards: ChunkedCollection<string>;
  /** Transitive rollups by name key: the package's entries, serialized and comma-joined (the documents and pages read them too). */
  readonly transitive: ChunkedCollection<string>;
  /** The transitive collection's items: by far the largest (a rollup per package, each path up to 64 names), kept deflated. */
  readonly rollups: PackedStrings;
  private readonly index: ChunkedCollection<PackageIndexEntry>;
  private analysis: CatalogAnalysis | null = null;
  /** Everything is dirty until the first composition (a fresh build or a restored checkpoint). */
  private composedOnce: boolean;
  /** Packages whose record and card must be recomposed. */
  private readonly dirtyRecords = new Set<string>();
  /** Packages whose own data (version, license, advisories, presence) changed: their dependents' deps.json too. */
  private readonly dirtyViews = new Set<string>();
  /** Packages whose own dependency lists changed. */
  private readonly dirtyDeps = new Set<string>();
  private readonly dirtyVersions = new Set<string>();
  /** Packages every package reaching which gets its rollup made again whole (all of them on a first composition; a respelled one). */
  private readonly transitiveSeeds = new Set<string>();
  /**
   * Packages whose active advisories or dependencies changed, and the advisories that moved with
   * them (reroutedAdvisories): a package reaching one of these packages (and no package of
   * transitiveSeeds) gets new entries for those advisories, and keeps its others.
   */
  private readonly rerouteSeeds = new Set<string>();
  private readonly movedAdvisories = new Set<string>();
  /** The stored advisory map of the last composed state; null when it must be recomposed. */
  private advisoryMapObject: StoredValue | null = null;
  /** The cards the last composition changed: before (null: absent) and after (null: gone). */
  private readonly cardChanges = new Map<string, { before: PackageCard | null; after: PackageCard | null }>();
  private readonly categories = new CategoryCounts();
  /** Byte lengths of chunk objects, for Content-Length. */
  private readonly lengths = new Map<string, number>();

  constructor(snapshot?: ComposerSnapshot) {
    this.records = new ChunkedCollection(joinItems, snapshot?.records, this.recordTexts);
    this.cards = new ChunkedCollection(joinItems, snapshot?.cards);
    const transitive = snapshot?.transitive;
    this.rollups = transitive instanceof PackedStrings ? transitive : new PackedStrings(transitive);
    this.transitive = new ChunkedCollection(joinItems, undefined, this.rollups, ROLLUP_SPREAD);
    this.index = new ChunkedCollection(indexObject, snapshot?.index);
    if (snapshot?.chunks) for (const [name, refs] of Object.entries(snapshot.chunks)) this.#collections()[name as keyof CollectionChunks].adopt(refs);
    for (const [object, length] of Object.entries(snapshot?.chunkLengths ?? {})) this.lengths.set(object, length);
    this.composedOnce = snapshot !== undefined;
  }

  #collections(): { [name in keyof CollectionChunks]: ChunkedCollection<string> | ChunkedCollection<PackageIndexEntry> } {
    return { records: this.records, cards: this.cards, transitive: this.transitive, index: this.index };
  }

  snapshot(): ComposerSnapshot {
    const flushed = Object.entries(this.#collections()).map(([name, collection]) => [name, collection.flushed()] as const);
    const chunks = flushed.every(([, refs]) => refs !== null) ? (Object.fromEntries(flushed) as unknown as CollectionChunks) : null;
    // flush() learns the length of every chunk it returns.
    const chunkLengths = chunks && Object.fromEntries(Object.values(chunks).flat().map((ref) => [ref.object, this.lengths.get(ref.object)!]));
    return { records: this.records.items, cards: this.cards.items, transitive: this.transitive.items, index: this.index.items, chunks, chunkLengths };
  }

  /** From now on, notes the packages whose record, card or rollup is set (build/build.ts Builder: what changed since its release). */
  noteChanges(): void {
    for (const collection of [this.records, this.cards, this.transitive]) collection.noteSets();
  }

  /** The packages whose record, card or rollup was set since `noteChanges` (each may differ now); null when it was never called. */
  changedPackages(): Set<string> | null {
    const noted = [this.records.noted, this.cards.noted, this.transitive.noted];
    return noted.some((keys) => keys === null) ? null : new Set(noted.flatMap((keys) => [...keys!]));
  }

  /** The analysis of the state last noted or composed; null before either (a composer restored from a checkpoint). */
  get currentAnalysis(): CatalogAnalysis | null {
    return this.analysis;
  }

  /**
   * The state a composer restored from a checkpoint holds the items of, analyzed once: the next
   * commit's changes are then found against it, where without it every package the commit
   * touched would count as moved (a popular package's version bump recomposed the rollups of the
   * 12,700 packages reaching it).
   */
  resumeAt(state: CatalogState): void {
    this.analysis ??= analyze(state);
  }

  /** Records what one applied commit changed, against the previous state's analysis. */
  note(state: CatalogState, applied: AppliedCommit): void {
    // The graph as it was (null on a first composition, where everything is composed anyway).
    const before = this.analysis ? reanalyze(this.analysis, state, applied) : null;
    const after = (this.analysis ??= analyze(state));
    const changed = new Set([...applied.packages, ...applied.advisoryNamed]);
    for (const key of changed) {
      this.dirtyRecords.add(key);
      this.dirtyViews.add(key);
    }
    for (const key of applied.packages) this.dirtyDeps.add(key);
    for (const key of applied.dependentsChanged) this.dirtyRecords.add(key);
    for (const { key } of applied.shipped) this.dirtyVersions.add(key);

    // A package appearing or leaving changes the edges of the packages that name it.
    const candidates = new Set(changed);
    for (const key of applied.presence) for (const dependent of after.dependents.get(key) ?? []) candidates.add(dependent);
    const rewired: string[] = [];
    for (const key of candidates) {
      if (!before) {
        this.transitiveSeeds.add(key);
        continue;
      }
      if (!sameList(before.edges.get(key), after.edges.get(key))) rewired.push(key);
      const [was, is] = [before.activeIds.get(key) ?? [], after.activeIds.get(key) ?? []];
      if (sameList(was, is)) continue;
      this.rerouteSeeds.add(key);
      for (const id of was) if (!is.includes(id)) this.movedAdvisories.add(id);
      for (const id of is) if (!was.includes(id)) this.movedAdvisories.add(id);
    }
    // New dependencies change the entries of the advisories now reached another way, and no others.
    if (before && rewired.length > 0) {
      for (const id of reroutedAdvisories(before, after, rewired)) this.movedAdvisories.add(id);
      for (const key of rewired) this.rerouteSeeds.add(key);
    }
    // A respelled package's name is on the culprit paths through it, and in its dependencies' reverse dependencies.
    for (const key of applied.respelled) {
      this.transitiveSeeds.add(key);
      for (const dependency of after.declared.get(key) ?? []) this.dirtyRecords.add(dependency);
    }
    // The advisory map shows each advisory from the first package it is active on.
    const touchesAdvisories = [...applied.packages].some((key) => before?.activeIds.get(key) !== undefined || after.activeIds.has(key));
    if (!before || applied.advisoryNamed.size > 0 || touchesAdvisories) this.advisoryMapObject = null;
  }

  /** Composes and stores the bodies of `state`, recomposing only what is dirty. */
  async compose(state: CatalogState, store: ObjectStore): Promise<ComposedCommit> {
    const analysis = this.analysis ?? analyze(state);
    this.analysis = analysis;
    const all = !this.composedOnce;
    const everything = (...maps: Iterable<string>[]) => new Set(maps.flatMap((keys) => [...keys]));

    const recordKeys = all ? everything(state.packages.keys(), this.records.items.keys()) : this.dirtyRecords;
    this.categories.update(state, recordKeys);
    this.cardChanges.clear();
    for (const key of recordKeys) {
      const present = state.packages.has(key);
      const record = present ? serialize(composeRecord(state, analysis, key)) : null;
      this.records.set(key, record);
      const card = present ? composeCard(state, analysis, key) : null;
      const text = card && serialize(card);
      const before = this.cards.items.get(key);
      if (text !== (before ?? null)) this.cardChanges.set(key, { before: before === undefined ? null : (JSON.parse(before) as PackageCard), after: card });
      this.cards.set(key, text);
    }

    // deps.json reads the package's lists and its dependencies' data; versions.json its history.
    const indexKeys = all
      ? everything(state.packages.keys(), state.history.keys(), this.index.items.keys())
      : everything(this.dirtyDeps, this.dirtyViews, this.dirtyVersions);
    if (!all) for (const key of this.dirtyViews) for (const dependent of analysis.dependents.get(key) ?? []) indexKeys.add(dependent);
    // A popular package's upgrade changes thousands of deps.json: the store writes them in the
    // background, and put() waits when too many bytes are in flight.
    for (const key of indexKeys) {
      const pkg = state.packages.get(key);
      const history = state.history.get(key);
      if (!pkg && !history) {
        this.index.set(key, null);
        continue;
      }
      const name = state.names.get(key) ?? key;
      const previous = this.index.items.get(key);
      const versionsStale = all || this.dirtyVersions.has(key) || previous?.name !== name || !previous.versions;
      const entry: PackageIndexEntry = { name };
      this.index.set(key, entry);
      if (pkg) entry.deps = await store.put(serialize(composeDeps(state, analysis, key)), { served: true });
      if (history) entry.versions = versionsStale ? await store.put(serialize(composeVersions(state, key, name)), { served: true }) : previous!.versions;
    }

    // Transitive rollups change for everything that reaches a seed.
    const transitiveKeys = all ? everything(state.packages.keys(), this.transitive.items.keys()) : this.reverseClosure(analysis, this.transitiveSeeds);
    // One package's rollup at a time: those of a whole catalog, held at once, are far larger than its graph.
    for (const [key, entries] of transitiveRollups(state, analysis, transitiveKeys)) this.#setRollup(key, entries.map((entry) => serialize(entry)));
    // Those reaching a package whose advisories or dependencies changed: the entries of the advisories that moved are made again, the rest kept.
    // (A new dependency that reroutes no advisory, the usual one, moves nothing: no rollup is read.)
    if (!all && this.movedAdvisories.size > 0) {
      const moved = this.movedAdvisories;
      const reaching = [...this.reverseClosure(analysis, this.rerouteSeeds)].filter((key) => !transitiveKeys.has(key));
      for (const [key, entries] of transitiveRollups(state, analysis, reaching, moved)) {
        const text = state.packages.has(key) ? this.transitive.items.get(key) : undefined;
        // The kept entries stay as the text they are: parsing and serializing them again was most of an advisory's commit.
        const kept = text === undefined ? [] : [...serializedEntries(text)].filter(([id]) => !moved.has(id));
        const made = entries.map((entry): [string, string] => [entry.advisoryId, serialize(entry)]);
        const merged = [...kept, ...made].sort(([a], [b]) => (a < b ? -1 : 1));
        this.#setRollup(key, merged.map(([, entry]) => entry));
      }
    }
    this.advisoryMapObject ??= new StoredValue(await this.put(store, serialize(advisoryMap(state, analysis))));

    const records = await this.flush(this.records, store);
    const cards = (await this.flush(this.cards, store)).map((ref) => ref.object);
    const transitive = await this.flush(this.transitive, store);
    const packages = await this.index.flush(store);
    for (const set of [this.dirtyRecords, this.dirtyViews, this.dirtyDeps, this.dirtyVersions]) set.clear();
    for (const set of [this.transitiveSeeds, this.rerouteSeeds, this.movedAdvisories]) set.clear();
    this.composedOnce = true;

    const lengthOf = (hash: string) => this.lengths.get(hash)!;
    const listing = storedBody(serializeSegments(listingBundle(state.commit, new StoredArray(cards), this.categories.sorted)), lengthOf);
    const advisories = this.advisoryMapObject.object;
    const { etag, length } = storedBody(fullBundleSegments({ commit: state.commit, records, transitive, full: { advisories } }), lengthOf);
    return { listing, full: { etag, length, advisories }, records, transitive, packages };
  }

  /**
   * The bytes of `listing`, the listing bundle of the last composed commit, as text: its cards'
   * chunks are made again from the cards held, not read back from the packs (9,327 objects, 65 MB
   * at 100,000 packages, each decompressed, for every commit).
   */
  listingText(listing: StoredBody): string {
    const chunks = new Map(this.cards.chunkTexts());
    return listing.segments
      .map((segment) => {
        if (typeof segment === 'string') return segment;
        const text = chunks.get(segment.object);
        if (text === undefined) throw new Error(`the listing names chunk ${segment.object}, which is not one of the cards the composer holds`);
        return text;
      })
      .join('');
  }

  /** A package's rollup from its entries' texts (sorted by advisory id): comma-joined; none when it has none. */
  #setRollup(key: string, entries: readonly string[]): void {
    this.transitive.set(key, entries.length > 0 ? entries.join(',') : null);
  }

  /** Stores a spliced object and remembers its length. */
  private async put(store: ObjectStore, text: string): Promise<string> {
    const hash = await store.put(text);
    this.lengths.set(hash, Buffer.byteLength(text));
    return hash;
  }

  /** The diff's view of the last composed state. */
  diffSide(commit: CommitInfo): DiffSide {
    const packages: PackageCard[] = [];
    // Parsed here, not kept: the catalog's cards are held once, as text.
    for (const text of this.cards.items.values()) packages.push(JSON.parse(text) as PackageCard);
    return { commitSha: commit.sha, pushedAt: commit.pushedAt, packages };
  }

  /**
   * The diff from the state composed before the last one (`base`) to the last one (`head`). A
   * package whose card did not change adds nothing to a diff, so the diff of the changed cards
   * alone is the whole diff, at the cost of what the commit changed rather than of the catalog.
   */
  diffOfLastCompose(base: CommitInfo, head: CommitInfo): Diff {
    const changes = [...this.cardChanges.values()];
    return composeDiff(
      { commitSha: base.sha, pushedAt: base.pushedAt, packages: changes.flatMap(({ before }) => (before ? [before] : [])) },
      { commitSha: head.sha, pushedAt: head.pushedAt, packages: changes.flatMap(({ after }) => (after ? [after] : [])) },
    );
  }

  private async flush(collection: ChunkedCollection<string>, store: ObjectStore): Promise<ChunkRef[]> {
    const refs = await collection.flush(store);
    for (const ref of refs) {
      if (!this.lengths.has(ref.object)) this.lengths.set(ref.object, await store.size(ref.object));
    }
    return refs;
  }

  /** The seeds and every package that depends on one of them, directly or not. */
  private reverseClosure(analysis: CatalogAnalysis, seeds: Iterable<string>): Set<string> {
    const reached = new Set(seeds);
    const queue = [...reached];
    for (let head = 0; head < queue.length; head++) {
      for (const dependent of analysis.dependents.get(queue[head]) ?? []) {
        if (!reached.has(dependent)) {
          reached.add(dependent);
          queue.push(dependent);
        }
      }
    }
    return reached;
  }
}
