/**
 * The build's memory between runs: checkpoints of the model and the composer's items at commits
 * along the chain (`<out>/build/checkpoints/<sha>.json.gz`), so a build starts from the newest
 * one still on main instead of reading the history from its first commit.
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
 * A build saves the spaced checkpoints it passes (only those the rule keeps, so a build from
 * scratch writes a handful, not one per spacing) and one at its tip, then removes the rest,
 * including those of commits no longer on main.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { FULL_SHA } from '../src/grammar.ts';
import { LAYOUT_VERSION, paths } from '../src/store/layout.ts';
import { writeFileAtomic } from '../src/store/atomic.ts';
import type { ComposerSnapshot } from './composer.ts';
import type { ModelSnapshot } from './model.ts';

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
const fileOf = (out: string, sha: string) => join(checkpointDirectory(out), `${sha}.json.gz`);
/** Where pkgcat 0.1 kept its one checkpoint (at the last built tip); read once, then removed. */
const legacyFile = (out: string) => join(paths.buildPrivate(out), 'checkpoint.json.gz');

async function read(file: string): Promise<Checkpoint | null> {
  try {
    const checkpoint = JSON.parse(gunzipSync(await readFile(file)).toString('utf8')) as Checkpoint;
    return checkpoint.layout === LAYOUT_VERSION ? checkpoint : null;
  } catch {
    // Absent, unreadable or of another layout: as if there were none.
    return null;
  }
}

export class Checkpoints {
  readonly #out: string;
  readonly #spacings: readonly number[];
  /** Depth (first-parent commits from the root, the root being 1) of each commit on the chain. */
  readonly #depths = new Map<string, number>();
  readonly #tipDepth: number;

  /** `chain`: main's first-parent chain, newest first. `spacings`: SPACINGS unless a test asks for others. */
  constructor(out: string, chain: readonly string[], spacings: readonly number[] = SPACINGS) {
    this.#out = out;
    this.#spacings = spacings;
    this.#tipDepth = chain.length;
    chain.forEach((sha, index) => this.#depths.set(sha, chain.length - index));
  }

  /** Whether the commit `sha` of the chain is one the spacing rule keeps a checkpoint at (the tip aside). */
  spaced(sha: string): boolean {
    const depth = this.#depths.get(sha);
    if (depth === undefined || depth === this.#tipDepth) return false;
    return this.#spacings.some((spacing) => depth % spacing === 0 && depth > this.#tipDepth - KEEP_PER_SPACING * spacing);
  }

  has(sha: string): boolean {
    return existsSync(fileOf(this.#out, sha));
  }

  /** The checkpoint of the newest commit on the chain that has a readable one; null: start from the root. */
  async newest(): Promise<Checkpoint | null> {
    for (const sha of await this.#onChain()) {
      const checkpoint = await read(fileOf(this.#out, sha));
      if (checkpoint?.sha === sha) return checkpoint;
    }
    const legacy = await read(legacyFile(this.#out));
    return legacy && this.#depths.has(legacy.sha) ? legacy : null;
  }

  async save(checkpoint: Checkpoint): Promise<void> {
    await writeFileAtomic(fileOf(this.#out, checkpoint.sha), gzipSync(JSON.stringify(checkpoint), { level: 1 }));
  }

  /** Removes every checkpoint the rule does not keep, those of commits that left main included. */
  async prune(): Promise<void> {
    const onChain = await this.#onChain();
    const keep = new Set([...onChain.slice(0, KEEP_RECENT), ...onChain.filter((sha) => this.spaced(sha))]);
    const files = await readdir(checkpointDirectory(this.#out)).catch(() => [] as string[]);
    for (const name of files) {
      const sha = name.endsWith('.json.gz') ? name.slice(0, -'.json.gz'.length) : null;
      // Temporary files of a killed save go too.
      if (sha === null || !keep.has(sha)) await rm(join(checkpointDirectory(this.#out), name), { force: true });
    }
    await rm(legacyFile(this.#out), { force: true });
  }

  /** Shas of the chain that have a checkpoint file, newest first. */
  async #onChain(): Promise<string[]> {
    const names = await readdir(checkpointDirectory(this.#out)).catch(() => [] as string[]);
    const shas = names.flatMap((name) => {
      const sha = name.endsWith('.json.gz') ? name.slice(0, -'.json.gz'.length) : '';
      return FULL_SHA.test(sha) && this.#depths.has(sha) ? [sha] : [];
    });
    return shas.sort((a, b) => this.#depths.get(b)! - this.#depths.get(a)!);
  }
}
