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
import { readListing, readParentDiff, readStateRoot } from '../src/store/layout.ts';

async function listing(out: string, sha: string): Promise<DiffSide> {
  const side = await readListing(out, sha);
  if (!side) throw new Error(`commit ${sha} has no state to diff`);
  return side;
}

/**
 * The changes of the newest commits of `chain` (the first-parent chain, newest first): as many as
 * recent-commits.json lists by default, so the feed and the list cover the same commits.
 */
export async function readRecentChanges(out: string, chain: readonly CommitInfo[], count: number = COMMITS_LIMIT.default): Promise<CommitChanges[]> {
  return Promise.all(
    chain.slice(0, count).map(async (commit, index): Promise<CommitChanges> => {
      const parent = chain[index + 1];
      if (!parent) {
        const empty: DiffSide = { commitSha: commit.sha, pushedAt: commit.pushedAt, packages: [] };
        return { commit, diff: composeDiff(empty, await listing(out, commit.sha)), root: true };
      }
      const root = await readStateRoot(out, commit.sha);
      const stored = root?.parent === parent.sha ? await readParentDiff(out, root) : null;
      const diff = stored ? (JSON.parse(stored.toString('utf8')) as Diff) : composeDiff(await listing(out, parent.sha), await listing(out, commit.sha));
      return { commit, diff, root: false };
    }),
  );
}
