/**
 * A commit's digest: one SHA-256 that covers every sha-pinned body of the commit and of every
 * commit before it on main's first-parent chain (docs/decisions.md "Commit digests").
 *
 * The store is already a hash tree: a commit's state root (found in the packs by its sha) names every chunk
 * and body object it is made of by its content hash, and an object's name is the hash of its
 * bytes. So the state root's own SHA-256 covers every stored byte the commit's pinned bodies are
 * assembled or composed from. The commit's diff against its parent, an object the root names too,
 * is also hashed in full: the one pinned body served exactly as stored keeps a whole SHA-256, not
 * only its 128-bit object name. Each digest also covers its parent's digest, so one
 * signed digest of the tip covers the whole history, as a git commit id does.
 *
 * Nothing here depends on where the store lives or is served: an origin and a mirror built by the
 * same pkgcat from the same commits have the same digests.
 */
import type { CommitInfo } from '../compose/types.ts';
import type { CommitDigest } from '../schemas/wire.ts';
import { SCHEMA_VERSION } from '../schemas/version.ts';
import { serialize } from '../serialize.ts';
import { sha256Digest as sha256 } from '../store/hash.ts';
import { LAYOUT_VERSION, readParentDiff, type StateRootFile } from '../store/layout.ts';
import { openObjects } from '../store/objects.ts';

/** The digest of one commit from its parts (the rule a verifier applies). */
export function digestOf(parts: Omit<CommitDigest, 'digest' | 'schemaVersion'>): string {
  const { layout, commit, parent, state, diff, parentDigest } = parts;
  return sha256(serialize({ layout, commit, parent, state, diff, parentDigest }));
}

/** The digest of `commit`, read from the store `out`, given its parent's digest. */
export async function readCommitDigest(out: string, commit: string, parent: string | null, parentDigest: string | null): Promise<CommitDigest> {
  const stored = await openObjects(out).getRoot(commit);
  if (!stored) throw new Error(`commit ${commit} has no state root`);
  const state = sha256(stored);
  const diff = await diffDigest(out, commit, parent, JSON.parse(stored.toString('utf8')) as StateRootFile);
  const parts = { layout: LAYOUT_VERSION, commit, parent, state, diff, parentDigest };
  return { schemaVersion: SCHEMA_VERSION, ...parts, digest: digestOf(parts) };
}

/** The SHA-256 of the commit's diff against `parent`, null for a root commit. */
async function diffDigest(out: string, commit: string, parent: string | null, root: StateRootFile): Promise<string | null> {
  if (parent === null) return null;
  const bytes = root.parent === parent ? await readParentDiff(out, root) : null;
  if (!bytes) throw new Error(`the state root of ${commit} names no diff against its parent ${parent}`);
  return sha256(bytes);
}

/**
 * Digests along main's chain, computed once per commit and kept (a commit's digest never changes:
 * its state root and diff are write-once). The first request for the tip of a long history reads
 * every state root once (vcpkg's 16,193 in under a minute on a loaded 2-core machine; a gateway
 * that signs does it at start, catalog.ts warmDigests); later ones read only new commits.
 */
export class DigestChain {
  readonly #out: string;
  readonly #known = new Map<string, CommitDigest>();
  #queue: Promise<unknown> = Promise.resolve();

  constructor(out: string) {
    this.#out = out;
  }

  /** The digest of `sha`; `chain` is main's first-parent chain, newest first, holding `sha`. */
  of(chain: readonly CommitInfo[], sha: string): Promise<CommitDigest> {
    // One walk at a time: two requests for new commits would otherwise read the same roots twice.
    const result = this.#queue.then(() => this.#walk(chain, sha));
    this.#queue = result.catch(() => {});
    return result;
  }

  async #walk(chain: readonly CommitInfo[], sha: string): Promise<CommitDigest> {
    const index = chain.findIndex((commit) => commit.sha === sha);
    if (index < 0) throw new Error(`commit ${sha} is not on the chain`);
    let start = index;
    while (start + 1 < chain.length && !this.#known.has(chain[start]!.sha)) start += 1;
    let digest: CommitDigest | undefined;
    for (let at = start; at >= index; at -= 1) {
      const commit = chain[at]!.sha;
      digest = this.#known.get(commit);
      if (digest) continue;
      const parent = chain[at + 1]?.sha ?? null;
      digest = await readCommitDigest(this.#out, commit, parent, parent === null ? null : this.#known.get(parent)!.digest);
      this.#known.set(commit, digest);
    }
    return digest!;
  }
}
