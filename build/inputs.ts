/**
 * A release's input table: every input a traced document of the release read (`record:<key>`,
 * `severity:<key>`, ...; build/writers.ts inputHash) with the hash of its value at the release and the
 * number of the release's documents that read it. It tells the next release which inputs changed
 * since, so a kept document is checked with one byte per input it read instead of hashing its
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
 * A release's input table as the next release starts from it; `changedPackages` when a builder
 * that stays up holds it (none when it is read back from the packs).
 */
export type StoredInputs = {
  epoch: string;
  table: ChunkedCollection<Row>;
  reach: InputsFile['reach'];
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
 * Every input name a release's documents read, each held once and numbered: a 100,000-package
 * release's documents read 27.7 million inputs of 540,000 names.
 */
export class InputNames {
  readonly #ids = new Map<string, number>();
  readonly #names: string[] = [];

  /** `input`'s number, given it the first time it is seen. */
  id(input: string): number {
    let id = this.#ids.get(input);
    if (id === undefined) {
      id = this.#names.push(input) - 1;
      this.#ids.set(input, id);
    }
    return id;
  }

  /** The one string held for `input`'s name (the manifest's reads and the input table's rows share it). */
  readonly name = (input: string): string => this.#names[this.id(input)];

  nameOf(id: number): string {
    return this.#names[id];
  }

  /** How many names are numbered: every number is below it. */
  get size(): number {
    return this.#names.length;
  }

  /** A document's reads, as a release holds them. */
  list(reads: Iterable<string>): InputList {
    const units: number[] = [];
    for (const input of reads) {
      const id = this.id(input);
      units.push(id >>> 16, id & 0xffff);
    }
    let packed = '';
    for (let at = 0; at < units.length; at += PACKED_UNITS_AT_ONCE) packed += String.fromCharCode(...units.slice(at, at + PACKED_UNITS_AT_ONCE));
    return new InputList(this, packed);
  }
}

/** Code units made into a string per call (a call's arguments are bounded). */
const PACKED_UNITS_AT_ONCE = 8192;

/**
 * The inputs a document read, as a release holds them (its manifest entry's `reads`): their numbers
 * (InputNames), two UTF-16 code units each, in one string. As an array of names, the 27.7 million
 * reads of a 100,000-package release took 230 MB of pointers the collector traced at every full
 * collection; packed, 4 bytes each that it does not look into. Serialized (JSON.stringify, a
 * manifest chunk) as the array of names the manifest stores.
 */
export class InputList implements Iterable<string> {
  readonly #names: InputNames;
  readonly #packed: string;

  constructor(names: InputNames, packed: string) {
    this.#names = names;
    this.#packed = packed;
  }

  get length(): number {
    return this.#packed.length / 2;
  }

  /** The number of the `index`th input. */
  id(index: number): number {
    return ((this.#packed.charCodeAt(2 * index) << 16) | this.#packed.charCodeAt(2 * index + 1)) >>> 0;
  }

  *[Symbol.iterator](): Iterator<string> {
    for (let index = 0; index < this.length; index++) yield this.#names.nameOf(this.id(index));
  }

  toJSON(): string[] {
    return [...this];
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
  /** The names of this release's inputs, numbered: the table's rows and the documents' reads hold them. */
  readonly #names: InputNames;
  /** This release's table: the previous one's (of the same epoch), brought up to date. */
  readonly #table: ChunkedCollection<Row>;
  /**
   * Whether the previous release's table is of this epoch. Only then does it vouch for a kept
   * document, and count the previous release's documents (else the table starts empty, and every
   * document kept or rendered is counted as new).
   */
  readonly #continued: boolean;
  /**
   * Which inputs the table vouches for, by number, once it is compared: 1 for an input in the
   * table whose hash is the one it had at the previous release. An input whose hash changed, one
   * that left the table, and one numbered since (beyond the end) are not. A kept document is
   * vouched for by a look at one byte per input it read (27.7 million at 100,000 packages).
   */
  #vouched: Uint8Array | null = null;
  /** The packages whose own items were set since the previous release (StoredInputs); null: every input is hashed. */
  readonly #changedPackages: ReadonlySet<string> | null;

  /**
   * `hashOf`: an input's hash at this release. `previous`: the previous release's table (readInputs,
   * or as a builder held it), its names numbered by `names`.
   */
  constructor(epoch: string, hashOf: (input: string) => string, previous: StoredInputs | null, names: InputNames) {
    this.#epoch = epoch;
    this.#hashOf = hashOf;
    this.#names = names;
    this.#continued = previous?.epoch === epoch;
    this.#table = this.#continued ? previous!.table : ChunkedCollection.stored(renderRows, []);
    this.#changedPackages = this.#continued ? (previous!.changedPackages ?? null) : null;
  }

  /** The table of this release: once flushed, what the next release starts from. */
  get table(): ChunkedCollection<Row> {
    return this.#table;
  }

  /** Whether a document of the previous release, which read `inputs`, reads the same values now (false: unknown, check its key). */
  unchanged(inputs: InputList | undefined): boolean {
    if (!inputs || !this.#continued) return false;
    const vouched = this.#compare();
    for (let index = 0; index < inputs.length; index++) if (vouched[inputs.id(index)] !== 1) return false;
    return true;
  }

  /** A document of the previous release kept as its key is the same. */
  kept(inputs: Iterable<string> | undefined): void {
    if (!this.#continued) this.#count(inputs, 1);
  }

  /** A document rendered: it read `inputs` now (undefined: it is not kept), and `before` in the previous release. */
  rendered(inputs: Iterable<string> | undefined, before: Iterable<string> | undefined): void {
    if (this.#continued) this.#count(before, -1);
    this.#count(inputs, 1);
  }

  /** A document of the previous release that this one has not. */
  gone(inputs: Iterable<string> | undefined): void {
    if (this.#continued) this.#count(inputs, -1);
  }

  /** Stores the chunks that changed; the content of `inputs.json`. */
  async flush(store: ObjectStore): Promise<InputsFile> {
    this.#compare();
    return { epoch: this.#epoch, chunks: await this.#table.flush(store) };
  }

  #count(inputs: Iterable<string> | undefined, change: 1 | -1): void {
    for (const input of inputs ?? []) {
      const held = this.#table.items.get(input);
      const readers = (held === undefined ? 0 : readersOf(held)) + change;
      // An input that leaves the table vouches for no document from then on (one that comes back is a new one).
      if (readers <= 0 && this.#vouched) this.#vouched[this.#names.id(input)] = 0;
      this.#table.set(input, readers <= 0 ? null : row(held === undefined ? this.#hashOf(input) : hashOf(held), readers));
    }
  }

  /**
   * Hashes each input of the table that can differ at this release, once: the changed ones get
   * their new hash. Returns which inputs the table vouches for.
   */
  #compare(): Uint8Array {
    if (!this.#vouched) {
      // Every name of the table numbered first, so that each has a place.
      for (const input of this.#table.items.keys()) this.#names.id(input);
      const vouched = new Uint8Array(this.#names.size);
      for (const [input, held] of this.#table.items) {
        const id = this.#names.id(input);
        if (this.#changedPackages && !mayDiffer(input, this.#changedPackages)) {
          vouched[id] = 1;
          continue;
        }
        const now = this.#hashOf(input);
        if (now === hashOf(held)) vouched[id] = 1;
        else this.#table.set(input, row(now, readersOf(held)));
      }
      this.#vouched = vouched;
    }
    return this.#vouched;
  }
}
