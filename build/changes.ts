/**
 * What each of the newest commits changed, for the changes feed: the diff the build stored for the
 * commit against its first parent (the object its state root names as `parentDiff`, composeDiff:
 * the diff endpoint's own body), and for the first commit of main, composeDiff against an empty catalog.
 */
import { COMMITS_LIMIT } from '../src/compose/commits.ts';
import { composeDiff, type DiffSide } from '../src/compose/diff.ts';
import type { CommitChanges } from '../src/compose/documents.ts';
import type { CommitInfo } from '../src/compose/types.ts';
import type { Diff } from '../src/schemas/wire.ts';
import { readListing, readParentDiff, type StateRootFile } from '../src/store/layout.ts';
import { openObjects } from '../src/store/objects.ts';

async function listing(out: string, sha: string): Promise<DiffSide> {
  const side = await readListing(out, sha);
  if (!side) throw new Error(`commit ${sha} has no state to diff`);
  return side;
}

/**
 * The changes the last call gave, by output, commit and parent: a commit's diff against its parent
 * never changes, so a builder that stays up reads only the new commits' (each read parses the
 * commit's state root: at 50,000 packages, 100 MiB of garbage for the 30 of them).
 */
let kept = new Map<string, CommitChanges>();

/**
 * The changes of the newest commits of `chain` (the first-parent chain, newest first): as many as
 * recent-commits.json lists by default, so the feed and the list cover the same commits.
 */
export async function readRecentChanges(out: string, chain: readonly CommitInfo[], count: number = COMMITS_LIMIT.default): Promise<CommitChanges[]> {
  const recent = new Map<string, CommitChanges>();
  const changes = await Promise.all(
    chain.slice(0, count).map(async (commit, index): Promise<CommitChanges> => {
      const parent = chain[index + 1];
      const key = [out, commit.sha, parent?.sha ?? ''].join('\0');
      const known = kept.get(key);
      // The chain's own entry for the commit: how a build came by it can give it more than the pages show.
      const changes = known ? { ...known, commit } : await readChanges(out, commit, parent);
      recent.set(key, changes);
      return changes;
    }),
  );
  kept = recent;
  return changes;
}

async function readChanges(out: string, commit: CommitInfo, parent: CommitInfo | undefined): Promise<CommitChanges> {
  if (!parent) {
    const empty: DiffSide = { commitSha: commit.sha, pushedAt: commit.pushedAt, packages: [] };
    return { commit, diff: composeDiff(empty, await listing(out, commit.sha)), root: true };
  }
  // The stored root as it is: only its parent and the diff against it are read.
  const stored = await openObjects(out).getRoot(commit.sha);
  const root = stored && (JSON.parse(stored.toString('utf8')) as StateRootFile);
  const diff = root?.parent === parent.sha ? await readParentDiff(out, root) : null;
  return { commit, diff: diff ? (JSON.parse(diff.toString('utf8')) as Diff) : composeDiff(await listing(out, parent.sha), await listing(out, commit.sha)), root: false };
}
