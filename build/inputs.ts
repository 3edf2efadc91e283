/**
 * A release's input table: every input a traced document of the release read (`record:<key>`,
 * `severity:<key>`, ...; build/writers.ts inputHash) with the hash of its value at the release and the
 * number of the release's documents that read it. It tells the next release which inputs changed
 * since, so a kept document is checked with a set lookup per input it read instead of hashing its
 * key again (a 20,000-package catalog's documents read 2.5 million inputs, and a commit changes a few).
 *
 * Why that is the key check's answer: a document of release N, rendered or kept, read inputs whose
 * values at N are those it was rendered from, and the table of N holds every one of them with its
 * hash at N. So when none of them differs at N + 1, neither does its key, and it is kept; when one
 * does, or the code or the site URL changed (the table's epoch), the key decides as before.
 *
 * The counts keep the table to exactly the inputs of the documents a release keeps, at the cost of
 * what changed: a document rendered again gives back its old inputs and takes its new ones, one
 * that is gone gives back its own, and an input nobody reads leaves. A document is kept only while
 * its inputs are the same, so it read what a build from scratch would read: the table is the one a
 * build from scratch stores (tests/build/determinism.test.ts).
 *
 * Stored like a manifest: `releases/<id>/inputs.json` is `{ epoch, chunks }`, each chunk a JSON
 * object `{ [input]: [hash, readers] }` in the packs, so a commit writes the chunks of the inputs it
 * changed.
 */
import { contentHash } from '../src/store/hash.ts';
import { readJson, type ChunkRef } from '../src/store/layout.ts';
import { readKeyedChunks, renderKeyedChunk } from '../src/store/manifest.ts';
import type { ObjectBackend } from '../src/store/objects.ts';
import { ChunkedCollection } from './chunks.ts';
import type { ObjectStore } from './objects.ts';

/** `releases/<id>/inputs.json`. */
export interface InputsFile {
  /** The code and site URL the hashes' documents were rendered with (a document's key covers both). */
  readonly epoch: string;
  readonly chunks: ChunkRef[];
  /** The advisories' reach the release's documents were composed with (build/writers.ts KeptReach): its key, and the object holding it. */
  readonly reach?: { readonly key: string; readonly object: string };
}

/** An input's hash at the release, and how many of the release's documents read it, as stored. */
export type StoredRow = [hash: string, readers: number];

/**
 * A row as the table holds it: `<hash> <readers>`, one string where a pair would be an array and
 * a string (a 20,000-package release's table has 110,000 rows, 100,000 packages' half a million).
 * Joined, not concatenated: a concatenation is a string that holds its parts (the table of 20,000
 * packages took 15.5 MB as pairs or concatenations, 5.4 MB joined, its names shared with the manifest).
 */
type Row = string;

const row = (hash: string, readers: number): Row => [hash, readers].join(' ');
const hashOf = (held: Row): string => held.slice(0, held.indexOf(' '));
const readersOf = (held: Row): number => Number(held.slice(held.indexOf(' ') + 1));
/** A stored table's chunks, each the object that holds it and its rows (`[hash, readers]` by input), as a release starts from them. */
export const storedTable = (chunks: { object: string; entries: [string, StoredRow][] }[]): ChunkedCollection<Row> =>
  ChunkedCollection.stored(renderRows, chunks.map(({ object, entries }) => ({ object, entries: entries.map(([input, [hash, readers]]): [string, Row] => [input, row(hash, readers)]) })));

const renderRows = (entries: [string, Row][]): string => renderKeyedChunk(entries.map(([input, held]): [string, StoredRow] => [input, [hashOf(held), readersOf(held)]]));

/** What a document's key covers besides its inputs' values (and its kind, which its path fixes). */
export const inputEpoch = (codeVersion: string, siteUrl: string): string => contentHash(`${codeVersion}\n${siteUrl}`);

/**
 * A release's input table as the next release starts from it; `readers` and `changedPackages` when
 * a builder that stays up holds it (none when it is read back from the packs).
 */
export type StoredInputs = {
  epoch: string;
  table: ChunkedCollection<Row>;
  reach: InputsFile['reach'];
  readers?: ReaderIndex;
  /**
   * The packages whose own items (record, card, rollup, version history) were set since the
   * release: only their OWN_ITEM_KINDS inputs can differ now. Absent: any input can.
   */
  changedPackages?: ReadonlySet<string>;
};

/**
 * The kinds of input whose value is one package's own items and nothing else (build/writers.ts
 * inputHash): its record (`record`, and `name`, the spelling the record gives), its rollup
 * (`transitive`), its version history (`history`) and its card (`severity`, the highest severity
 * the card shows). A builder that stays up knows which packages' items its commits set, so it
 * hashes these inputs of those packages alone (half a million at 100,000 packages, where a commit
 * sets a few). Every other kind (an advisory's reach, an SBOM's closure, a commit) is hashed again
 * each release.
 */
const OWN_ITEM_KINDS = new Set(['record', 'name', 'transitive', 'history', 'severity']);

/** Whether `input` can have another value now, when only the items of `changedPackages` were set. */
function mayDiffer(input: string, changedPackages: ReadonlySet<string>): boolean {
  const colon = input.indexOf(':');
  return !OWN_ITEM_KINDS.has(input.slice(0, colon)) || changedPackages.has(input.slice(colon + 1));
}

/**
 * Which documents of a release read each input, for a builder that stays up (build/build.ts
 * Builder): the next release looks only at the documents that read an input that changed, instead
 * of at every input of every document it keeps (2.5 million at 20,000 packages, where a commit
 * changes a few). It may name a document that no longer reads an input (a document rendered again
 * is added with its new inputs, and one that is gone stays), never misses one that does: a name
 * too many only costs that document's inputs being looked at. It is made again from the manifest
 * once it has grown to twice what it was made with.
 */
export class ReaderIndex {
  readonly #readers = new Map<string, string[]>();
  #names = 0;
  readonly #made: number;

  /** The index of a release's manifest entries (those that read no input are in none of it). */
  constructor(entries: Iterable<[string, { readonly reads?: readonly string[] }]>) {
    for (const [file, { reads }] of entries) this.add(file, reads);
    this.#made = this.#names;
  }

  /** `file` reads `inputs` now. */
  add(file: string, inputs: readonly string[] | undefined): void {
    for (const input of inputs ?? []) {
      const files = this.#readers.get(input);
      if (files) files.push(file);
      else this.#readers.set(input, [file]);
    }
    this.#names += inputs?.length ?? 0;
  }

  /** Every document that may read one of `inputs`. */
  readersOf(inputs: Iterable<string>): Set<string> {
    const files = new Set<string>();
    for (const input of inputs) for (const file of this.#readers.get(input) ?? []) files.add(file);
    return files;
  }

  /** Whether the names of documents rendered again since it was made are as many as it was made with. */
  get overgrown(): boolean {
    return this.#names > 2 * this.#made;
  }
}

/**
 * The table of a release, chunk by chunk, each input's name passed through `name` (the manifest's
 * reads hold the same names); null when it has none (a release of an earlier pkgcat) or
 * it cannot be read: the table only saves time, and without it every key is checked.
 */
export async function readInputs(objects: ObjectBackend, file: string, name: (input: string) => string): Promise<StoredInputs | null> {
  try {
    const stored = await readJson<InputsFile>(file);
    const chunks = await readKeyedChunks<StoredRow>(objects, stored.chunks, undefined, name);
    const table = storedTable(chunks.map(({ ref, entries }) => ({ object: ref.object, entries })));
    return { epoch: stored.epoch, table, reach: stored.reach };
  } catch {
    return null;
  }
}

export class InputTable {
  readonly #epoch: string;
  readonly #hashOf: (input: string) => string;
  /** This release's table: the previous one's (of the same epoch), brought up to date. */
  readonly #table: ChunkedCollection<Row>;
  /**
   * Whether the previous release's table is of this epoch. Only then does it vouch for a kept
   * document, and count the previous release's documents (else the table starts empty, and every
   * document kept or rendered is counted as new).
   */
  readonly #continued: boolean;
  /**
   * The inputs the table does not vouch for, once it is compared: those whose hash changed since
   * the previous release, and those added since the comparison. A kept document is vouched for by
   * one lookup per input it read.
   */
  #unvouched: Set<string> | null = null;
  /** Which documents read each input (held by a builder that stays up; else none, and every kept document's inputs are looked at). */
  readonly #readers: ReaderIndex | null;
  /** The packages whose own items were set since the previous release (StoredInputs); null: every input is hashed. */
  readonly #changedPackages: ReadonlySet<string> | null;
  /** The documents that may read an input whose hash changed, once the table is compared (with `#readers` only). */
  #maybeChanged: Set<string> | null = null;

  /** `hashOf`: an input's hash at this release. `previous`: the previous release's table (readInputs, or as a builder held it). */
  constructor(epoch: string, hashOf: (input: string) => string, previous: StoredInputs | null) {
    this.#epoch = epoch;
    this.#hashOf = hashOf;
    this.#continued = previous?.epoch === epoch;
    this.#table = this.#continued ? previous!.table : ChunkedCollection.stored(renderRows, []);
    this.#readers = this.#continued ? (previous!.readers ?? null) : null;
    this.#changedPackages = this.#continued ? (previous!.changedPackages ?? null) : null;
  }

  /** The table of this release: once flushed, what the next release starts from. */
  get table(): ChunkedCollection<Row> {
    return this.#table;
  }

  /** Whether the previous release's document `file`, which read `inputs`, reads the same values now (false: unknown, check its key). */
  unchanged(file: string, inputs: readonly string[] | undefined): boolean {
    if (!inputs || !this.#continued) return false;
    const unvouched = this.#compare();
    // No input it reads changed: the index names every reader of a changed input.
    if (this.#maybeChanged && !this.#maybeChanged.has(file)) return true;
    // An input the table lacks is not vouched for: the counts keep every input of a counted
    // document, and this keeps a wrong count from ever keeping a document whose input changed.
    for (const input of inputs) if (unvouched.has(input) || !this.#table.items.has(input)) return false;
    return true;
  }

  /** A document of the previous release kept as its key is the same. */
  kept(inputs: readonly string[] | undefined): void {
    if (!this.#continued) this.#count(inputs, 1);
  }

  /** Document `file` rendered: it read `inputs` now (undefined: it is not kept), and `before` in the previous release. */
  rendered(file: string, inputs: readonly string[] | undefined, before: readonly string[] | undefined): void {
    if (this.#continued) this.#count(before, -1);
    this.#count(inputs, 1);
    this.#readers?.add(file, inputs);
  }

  /** The index of which documents read each input, for the next release of a builder that stays up (`manifest`: this release's). */
  readersFor(manifest: Iterable<[string, { readonly reads?: readonly string[] }]>): ReaderIndex {
    return this.#readers && !this.#readers.overgrown ? this.#readers : new ReaderIndex(manifest);
  }

  /** A document of the previous release that this one has not. */
  gone(inputs: readonly string[] | undefined): void {
    if (this.#continued) this.#count(inputs, -1);
  }

  /** Stores the chunks that changed; the content of `inputs.json`. */
  async flush(store: ObjectStore): Promise<InputsFile> {
    this.#compare();
    return { epoch: this.#epoch, chunks: await this.#table.flush(store) };
  }

  #count(inputs: readonly string[] | undefined, change: 1 | -1): void {
    for (const input of inputs ?? []) {
      const held = this.#table.items.get(input);
      // An input added once the table is compared vouches for no document of the previous release.
      if (held === undefined) this.#unvouched?.add(input);
      const readers = (held === undefined ? 0 : readersOf(held)) + change;
      this.#table.set(input, readers <= 0 ? null : row(held === undefined ? this.#hashOf(input) : hashOf(held), readers));
    }
  }

  /**
   * Hashes each input of the table that can differ at this release, once: the changed ones get
   * their new hash. Returns the inputs not vouched for.
   */
  #compare(): Set<string> {
    if (!this.#unvouched) {
      const changed: string[] = [];
      for (const [input, held] of this.#table.items) {
        if (this.#changedPackages && !mayDiffer(input, this.#changedPackages)) continue;
        const now = this.#hashOf(input);
        if (now === hashOf(held)) continue;
        changed.push(input);
        this.#table.set(input, row(now, readersOf(held)));
      }
      this.#unvouched = new Set(changed);
      this.#maybeChanged = this.#readers?.readersOf(changed) ?? null;
    }
    return this.#unvouched;
  }
}
