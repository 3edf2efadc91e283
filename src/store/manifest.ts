/**
 * A release's manifest: every anonymous file of the release (the registry's public files, by path)
 * and the object that holds its body. A release is this manifest, not a tree of files, so a commit
 * writes the documents it changed and the manifest chunks that name them, nothing else.
 *
 * The manifest is a keyed collection cut into content-addressed chunks like a state's records
 * (build/chunks.ts): `manifest.json` of a release lists the chunks (first path, object), and each
 * chunk is a JSON object `{ [path]: ManifestEntry }`. An entry never names the tip: a document that
 * carries it is stored with the values of the tip it was rendered at, and `holes` says where they
 * sit; a reader puts the current tip's values there (src/compose/tip-values.ts). So an unchanged
 * document keeps its entry, and its chunk, from one release to the next.
 */
import { componentText } from '../compose/sbom/cyclonedx.ts';
import { componentLabel, fillComponentMarkers, markedComponents } from '../compose/sbom/markers.ts';
import { tipValues } from '../compose/tip-values.ts';
import type { PackageRecord } from '../schemas/wire.ts';
import type { CommitInfo } from '../compose/types.ts';
import { publicFileOwner } from '../surfaces/registry.ts';
import { findChunk, recordsOfChunk, type ChunkRef, type StateRoot } from './layout.ts';
import { readStoredObject, type ObjectBackend } from './objects.ts';
import { Semaphore } from '../concurrency.ts';

/** Where a tip's value sits in a stored body: [byte offset, byte length, hole name] (tip-values.ts), in order. */
export type HoleSpan = [number, number, string];

export interface ManifestEntry {
  /** The object holding the body (with the values of the tip it was rendered at, when it has holes). */
  readonly object: string;
  readonly holes?: readonly HoleSpan[];
  /** Its components are markers for the tip's (a floating SBOM: src/compose/sbom/markers.ts). */
  readonly components?: true;
  /** Its object lists the segments it joins (JoinedSegment): a part of llms-full (its text and its mirrors), a large document (its content-defined segments). */
  readonly joined?: true;
  /**
   * The body's length in bytes as served, when the tip cannot change it (llms-full is planned from its
   * mirrors' lengths, without reading them): a body with holes is as long at every tip. None for a
   * body whose components are markers, nor for one that joins bodies with holes (carriesTip).
   */
  readonly length?: number;
  /**
   * What the document was rendered from: the digest of its inputs and of the code (build/publish.ts
   * renders it again only when that changes), and the inputs a traced document read. Absent: a
   * document rendered for every release.
   */
  readonly key?: string;
  /** As stored, an array of names; a build holds them numbered (build/inputs.ts InputList). */
  readonly reads?: Iterable<string>;
}

/** The entries of one manifest chunk, by path. */
export type ManifestChunk = Record<string, ManifestEntry>;

/**
 * The text of a chunk of keyed items, a JSON object `{ [key]: item }`: a manifest's (what the build
 * stores, and `parseManifestChunk` reads), and a release's input table's (build/inputs.ts).
 */
export const renderKeyedChunk = <T>(entries: [string, T][]): string => JSON.stringify(Object.fromEntries(entries));

export const renderManifestChunk: (entries: [string, ManifestEntry][]) => string = renderKeyedChunk;

export const parseManifestChunk = (bytes: Buffer): ManifestChunk => JSON.parse(bytes.toString('utf8')) as ManifestChunk;


/** `stored` with `values` in place of the values in its holes, and where they now sit. */
export function spliceHoles(stored: Buffer, spans: readonly HoleSpan[], values: Readonly<Record<string, string>>): { bytes: Buffer; holes: HoleSpan[] } {
  const parts: Buffer[] = [];
  const holes: HoleSpan[] = [];
  let from = 0;
  let at = 0;
  for (const [start, length, hole] of spans) {
    parts.push(stored.subarray(from, start));
    at += start - from;
    const value = values[hole];
    if (value === undefined) throw new Error(`a stored document has a hole "${hole}" the tip gives no value for`);
    const bytes = Buffer.from(value, 'utf8');
    holes.push([at, bytes.length, hole]);
    parts.push(bytes);
    at += bytes.length;
    from = start + length;
  }
  parts.push(stored.subarray(from));
  return { bytes: Buffer.concat(parts), holes };
}

/**
 * A segment of a joined document: its own text, or a stored object and its holes for the tip. A
 * part of llms-full is half a megabyte of mirrors; stored as the list of their objects, it is a few
 * kilobytes, and a commit that changes a few mirrors in every part (a popular package's dependents
 * show its version) writes a few kilobytes per part. A document of 256 KiB or more with nothing to
 * fill (the search page) is stored as its content-defined segments (build/segments.ts): a commit
 * that changes one row of it stores one segment.
 */
export type JoinedSegment = string | readonly [object: string, holes: readonly HoleSpan[]];

/** The stored object of a joined document. */
export const renderJoined = (segments: readonly JoinedSegment[]): string => JSON.stringify(segments);

/** The tip's values for the document at `file` (a package's document gets its name's serial number). */
export function tipValuesOf(tip: Pick<CommitInfo, 'sha' | 'pushedAt'>, file: string): Record<string, string> {
  return tipValues(tip, publicFileOwner(file)?.params.name);
}

/** The record of a package at the tip, by name key (null: none), for the components of a floating SBOM. */
export type TipRecords = (key: string) => Promise<PackageRecord | null> | PackageRecord | null;

/** What a document's body is made from besides its own object: the tip's records (a floating SBOM's components), other objects (a joined document's). */
export interface DocumentSources {
  readonly records: TipRecords;
  readonly object: (hash: string) => Promise<Buffer>;
}

/** The body of `file` at `tip`: the stored bytes, with the tip's values in their holes and the tip's components in their markers, or the documents it joins. */
export async function documentBytes(entry: ManifestEntry, stored: Buffer, tip: Pick<CommitInfo, 'sha' | 'pushedAt'>, file: string, sources: DocumentSources): Promise<Buffer> {
  if (entry.joined) {
    const values = tipValuesOf(tip, file);
    const segments = JSON.parse(stored.toString('utf8')) as JoinedSegment[];
    const parts = await Promise.all(
      segments.map(async (segment) => {
        if (typeof segment === 'string') return Buffer.from(segment, 'utf8');
        const [object, holes] = segment;
        const bytes = await sources.object(object);
        return holes.length > 0 ? spliceHoles(bytes, holes, values).bytes : bytes;
      }),
    );
    return Buffer.concat(parts);
  }
  const spliced = entry.holes?.length ? spliceHoles(stored, entry.holes, tipValuesOf(tip, file)).bytes : stored;
  if (!entry.components) return spliced;
  const texts = await Promise.all(
    markedComponents(spliced).map(async (component) => {
      const record = await sources.records(component.key);
      if (!record) throw new Error(`${file} lists the component ${component.key}, which the tip does not have`);
      return [componentLabel(component), componentText(record, component.scope)] as const;
    }),
  );
  return fillComponentMarkers(spliced, new Map(texts));
}

/**
 * What the documents of a release whose tip has the state `root` are made from: its records, read a
 * chunk at a time and kept for the caller's lifetime, and the objects (the static export, the release
 * check; the gateway keeps its own within its cache).
 */
export function documentSources(objects: ObjectBackend, root: Pick<StateRoot, 'records'>): DocumentSources {
  const chunks = new Map<string, Promise<Map<string, PackageRecord>>>();
  return {
    records: async (key) => {
      const chunk = findChunk(root.records, key);
      if (!chunk) return null;
      let records = chunks.get(chunk.object);
      if (!records) chunks.set(chunk.object, (records = readStoredObject(objects, chunk.object).then((bytes) => recordsOfChunk(bytes.toString('utf8')))));
      return (await records).get(key) ?? null;
    },
    object: (hash) => readStoredObject(objects, hash),
  };
}

/**
 * Whether a document's bytes change with the tip: its holes, its components' markers and the holes
 * of what it joins take the tip's (a joined document has a length when what it joins has no holes).
 */
export const carriesTip = (entry: ManifestEntry): boolean => Boolean(entry.holes?.length || entry.components || (entry.joined && entry.length === undefined));

/** Chunks read at a time: a manifest is hundreds of small objects, and each read waits on the disk. */
const READS_AT_A_TIME = 16;

/**
 * Every chunk of keyed items (renderKeyedChunk), in key order, each with its entries, each key and
 * item passed through `key` and `item` as its chunk is parsed (so what they drop, a parsed chunk's
 * copies of strings other chunks hold too, is never held for every chunk at once).
 */
export async function readKeyedChunks<T, Held = T>(
  objects: ObjectBackend,
  refs: readonly ChunkRef[],
  item: (parsed: T) => Held = (parsed) => parsed as unknown as Held,
  key: (parsed: string) => string = (parsed) => parsed,
): Promise<{ ref: ChunkRef; entries: [string, Held][] }[]> {
  const reads = new Semaphore(READS_AT_A_TIME);
  return Promise.all(
    refs.map((ref) =>
      reads.run(async () => {
        const parsed = JSON.parse((await readStoredObject(objects, ref.object)).toString('utf8')) as Record<string, T>;
        return { ref, entries: Object.entries(parsed).map(([name, value]): [string, Held] => [key(name), item(value)]) };
      }),
    ),
  );
}

/** Every chunk of a manifest, in path order, each with its entries (the next release's start, the static export, the release's checks). */
export const readManifest = <Held = ManifestEntry>(objects: ObjectBackend, refs: readonly ChunkRef[], entry?: (parsed: ManifestEntry) => Held) =>
  readKeyedChunks<ManifestEntry, Held>(objects, refs, entry);

/** Every entry of a manifest, in path order. */
export async function* manifestEntries(objects: ObjectBackend, refs: readonly ChunkRef[]): AsyncIterable<[string, ManifestEntry]> {
  for (const { entries } of await readManifest(objects, refs)) yield* entries;
}
