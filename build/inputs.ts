/**
 * A release's input table: every input a traced document of the release read (`record:<key>`,
 * `card:<key>`, ...; build/writers.ts inputHash) with the hash of its value at the release. It
 * tells the next release which inputs changed since, so a kept document is checked with a set
 * lookup per input it read instead of hashing its key again (a 20,000-package catalog's documents
 * read 3.6 million inputs, and a commit changes a few).
 *
 * Why that is the key check's answer: a document of release N, rendered or kept, read inputs whose
 * values at N are those it was rendered from, and the table of N holds every one of them with its
 * hash at N. So when none of them differs at N + 1, neither does its key, and it is kept; when one
 * does, or the code or the site URL changed (the table's epoch), the key decides as before.
 *
 * The table of a release holds exactly the inputs its kept documents read, hashed at its tip: a
 * document is kept only while its inputs are the same, so it read what a build from scratch would
 * read, and the table is the one a build from scratch stores (tests/build/determinism.test.ts).
 *
 * Stored like a manifest: `releases/<id>/inputs.json` is `{ epoch, chunks }`, each chunk a JSON
 * object `{ [input]: hash }` in the packs, so a commit writes the chunks of the inputs it changed.
 */
import { contentHash } from '../src/store/hash.ts';
import { readJson, type ChunkRef } from '../src/store/layout.ts';
import { readStoredObject, type ObjectBackend } from '../src/store/objects.ts';
import { Semaphore } from '../src/concurrency.ts';
import { ChunkedCollection } from './chunks.ts';
import type { ObjectStore } from './objects.ts';

/** `releases/<id>/inputs.json`. */
export interface InputsFile {
  /** The code and site URL the hashes' documents were rendered with (a document's key covers both). */
  readonly epoch: string;
  readonly chunks: ChunkRef[];
}

const renderChunk = (entries: [string, string][]): string => JSON.stringify(Object.fromEntries(entries));

/** What a document's key covers besides its inputs' values (and its kind, which its path fixes). */
export const inputEpoch = (codeVersion: string, siteUrl: string): string => contentHash(`${codeVersion}\n${siteUrl}`);

const READS_AT_A_TIME = 16;

/** The table of a release, chunk by chunk; null when it has none (a release of an earlier pkgcat) or it cannot be read. */
export async function readInputs(objects: ObjectBackend, file: string): Promise<{ epoch: string; chunks: { object: string; entries: [string, string][] }[] } | null> {
  const stored = await readJson<InputsFile>(file).catch(() => null);
  if (!stored) return null;
  const reads = new Semaphore(READS_AT_A_TIME);
  const chunks = await Promise.all(
    stored.chunks.map((ref) =>
      reads.run(async () => ({ object: ref.object, entries: Object.entries(JSON.parse((await readStoredObject(objects, ref.object)).toString('utf8')) as Record<string, string>) })),
    ),
  );
  return { epoch: stored.epoch, chunks };
}

export class InputTable {
  readonly #epoch: string;
  readonly #hashOf: (input: string) => string;
  /** This release's table: the previous one's, its hashes brought up to date, and the inputs of the documents rendered now. */
  readonly #table: ChunkedCollection<string>;
  /** Whether the previous table is of this epoch: only then does it vouch for a kept document. */
  readonly #sameEpoch: boolean;
  /** The inputs whose hash changed since the previous release; made on first use. */
  #changed: Set<string> | null = null;
  /** The inputs the release's kept documents read: the table keeps these and no others. */
  readonly #read = new Set<string>();

  /** `hashOf`: an input's hash at this release. `previous`: the previous release's table (readInputs). */
  constructor(epoch: string, hashOf: (input: string) => string, previous: Awaited<ReturnType<typeof readInputs>>) {
    this.#epoch = epoch;
    this.#hashOf = hashOf;
    this.#sameEpoch = previous?.epoch === epoch;
    this.#table = ChunkedCollection.stored(renderChunk, this.#sameEpoch ? previous!.chunks : []);
  }

  /**
   * Whether a document of the previous release that read `inputs` reads the same values now (false:
   * unknown, check its key). When it does, it is kept, and its inputs stay in the table.
   */
  unchanged(inputs: readonly string[] | undefined): boolean {
    if (!inputs || !this.#sameEpoch) return false;
    const changed = this.#changedInputs();
    for (const input of inputs) if (changed.has(input)) return false;
    this.note(inputs);
    return true;
  }

  /** Adds the inputs of a document this release keeps (rendered now, or kept as its key is the same). */
  note(inputs: readonly string[]): void {
    for (const input of inputs) {
      if (this.#read.has(input)) continue;
      this.#read.add(input);
      if (!this.#table.items.has(input)) this.#table.set(input, this.#hashOf(input));
    }
  }

  /** Stores the chunks that changed; the content of `inputs.json`. */
  async flush(store: ObjectStore): Promise<InputsFile> {
    this.#changedInputs();
    for (const input of this.#table.items.keys()) if (!this.#read.has(input)) this.#table.set(input, null);
    return { epoch: this.#epoch, chunks: await this.#table.flush(store) };
  }

  #changedInputs(): Set<string> {
    if (!this.#changed) {
      this.#changed = new Set();
      for (const [input, hash] of this.#table.items) {
        const now = this.#hashOf(input);
        if (now !== hash) {
          this.#changed.add(input);
          this.#table.set(input, now);
        }
      }
    }
    return this.#changed;
  }
}
