/**
 * Is a build output the same catalog as the origin's? `checkMirror` recomputes, from the output's
 * own files, the digest of the commit a signed digest names (commit-digest.ts), and checks every
 * object the commits up to it name: its bytes must hash to its name, and its brotli and gzip
 * copies (what a gateway or nginx sends to clients that accept them) must decompress to the
 * same bytes. Together, every byte a sha-pinned URL of those commits is assembled or composed
 * from is the origin's.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { CommitInfo } from '../compose/types.ts';
import { contentHash } from '../store/hash.ts';
import { currentReleaseId, paths, readJson, type PackageIndexEntry, type StateRootFile } from '../store/layout.ts';
import { openObjects, type PackObjects } from '../store/objects.ts';
import type { CommitDigest } from '../schemas/wire.ts';
import { readCommitDigest } from './commit-digest.ts';

/** The output is not the origin's catalog (or holds no build of that commit); the message says where it differs. */
export class MirrorDiffers extends Error {}

export interface MirrorReport {
  /** Commits checked, from the root to the digest's commit. */
  readonly commits: number;
  /** Objects checked (each once), and their `br`/`gzip` copies. */
  readonly objects: number;
  readonly siblings: number;
}

/** The objects a state root names directly; an index chunk names more (deps.json and versions.json bodies). */
function namedBy(root: StateRootFile): { hash: string; index: boolean }[] {
  return [
    ...root.listing.segments.flatMap((segment) => (typeof segment === 'string' ? [] : [segment.object])),
    root.full.advisories,
    ...(root.parentDiff === null ? [] : [root.parentDiff]),
    ...root.records.map((chunk) => chunk.object),
    ...root.transitive.map((chunk) => chunk.object),
  ]
    .map((hash) => ({ hash, index: false }))
    .concat(root.packages.map((chunk) => ({ hash: chunk.object, index: true })));
}

/**
 * Checks `out` against `expected` (the payload of the origin's digest). `progress` is told the
 * number of commits checked now and then. Throws MirrorDiffers, naming the first difference found.
 */
export async function checkMirror(out: string, expected: CommitDigest, progress: (done: number, total: number) => void = () => {}): Promise<MirrorReport> {
  const release = await currentReleaseId(out);
  if (release === null) throw new MirrorDiffers(`${out} holds no published build: build the catalog into it first (pkgcat build)`);
  const chain = await readJson<CommitInfo[]>(paths.chain(paths.release(out, release)));
  const index = chain.findIndex((commit) => commit.sha === expected.commit);
  if (index < 0) {
    throw new MirrorDiffers(`${out} holds no build of commit ${expected.commit} (its main is at ${chain[0]?.sha ?? 'no commit'}): bring the newer commits across (git fetch from a bundle) and build again`);
  }
  const objects = openObjects(out);
  const checked = new Set<string>();
  let siblings = 0;
  let digest: CommitDigest | null = null;
  const total = chain.length - index;
  for (let at = chain.length - 1; at >= index; at -= 1) {
    const sha = chain[at]!.sha;
    const parent = chain[at + 1]?.sha ?? null;
    digest = await readCommitDigest(out, sha, parent, digest?.digest ?? null);
    const root = JSON.parse((await objects.getRoot(sha))!.toString('utf8')) as StateRootFile;
    // Each object is read once: one named again by a later commit was checked already (its name is its content).
    const pending = namedBy(root).filter(({ hash }) => !checked.has(hash));
    for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
      if (checked.has(item.hash)) continue;
      checked.add(item.hash);
      const bytes = await checkObject(objects, item.hash, sha);
      siblings += bytes.siblings;
      if (!item.index) continue;
      for (const entry of Object.values(JSON.parse(bytes.plain.toString('utf8')) as Record<string, PackageIndexEntry>)) {
        for (const hash of [entry.deps, entry.versions]) if (hash !== undefined && !checked.has(hash)) pending.push({ hash, index: false });
      }
    }
    if ((total - (at - index)) % 2000 === 0) progress(total - (at - index), total);
  }
  const mine = digest!;
  if (mine.layout !== expected.layout) {
    throw new MirrorDiffers(`the origin's digest is of output layout ${expected.layout}, this pkgcat writes layout ${mine.layout}: build the mirror with the origin's version of pkgcat`);
  }
  if (mine.digest !== expected.digest) {
    const where =
      mine.parentDigest !== expected.parentDigest
        ? `a commit before ${expected.commit} differs`
        : mine.state !== expected.state
          ? `the state root of ${expected.commit} differs`
          : `the diff of ${expected.commit} against its parent differs (the object its state root names as parentDiff)`;
    throw new MirrorDiffers(`${out} is not the origin's catalog: ${where}. Its digest of ${expected.commit} is ${mine.digest}, the origin's is ${expected.digest}. A mirror built by another version of pkgcat differs too: build it with the origin's version`);
  }
  return { commits: total, objects: checked.size, siblings };
}

/** Reads object `hash`, checks its bytes against its name and its `br` and `gzip` copies against its bytes. */
async function checkObject(objects: PackObjects, hash: string, sha: string): Promise<{ plain: Buffer; siblings: number }> {
  const read = async (encoding: 'identity' | 'br' | 'gzip') => {
    try {
      return await objects.get(hash, encoding);
    } catch (error) {
      throw new MirrorDiffers(`object ${hash} cannot be read from ${objects.folder}: ${(error as Error).message} (commit ${sha} names it)`);
    }
  };
  const plain = await read('identity');
  if (!plain) throw new MirrorDiffers(`object ${hash} is missing from the packs of ${objects.folder} (commit ${sha} names it)`);
  if (contentHash(plain) !== hash) throw new MirrorDiffers(`object ${hash} was changed: its bytes do not match its name (commit ${sha} names it)`);
  let siblings = 0;
  for (const [encoding, decompress] of [['br', brotliDecompressSync], ['gzip', gunzipSync]] as const) {
    const stored = await read(encoding);
    if (!stored) continue;
    siblings += 1;
    let copy: Buffer | null;
    try {
      copy = decompress(stored);
    } catch {
      copy = null;
    }
    if (!copy?.equals(plain)) throw new MirrorDiffers(`the ${encoding} copy of object ${hash} was changed: it does not decompress to the object's bytes (commit ${sha} names it)`);
  }
  return { plain, siblings };
}
