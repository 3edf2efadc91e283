/**
 * The build's memory between runs: checkpoints of the model and the composer's items at commits
 * along the chain (`<out>/build/checkpoints/<sha>.json`), so a build starts from the newest one
 * still on main instead of reading the history from its first commit.
 *
 * Which commits keep one (a few files, whatever the history's length):
 * - the tips of the latest builds (KEEP_RECENT): following main one commit at a time, each build
 *   starts where the last one ended;
 * - every SPACINGS[i] commits from the root, the newest KEEP_PER_SPACING of each spacing: after a
 *   force-push that rewrites or drops the last few commits, every tip checkpoint may be off the
 *   new chain, and the build reads at most a spacing's worth of commits again (16 for a rewrite of
 *   the last 48 or fewer, 256 for one of the last 768 or fewer). Depths count first-parent commits
 *   from the root, so a commit's depth never changes and the same commits are picked by every build.
 *
 * A checkpoint is JSON lines: a header, then one line per item (a manifest, a record, a transitive
 * rollup, ...), written and read a line at a time. As one JSON text it was 380 MB for 20,000
 * packages, held twice while saving, and past the longest string V8 holds at about 25,000. A
 * rollup is saved deflated, as the composer keeps it (base64); the header names the chunks the
 * composer's collections were stored in, so a resumed build writes only the chunks that change.
 *
 * The lines are stored in the object store, cut where their content says (build/segments.ts), and
 * the checkpoint's file lists those segments. A commit changes the lines of the items it touches,
 * so its checkpoint stores the few segments they fall in and shares the others with the checkpoint
 * before: a whole file per commit was 20 MB at 20,000 packages (gzipped), most of a leaf commit's
 * writes.
 *
 * A build saves the spaced checkpoints it passes (only those the rule keeps, so a build from
 * scratch writes a handful, not one per spacing) and one at its tip, then removes the rest,
 * including those of commits no longer on main. A builder that stays up (build/build.ts Builder)
 * holds its tip's state for its next build, so it saves its tip's checkpoint only at a spaced depth:
 * saved after every commit, the whole state was most of what a commit cost after going live at
 * 100,000 packages, and a restart reads at most the commits since the last spaced one again.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { FULL_SHA } from '../src/grammar.ts';
import { LAYOUT_VERSION, paths } from '../src/store/layout.ts';
import { writeFileAtomic } from '../src/store/atomic.ts';
import type { CollectionChunks, ComposerSnapshot } from './composer.ts';
import { PackedStrings } from './chunks.ts';
import type { ModelSnapshot } from './model.ts';
import type { ObjectStore } from './objects.ts';
import { contentSegments } from './segments.ts';

/** The model and composer items at one commit. */
export interface Checkpoint {
  layout: number;
  sha: string;
  model: ModelSnapshot;
  composer: ComposerSnapshot;
}

/** Commits between spaced checkpoints, finest first. */
export const SPACINGS: readonly number[] = [16, 256];
/** Spaced checkpoints kept per spacing, newest first. */
export const KEEP_PER_SPACING = 4;
/** Checkpoints kept at the newest commits that have one (the tips of the latest builds). */
export const KEEP_RECENT = 4;

export const checkpointDirectory = (out: string) => join(paths.buildPrivate(out), 'checkpoints');
const SUFFIX = '.json';
const fileOf = (out: string, sha: string) => join(checkpointDirectory(out), `${sha}${SUFFIX}`);

/** A checkpoint's file: its commit, and the objects its lines are stored in, in order. */
interface CheckpointFile {
  layout: number;
  sha: string;
  segments: string[];
}

/** Text cut into segments at a time: several segments' worth, the last of which waits for the next text (it may not end there). */
const CUT_FROM_BYTES = 1024 * 1024;

/** The sections of a checkpoint that are lists, one line per item: `[section, item]`. */
const MODEL_LISTS = ['manifests', 'scorecards', 'advisories', 'history', 'names', 'diagnostics'] as const satisfies readonly (keyof ModelSnapshot)[];
const COMPOSER_LISTS = ['records', 'cards', 'transitive', 'index'] as const satisfies readonly (keyof ComposerSnapshot)[];

/** The lines of a checkpoint, a few hundred kilobytes at a time. */
function* linesOf(checkpoint: Checkpoint): Generator<string> {
  let batch = `${JSON.stringify({ layout: checkpoint.layout, sha: checkpoint.sha, commit: checkpoint.model.commit, chunks: checkpoint.composer.chunks ?? null, chunkLengths: checkpoint.composer.chunkLengths ?? null } satisfies Header)}\n`;
  const sections = [
    ...MODEL_LISTS.map((section) => [`model.${section}`, checkpoint.model[section]] as const),
    ...COMPOSER_LISTS.map((section) => [`composer.${section}`, checkpoint.composer[section]] as const),
  ];
  for (const [section, items] of sections) {
    const lines = section === 'composer.transitive' && items instanceof PackedStrings ? packedLines(items) : (items as Iterable<unknown>);
    for (const item of lines) {
      const line = section === 'composer.transitive' && item instanceof PackedLine ? ['composer.packed', item.item] : [section, item];
      batch += `${JSON.stringify(line)}\n`;
      if (batch.length >= 256 * 1024) {
        yield batch;
        batch = '';
      }
    }
  }
  yield batch;
}

/** A rollup as the composer keeps it, deflated: saved as base64, not inflated to be saved nor deflated again when read. */
class PackedLine {
  readonly item: [string, string];
  constructor(item: [string, string]) {
    this.item = item;
  }
}

function* packedLines(rollups: PackedStrings): Generator<[string, string] | PackedLine> {
  for (const key of rollups.keys()) {
    const item = rollups.stored(key)!;
    yield typeof item === 'string' ? [key, item] : new PackedLine([key, Buffer.from(item).toString('base64')]);
  }
}

/** Each line of the text stored in `segments`, read a segment at a time (a segment may end inside a line, or a character). */
async function* linesIn(store: ObjectStore, segments: readonly string[]): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  // The pieces of the line being read: a long line is joined once, not at every segment.
  let pieces: string[] = [];
  for (const segment of segments) {
    const text = decoder.write(await store.get(segment));
    let from = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', from)) {
      pieces.push(text.slice(from, end));
      yield pieces.join('');
      pieces = [];
      from = end + 1;
    }
    pieces.push(text.slice(from));
  }
  pieces.push(decoder.end());
  const last = pieces.join('');
  if (last !== '') yield last;
}

/** A checkpoint's first line. */
interface Header {
  layout: number;
  sha: string;
  commit: ModelSnapshot['commit'];
  chunks?: CollectionChunks | null;
  chunkLengths?: ComposerSnapshot['chunkLengths'];
}

async function read(store: ObjectStore, file: string): Promise<Checkpoint | null> {
  try {
    const stored = JSON.parse(await readFile(file, 'utf8')) as CheckpointFile;
    if (stored.layout !== LAYOUT_VERSION) return null;
    const lines = linesIn(store, stored.segments);
    const first = await lines.next();
    if (first.done) return null;
    const header = JSON.parse(first.value) as Header;
    const model = Object.fromEntries(MODEL_LISTS.map((section) => [section, []])) as unknown as ModelSnapshot;
    // The rollups are packed as they are read: as text, they are most of the checkpoint.
    const transitive = new PackedStrings();
    const composer = { records: [], cards: [], transitive, index: [], chunks: header.chunks ?? null, chunkLengths: header.chunkLengths ?? null } as unknown as ComposerSnapshot;
    model.commit = header.commit;
    for await (const line of lines) {
      const [section, item] = JSON.parse(line) as [string, unknown];
      if (section === 'composer.transitive') {
        transitive.set(...(item as [string, string]));
        continue;
      }
      if (section === 'composer.packed') {
        const [key, base64] = item as [string, string];
        transitive.setStored(key, new Uint8Array(Buffer.from(base64, 'base64')));
        continue;
      }
      const [part, list] = section.split('.');
      ((part === 'model' ? model : composer) as unknown as Record<string, unknown[]>)[list].push(item);
    }
    return { layout: header.layout, sha: header.sha, model, composer };
  } catch {
    // Absent, unreadable, of another layout or with a segment missing: as if there were none.
    return null;
  }
}

export class Checkpoints {
  readonly #out: string;
  readonly #store: ObjectStore;
  readonly #spacings: readonly number[];
  /** Depth (first-parent commits from the root, the root being 1) of each commit on the chain. */
  readonly #depths = new Map<string, number>();
  readonly #tipDepth: number;

  /** `chain`: main's first-parent chain, newest first; `store`: the build's, which holds the checkpoints' lines. `spacings`: SPACINGS unless a test asks for others. */
  constructor(out: string, store: ObjectStore, chain: readonly string[], spacings: readonly number[] = SPACINGS) {
    this.#out = out;
    this.#store = store;
    this.#spacings = spacings;
    this.#tipDepth = chain.length;
    chain.forEach((sha, index) => this.#depths.set(sha, chain.length - index));
  }

  /** Whether the commit `sha` of the chain is one the spacing rule keeps a checkpoint at (the tip included). */
  spaced(sha: string): boolean {
    const depth = this.#depths.get(sha);
    return depth !== undefined && this.#spacings.some((spacing) => depth % spacing === 0 && depth > this.#tipDepth - KEEP_PER_SPACING * spacing);
  }

  has(sha: string): boolean {
    return existsSync(fileOf(this.#out, sha));
  }

  /** The checkpoint of the newest commit on the chain that has a readable one; null: start from the root. */
  async newest(): Promise<Checkpoint | null> {
    for (const sha of await this.#onChain()) {
      const checkpoint = await read(this.#store, fileOf(this.#out, sha));
      if (checkpoint?.sha === sha) return checkpoint;
    }
    return null;
  }

  /** Stores the checkpoint's lines (the segments not stored yet), then its file once they are in the packs. */
  async save(checkpoint: Checkpoint): Promise<void> {
    const segments: string[] = [];
    const put = async (pieces: readonly Uint8Array[]) => {
      for (const piece of pieces) segments.push(await this.#store.put(Buffer.from(piece)));
    };
    let text = Buffer.alloc(0);
    for (const batch of linesOf(checkpoint)) {
      text = Buffer.concat([text, Buffer.from(batch, 'utf8')]);
      if (text.length < CUT_FROM_BYTES) continue;
      // The cut restarts after each segment, so cutting the last one again with the text after it cuts as the whole text would.
      const pieces = contentSegments(text);
      await put(pieces.slice(0, -1));
      text = Buffer.from(pieces.at(-1)!);
    }
    await put(contentSegments(text));
    await this.#store.settled();
    await writeFileAtomic(fileOf(this.#out, checkpoint.sha), JSON.stringify({ layout: checkpoint.layout, sha: checkpoint.sha, segments } satisfies CheckpointFile));
  }

  /** Removes every checkpoint the rule does not keep, those of commits that left main included. */
  async prune(): Promise<void> {
    const onChain = await this.#onChain();
    const keep = new Set([...onChain.slice(0, KEEP_RECENT), ...onChain.filter((sha) => this.spaced(sha))]);
    const files = await readdir(checkpointDirectory(this.#out)).catch(() => [] as string[]);
    for (const name of files) {
      const sha = name.endsWith(SUFFIX) ? name.slice(0, -SUFFIX.length) : null;
      // Temporary files of a killed save go too.
      if (sha === null || !keep.has(sha)) await rm(join(checkpointDirectory(this.#out), name), { force: true });
    }
  }

  /** Shas of the chain that have a checkpoint file, newest first. */
  async #onChain(): Promise<string[]> {
    const names = await readdir(checkpointDirectory(this.#out)).catch(() => [] as string[]);
    const shas = names.flatMap((name) => {
      const sha = name.endsWith(SUFFIX) ? name.slice(0, -SUFFIX.length) : '';
      return FULL_SHA.test(sha) && this.#depths.has(sha) ? [sha] : [];
    });
    return shas.sort((a, b) => this.#depths.get(b)! - this.#depths.get(a)!);
  }
}
