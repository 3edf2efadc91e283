/**
 * Publishing a tip: one release per build. A release is a small directory (the tip, the chain,
 * the names, the diagnostics) and a manifest of its anonymous files (src/store/manifest.ts): each
 * file's body is an object of the store. It is written under a temporary name, validated, renamed
 * into place, and `current` is switched to it with an atomic symlink rename. Readers see the old
 * release or the new one, never a mix; a build that fails or is killed before the switch leaves
 * the old one.
 *
 * Work follows the change: a document yielded as a Rendition (build/writers.ts) is rendered only
 * when the digest of its inputs differs from the one the current release's manifest recorded for
 * its file. Otherwise its entry is kept as it is, holes included: a document that carries the tip
 * is stored once with the tip it was rendered at, and the gateway and the static export put the
 * current tip's values in its holes. A new tip alone renders nothing and writes no document.
 */
import { mkdir, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { countWritten } from '../src/store/atomic.ts';
import { contentHash } from '../src/store/hash.ts';
import { serialize } from '../src/serialize.ts';
import { currentReleaseId, LAYOUT_VERSION, paths, readJson, readStateRoot, type ChunkRef, type ReleaseInfo, type StateRoot } from '../src/store/layout.ts';
import { readManifest, renderJoined, renderKeyedChunk, type HoleSpan, type JoinedSegment, type ManifestEntry } from '../src/store/manifest.ts';
import { openObjects, readStoredObject, type ObjectBackend } from '../src/store/objects.ts';
import { fillTemplate, PUBLIC_SURFACE_IDS, publicFileFor, SERVED } from '../src/surfaces/registry.ts';
import { ChunkedCollection } from './chunks.ts';
import { contentSegments, SEGMENTED_FROM_BYTES } from './segments.ts';
import type { ObjectStore } from './objects.ts';
import { DocumentChecks, validateRelease } from './validate.ts';
import { siteSourceHash } from './site.ts';
import { InputNames, InputTable, inputEpoch, readInputs, type InputList, type InputsFile, type StoredInputs } from './inputs.ts';
import { inputHash, isRendition, recordOf, releasedReach, WRITERS, type KeptReach, type Pieces, type PublicBody, type ReleaseContent, type Rendition, type WriterContext } from './writers.ts';
import { sharedReach, type RollupReach } from '../src/compose/documents.ts';

export type { ReleaseContent };

/** Releases kept besides the current one, so requests that started on them can finish. */
const KEEP_RELEASES = 3;

/** What one release cost: the claim "a commit costs what it changes", counted. */
export interface PublishCounts {
  /** Documents rendered for this release (new inputs), or composed anew with other bytes than before. */
  rendered: number;
  /** Documents kept from the previous release as they are: their manifest entry, holes and all. */
  kept: number;
  /** Files written (new objects, and the release's own files), and their bytes. */
  filesWritten: number;
  bytesWritten: number;
}

export interface Published {
  readonly id: string;
  readonly counts: PublishCounts;
  /** The release as the next one starts from it, when asked for (`hold`). */
  readonly held: HeldRelease | null;
}

async function nextReleaseId(out: string, tip: string): Promise<string> {
  const existing = await readdir(paths.releases(out)).catch(() => [] as string[]);
  const numbers = existing.map((name) => Number.parseInt(name, 10)).filter(Number.isFinite);
  const next = (numbers.length > 0 ? Math.max(...numbers) : 0) + 1;
  return `${String(next).padStart(6, '0')}-${tip.slice(0, 12)}`;
}

const SOURCES = fileURLToPath(new URL('../src/', import.meta.url));
/** The writers, and this file, which makes each document's manifest entry from what they render. */
const PLACING_FILES = [fileURLToPath(new URL('./writers.ts', import.meta.url)), fileURLToPath(import.meta.url)];
/** The versions of the libraries that compose (CycloneDX, the sitemap and feed writers, badge-maker, ...). */
const LOCK_FILE = fileURLToPath(new URL('../package-lock.json', import.meta.url));

let codeVersionOnce: Promise<string> | null = null;

/**
 * The version of the code that composes, renders and places the documents: every source of src/
 * and of the site (build/site.ts), the writers, this file and the locked libraries. Another version
 * renders every document again (and so makes every manifest entry anew).
 */
function codeVersion(): Promise<string> {
  codeVersionOnce ??= (async () => {
    const files = (await readdir(SOURCES, { recursive: true })).filter((file) => file.endsWith('.ts')).sort();
    const parts = [await siteSourceHash(), ...(await Promise.all(PLACING_FILES.map((file) => readFile(file, 'utf8')))), await readFile(LOCK_FILE, 'utf8').catch(() => 'no lock file')];
    for (const file of files) parts.push(`${file}\n${await readFile(join(SOURCES, file), 'utf8')}`);
    return contentHash(parts.join('\0'));
  })();
  return codeVersionOnce;
}

/** The body of `pieces` with `values` in its holes, and where they sit. */
function fillHoles(pieces: Pieces, values: Readonly<Record<string, string>>): { bytes: Buffer; holes: HoleSpan[] } {
  const parts: Buffer[] = [];
  const holes: HoleSpan[] = [];
  let at = 0;
  pieces.pieces.forEach((piece, index) => {
    const bytes = Buffer.from(piece, 'utf8');
    parts.push(bytes);
    at += bytes.length;
    if (index === pieces.holes.length) return;
    const hole = pieces.holes[index];
    const value = values[hole];
    if (value === undefined) throw new Error(`a document has a hole "${hole}" its writer gives no value for`);
    const valueBytes = Buffer.from(value, 'utf8');
    holes.push([at, valueBytes.length, hole]);
    parts.push(valueBytes);
    at += valueBytes.length;
  });
  return { bytes: Buffer.concat(parts), holes };
}

const sameHoles = (a: readonly HoleSpan[] | undefined, b: readonly HoleSpan[]): boolean => (a ?? []).length === b.length && b.every((span, index) => span.every((value, at) => value === a![index][at]));

/**
 * A manifest entry as a release being built holds it: its reads numbered (build/inputs.ts
 * InputList), which a chunk's text spells out as the stored entry's names.
 */
type HeldEntry = ManifestEntry & { readonly reads?: InputList };

const renderHeldChunk: (entries: [string, HeldEntry][]) => string = renderKeyedChunk;

/**
 * What the manifest's entries repeat, held once. Their reads repeat the same inputs (every SBOM
 * that has zlib reads `record:zlib`): at 20,000 packages, 2.4 million reads of about 110,000
 * inputs, held as the inputs' numbers (build/inputs.ts InputNames). Their holes repeat the same spans
 * (half the 60,000 lists of holes at 20,000 packages are another's): 9 MB held once.
 */
class SharedParts {
  /** The inputs' names, numbered: the documents' reads are held as lists of their numbers. */
  readonly names = new InputNames();
  // Bounded: a builder that stays up sees new offsets with every commit, and a list forgotten is only held again.
  readonly #holes = new Map<string, readonly HoleSpan[]>();

  /** An input's name, held once (the input table's rows are keyed by the same names). */
  readonly name = (input: string): string => this.names.name(input);

  reads(reads: Iterable<string> | undefined): InputList | undefined {
    return reads && this.names.list(reads);
  }

  holes(holes: readonly HoleSpan[]): readonly HoleSpan[] {
    if (holes.length === 0) return holes;
    const key = holes.join(';');
    const shared = this.#holes.get(key);
    if (shared) return shared;
    if (this.#holes.size >= SHARED_HOLE_LISTS) this.#holes.clear();
    this.#holes.set(key, holes);
    return holes;
  }

  /** `entry`, its reads and holes shared. */
  entry({ reads, ...entry }: ManifestEntry): HeldEntry {
    return { ...entry, ...(reads && { reads: this.reads(reads) }), ...(entry.holes && { holes: this.holes(entry.holes) }) };
  }
}

/** A body's bytes: a text's UTF-8, or a view of the given bytes. */
const bytesOf = (body: string | Uint8Array): Buffer => (typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength));

/** Texts put shorter than this are looked up by text before they are hashed (Stage.put): a badge is about 1 KB. */
const REPEATED_BELOW = 4096;

/** Distinct lists of holes held for sharing (28,000 at 20,000 packages). */
const SHARED_HOLE_LISTS = 100_000;

/** The documents of one release being staged, and what writing them cost. */
class Stage {
  readonly counts: PublishCounts = { rendered: 0, kept: 0, filesWritten: 0, bytesWritten: 0 };
  /**
   * The release's manifest, starting as the current release's: each file placed sets its entry
   * (a kept one is the very same entry), so only the chunks whose entries change are written.
   */
  readonly manifest: ChunkedCollection<HeldEntry>;
  /** The problems of the documents this release rendered, checked as they are stored; the others were checked by the release that rendered them. */
  readonly problems: string[] = [];
  readonly #checks: DocumentChecks;
  readonly #store: ObjectStore;
  /**
   * The current release's entries this release has not placed yet: those left at the end are gone
   * from the catalog. An entry placed leaves it, so one replaced is let go as the release goes on,
   * not held to its end (a release that renders every document, after an upgrade, would otherwise
   * hold two manifests).
   */
  readonly #previous: Map<string, HeldEntry>;
  /** What the traced documents read, and which of those inputs changed since the previous release. */
  readonly inputs: InputTable;
  /**
   * The files whose entry this release set anew (new or changed) and the files it dropped, when
   * asked for: the release check of a builder that stays up looks at these alone (build/validate.ts
   * ManifestChanges).
   */
  readonly changedFiles: Set<string> | null;
  readonly droppedFiles: string[] = [];

  readonly #parts: SharedParts;
  /**
   * The object and length of each small text put, by text: the same few hundred badges are put for
   * every package (400,000 files at 100,000 packages), each converted to bytes and hashed again.
   */
  readonly #repeated = new Map<string, HeldEntry & { length: number }>();

  /** `manifest`: the current release's, its reads and holes shared through `parts`; this release's from here on. `noteChanges`: keep changedFiles. */
  constructor(store: ObjectStore, manifest: ChunkedCollection<HeldEntry>, parts: SharedParts, checks: DocumentChecks, inputs: InputTable, noteChanges: boolean) {
    this.#store = store;
    this.#checks = checks;
    this.inputs = inputs;
    this.changedFiles = noteChanges ? new Set() : null;
    this.#parts = parts;
    this.manifest = manifest;
    this.#previous = new Map(this.manifest.items);
  }

  /** The entry of `file` in this release (once placed). */
  entry(file: string): HeldEntry | undefined {
    return this.#previous.has(file) ? undefined : this.manifest.items.get(file);
  }

  #set(file: string, entry: HeldEntry): void {
    if (this.#previous.get(file) !== entry) {
      this.manifest.set(file, entry);
      this.changedFiles?.add(file);
    }
    this.#previous.delete(file);
  }

  /** The manifest's chunks, once every file is placed: a file not placed this time is dropped. */
  async flush(): Promise<ChunkRef[]> {
    for (const [file, entry] of this.#previous) {
      this.manifest.set(file, null);
      this.droppedFiles.push(file);
      if (entry.key !== undefined) this.inputs.gone(entry.reads);
    }
    return this.manifest.flush(this.#store);
  }

  /** Writes a file of the release directory (release.json, chain.json, ...). */
  async write(file: string, body: string | Uint8Array): Promise<void> {
    await writeFile(file, body);
    countWritten(body);
    this.counts.filesWritten++;
    this.counts.bytesWritten += typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  }

  /**
   * A document composed for every release (a feed, the sitemap, a badge): stored once per
   * distinct body. When its bytes are those of the previous release it counts as kept: only the
   * composing was done again, which costs little (documents of the whole catalog are few; badges
   * are drawn once per distinct face).
   */
  async put(file: string, body: string | Uint8Array): Promise<void> {
    const repeatable = typeof body === 'string' && body.length < REPEATED_BELOW;
    let entry = repeatable ? this.#repeated.get(body) : undefined;
    let bytes: Buffer | undefined;
    if (!entry) {
      bytes = bytesOf(body);
      const { object, segmented } = await this.#storeBody(bytes, true);
      entry = { object, length: bytes.length, ...(segmented && { joined: true as const }) };
      if (repeatable) this.#repeated.set(body, entry);
    }
    const previous = this.#previous.get(file);
    if (previous?.object === entry.object && previous.length === entry.length) {
      this.#set(file, previous);
      this.counts.kept++;
      return;
    }
    this.#set(file, entry);
    // Checked on the bytes it serves.
    this.problems.push(...(await this.#checks.problems(file, { object: entry.object, length: entry.length }, bytes ?? bytesOf(body))));
    this.counts.rendered++;
  }

  /**
   * Stores a document's bytes: a large one with nothing for the readers to fill (`plain`) as its
   * segments (build/segments.ts) and the list that joins them, so that a commit that changes a few
   * of its lines stores a few segments; any other as one object. Resolves with the object the
   * manifest names.
   */
  async #storeBody(bytes: Buffer, plain: boolean): Promise<{ object: string; segmented: boolean }> {
    if (!plain || bytes.length < SEGMENTED_FROM_BYTES) return { object: await this.#store.put(bytes), segmented: false };
    const segments = await Promise.all(
      contentSegments(bytes).map(async (segment): Promise<JoinedSegment> => [await this.#store.put(Buffer.from(segment.buffer, segment.byteOffset, segment.byteLength)), []]),
    );
    return { object: await this.#store.put(renderJoined(segments)), segmented: true };
  }

  /**
   * Keeps the previous release's entry of a small text put again with the same bytes (a badge)
   * without a promise: a warm release puts hundreds of thousands of them (put() does the rest).
   */
  keepsPut(file: string, body: string | Uint8Array): boolean {
    const entry = typeof body === 'string' && body.length < REPEATED_BELOW ? this.#repeated.get(body) : undefined;
    const previous = this.#previous.get(file);
    if (!entry || previous?.object !== entry.object || previous.length !== entry.length) return false;
    this.#set(file, previous);
    this.counts.kept++;
    return true;
  }

  /**
   * Keeps the previous release's entry of a document whose inputs did not change (the input table
   * says so, or else its key), without a promise: nearly every document of a warm release ends
   * here. False: it is to be rendered (render()).
   */
  keeps(file: string, rendition: Rendition): boolean {
    const kept = this.#previous.get(file);
    if (kept?.key === undefined) return false;
    if (!this.inputs.unchanged(kept.reads)) {
      if (rendition.key(kept.reads) !== kept.key) return false;
      this.inputs.kept(kept.reads);
    }
    this.#set(file, kept);
    this.counts.kept++;
    return true;
  }

  /** Renders a document that keeps() did not keep, and stores it. */
  async render(file: string, rendition: Rendition): Promise<void> {
    const kept = this.#previous.get(file);
    const rendered = await rendition.render();
    const { body } = rendered;
    const reads = this.#parts.reads(rendered.reads);
    if (body === null) return;
    const joined = typeof body === 'object' && 'joined' in body;
    const filled =
      typeof body === 'object' && 'pieces' in body ? fillHoles(body, rendition.holes ?? {})
      : joined ? { bytes: Buffer.from(renderJoined(body.joined), 'utf8'), holes: [] }
      : { bytes: bytesOf(body), holes: [] };
    const { object, segmented } = await this.#storeBody(filled.bytes, filled.holes.length === 0 && !rendered.components && !joined);
    // Kept for the next release, unless it carries the tip without holes (rendered at the tip when its pieces could not be told apart).
    const key = rendition.key(reads);
    // A document composed for every release (it reads everything) that stored the same bytes as before: kept, as in put().
    if (key === null && kept !== undefined && kept.key === undefined && kept.object === object && sameHoles(kept.holes, filled.holes)) {
      this.#set(file, kept);
      this.counts.kept++;
      return;
    }
    this.counts.rendered++;
    const atTip = 'holes' in rendition && !(typeof body === 'object' && 'pieces' in body);
    const keep = key !== null && !atTip;
    // A length is the body's as served, when the tip cannot change it: a document with holes is as long at every tip (the tip's values are
    // as long as the stand-in's it is stored with); one with component markers has none, nor one that joins documents with holes (src/store/manifest.ts carriesTip).
    const placement =
      filled.holes.length > 0 ? { holes: this.#parts.holes(filled.holes), length: filled.bytes.length }
      : rendered.components ? {}
      : joined ? (body.joined.some((segment) => typeof segment !== 'string' && segment[1].length > 0) ? {} : { length: body.length })
      : { length: filled.bytes.length };
    const entry = { object, ...placement, ...(rendered.components && { components: true as const }), ...((joined || segmented) && { joined: true as const }), ...(keep && { key }), ...(keep && reads && { reads }) };
    this.inputs.rendered(keep ? reads : undefined, kept?.key !== undefined ? kept.reads : undefined);
    this.#set(file, entry);
    // Checked on the bytes it serves: a segmented body's are those it was cut from.
    this.problems.push(...(await this.#checks.problems(file, segmented ? { object, ...placement } : entry, filled.bytes)));
  }
}

/** The advisories' reach a release kept (build/writers.ts KeptReach); null when it cannot be read (it is composed again). */
async function readReach(objects: ObjectBackend, key: string, object: string): Promise<KeptReach | null> {
  try {
    return { key, reached: sharedReach(JSON.parse((await readStoredObject(objects, object)).toString('utf8')) as [string, RollupReach][]) };
  } catch {
    return null;
  }
}

/**
 * A release as the build that publishes it holds it at the end: what the next release starts from.
 * A builder that stays up (build/build.ts Builder) keeps it, so that its next release does not read
 * the manifest and the input table back from the packs (2 s at 20,000 packages).
 */
export interface HeldRelease {
  readonly id: string;
  /** Its manifest, every entry, its reads and holes shared through `parts`. */
  readonly manifest: ChunkedCollection<HeldEntry>;
  readonly inputs: StoredInputs;
  readonly parts: SharedParts;
  /** The advisories' reach its documents were composed with (the one `inputs.reach` names). */
  readonly reach: KeptReach | undefined;
  /** Its names (names.json), which the next release's check compares its own with. */
  readonly names: ReadonlyMap<string, string>;
}

/** The current release: its manifest (its reads and holes shared), its tip's state and its input table (none when there is no release of this layout); `held` when it is the one held. */
async function currentRelease(out: string, held: HeldRelease | null): Promise<{ manifest: ChunkedCollection<HeldEntry>; parts: SharedParts; tip: StateRoot | null; inputs: StoredInputs | null; reach?: KeptReach; held?: HeldRelease }> {
  const id = await currentReleaseId(out);
  const none = { manifest: ChunkedCollection.stored(renderHeldChunk, []), parts: new SharedParts(), tip: null, inputs: null };
  if (!id) return none;
  const dir = paths.release(out, id);
  const info = await readJson<ReleaseInfo>(paths.releaseInfo(dir)).catch(() => null);
  if (info?.layout !== LAYOUT_VERSION) return none;
  const tipRead = info.tip && readStateRoot(out, info.tip.sha);
  if (held?.id === id) return { manifest: held.manifest, parts: held.parts, tip: await tipRead, inputs: held.inputs, reach: held.reach, held };
  const objects = openObjects(out);
  const parts = new SharedParts();
  // Read side by side: the tip's state, the manifest and the input table.
  const [tip, chunks, inputs] = await Promise.all([tipRead, readManifest(objects, await readJson<ChunkRef[]>(paths.manifest(dir)), (entry) => parts.entry(entry)), readInputs(objects, paths.inputs(dir), parts.name)]);
  const manifest = ChunkedCollection.stored(renderHeldChunk, chunks.map(({ ref, entries }) => ({ object: ref.object, entries })));
  return { manifest, parts, tip, inputs };
}

/**
 * Publishes the release of `content`: stores its documents, writes the release under a staging
 * name, validates it, and switches `current` to it (`onLive` is told then). Resolves with its id
 * and what it cost.
 */
export async function publishRelease(
  out: string,
  store: ObjectStore,
  composed: ReleaseContent,
  { onLive = () => {}, held = null, hold = false }: {
    /** Told when `current` is switched to the release. */
    onLive?: (id: string) => void;
    /** The current release as the build before this one held it (when it still is the current one, it is not read back). */
    held?: HeldRelease | null;
    /** Whether to give back the release as held (a build that stays up); else its manifest is let go as soon as it is written. */
    hold?: boolean;
  } = {},
): Promise<Published> {
  const rows = SERVED.filter((row) => row.publicFile !== undefined);
  const id = await nextReleaseId(out, composed.tip.sha);
  const staging = join(paths.releases(out), `.staging-${id}`);
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  const current = await currentRelease(out, held);
  const version = await codeVersion();
  const epoch = inputEpoch(version, composed.siteUrl);
  const keptReach = current.inputs?.epoch === epoch ? current.inputs.reach : undefined;
  const reachBefore = !keptReach ? null : current.reach?.key === keptReach.key ? current.reach : await readReach(openObjects(out), keptReach.key, keptReach.object);
  const content: ReleaseContent = { ...composed, reachBefore };
  const inputs = new InputTable(epoch, (input) => inputHash(content, input), current.inputs, current.parts.names);
  const stage = new Stage(store, current.manifest, current.parts, new DocumentChecks(content.tip, content.chain.length, { records: (key) => recordOf(content, key), object: (hash) => store.get(hash) }), inputs, current.held !== undefined);
  const objectsBefore = { files: store.written, bytes: store.bytesWritten };

  // A row's files, once placed, for the writers that name them (llms-full joins the mirrors).
  const done = new Map(rows.map((row) => [row.id, Promise.withResolvers<void>()]));
  // A row that fails fails the build below; a reader waiting on it fails with it, nobody else.
  for (const { promise } of done.values()) promise.catch(() => {});
  const context: WriterContext = {
    content,
    codeVersion: version,
    placedFiles: async (rowId) => {
      const row = rows.find((candidate) => candidate.id === rowId)!;
      await done.get(rowId)!.promise;
      return (params) => {
        const file = fillTemplate(row.publicFile!, params);
        const entry = stage.entry(file);
        if (!entry) throw new Error(`${file} was not placed by its writer`);
        if (entry.length === undefined) throw new Error(`${file} has no length: its body changes with the tip`);
        return { object: entry.object, length: entry.length, holes: entry.holes ?? [] };
      };
    },
  };
  // The rows' writers run side by side: the pages are laid out in worker threads while this one
  // composes the SBOMs and documents.
  await Promise.all(
    rows.map(async (row) => {
      const writer = WRITERS[row.id];
      try {
        if (!writer) throw new Error(`the registry publishes ${row.id} as ${row.publicFile} but the build has no writer for it`);
        const writes: Promise<void>[] = [];
        /** Keeps or stores one file: the writes in flight to wait for once there are 64 of them, else null. */
        const place = ({ params, query, body }: PublicBody): Promise<void> | null => {
          const file = fillTemplate(publicFileFor(row, query ?? {}), params);
          if (isRendition(body) ? stage.keeps(file, body) : stage.keepsPut(file, body)) return null;
          const write = isRendition(body) ? stage.render(file, body) : stage.put(file, body);
          // Awaited in batches while the writer composes the next bodies: a write that fails meanwhile
          // (a full disk) fails the build through Promise.all, not the process as an unhandled rejection.
          write.catch(() => {});
          writes.push(write);
          return writes.length >= 64 ? Promise.all(writes.splice(0)).then(() => {}) : null;
        };
        const bodies = writer(context);
        // A writer that yields without waiting is walked without a promise per file (most are; a warm release keeps nearly all their files).
        if (Symbol.iterator in bodies) {
          for (const body of bodies) {
            const batch = place(body);
            if (batch) await batch;
          }
        } else {
          for await (const body of bodies) {
            const batch = place(body);
            if (batch) await batch;
          }
        }
        await Promise.all(writes);
        done.get(row.id)!.resolve();
      } catch (error) {
        done.get(row.id)!.reject(error);
        throw error;
      }
    }),
  );
  // The manifest, in chunks: a release that changed a few documents writes the few chunks that name them.
  const manifest = await stage.flush();
  const reach = releasedReach(content);
  const reachFile = reach && (reach === content.reachBefore ? keptReach! : { key: reach.key, object: await store.put(serialize([...reach.reached])) });
  const inputsFile: InputsFile = { ...(await inputs.flush(store)), ...(reachFile && { reach: reachFile }) };
  await store.settled();
  stage.counts.filesWritten += store.written - objectsBefore.files;
  stage.counts.bytesWritten += store.bytesWritten - objectsBefore.bytes;

  const info: ReleaseInfo = { layout: LAYOUT_VERSION, id, tip: content.tip, commitCount: content.chain.length, siteUrl: content.siteUrl, publicSurfaces: [...PUBLIC_SURFACE_IDS] };
  await stage.write(paths.releaseInfo(staging), serialize(info));
  await stage.write(paths.chain(staging), serialize(content.chain));
  await stage.write(paths.names(staging), serialize(Object.fromEntries([...content.names].sort(([a], [b]) => (a < b ? -1 : 1)))));
  await stage.write(paths.diagnostics(staging), serialize(content.diagnostics));
  await stage.write(paths.manifest(staging), serialize(manifest));
  await stage.write(paths.inputs(staging), serialize(inputsFile));

  // The release this one replaces was checked by this very code, when this builder held it: what changed since is checked.
  const changes = current.held && { files: stage.changedFiles!, dropped: stage.droppedFiles, previousNames: current.held.names };
  await validateRelease(out, staging, { manifest: stage.manifest.items, documentProblems: stage.problems, writtenStates: content.writtenStates, checkedTip: current.tip, ...(changes && { changes }) });
  const final = paths.release(out, id);
  await rename(staging, final);
  const link = `${paths.current(out)}.next-${process.pid}`;
  await rm(link, { force: true });
  await symlink(join('releases', id), link);
  await rename(link, paths.current(out));
  onLive(id);
  await pruneReleases(out, id);
  const holding = hold ? { id, manifest: stage.manifest, inputs: { epoch, table: inputs.table, reach: inputsFile.reach }, parts: current.parts, reach, names: content.names } : null;
  return { id, counts: stage.counts, held: holding };
}

/** Removes staging leftovers of killed builds and all but the newest releases. */
export async function pruneReleases(out: string, keep: string): Promise<void> {
  const entries = (await readdir(paths.releases(out)).catch(() => [] as string[])).sort();
  const releases = entries.filter((name) => !name.startsWith('.'));
  const old = releases.filter((name) => name !== keep).slice(0, Math.max(0, releases.length - 1 - KEEP_RELEASES));
  const staging = entries.filter((name) => name.startsWith('.staging-') && name !== `.staging-${keep}`);
  await Promise.all([...old, ...staging].map((name) => rm(join(paths.releases(out), name), { recursive: true, force: true })));
}
