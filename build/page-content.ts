/**
 * What the HTML pages of a release read beyond the tip's records (build/writers.ts PageContent):
 * the listing bundle's bytes as served, the transitive rollups and version histories the
 * composer holds, and the recent commits' diffs, read from the files the build wrote with the
 * diff endpoint's helper (composed the same way when a file is missing).
 */
import { readFile } from 'node:fs/promises';
import { composeVersions } from '../src/compose/package.ts';
import { composeDiff, type DiffSide } from '../src/compose/diff.ts';
import { COMMITS_LIMIT } from '../src/compose/commits.ts';
import type { CatalogState, CommitInfo } from '../src/compose/types.ts';
import type { Diff, TransitiveAdvisory, VersionHistory } from '../src/schemas/wire.ts';
import type { CommitChange } from '../src/site/pages.ts';
import { assembleBody, paths, readListing, readStateRoot } from '../src/store/layout.ts';
import type { PageContent } from './writers.ts';

/** Recent commits on the changes page: as many as recent-commits.json lists by default. */
export const CHANGES_ON_PAGE = COMMITS_LIMIT.default;

async function listingOf(out: string, sha: string): Promise<DiffSide> {
  const side = await readListing(out, sha);
  if (!side) throw new Error(`commit ${sha} has no state in ${out}`);
  return side;
}

/** The diff of `commit` against its parent (against nothing for the first commit). */
async function changeOf(out: string, commit: CommitInfo): Promise<CommitChange> {
  const root = await readStateRoot(out, commit.sha);
  if (!root) throw new Error(`commit ${commit.sha} has no state in ${out}`);
  const parent = root.parent;
  if (parent === null) {
    const empty: DiffSide = { commitSha: commit.sha, pushedAt: commit.pushedAt, packages: [] };
    return { commit, parent, diff: composeDiff(empty, await listingOf(out, commit.sha)) };
  }
  const stored = await readFile(paths.diff(out, commit.sha, parent), 'utf8').catch(() => null);
  const diff = stored === null ? composeDiff(await listingOf(out, parent), await listingOf(out, commit.sha)) : (JSON.parse(stored) as Diff);
  return { commit, parent, diff };
}

export interface PageContentInput {
  readonly out: string;
  readonly state: CatalogState;
  /** Newest first. */
  readonly chain: readonly CommitInfo[];
  /** The composer's transitive rollups: serialized entries, comma-joined, by name key. */
  readonly transitive: ReadonlyMap<string, string>;
}

export async function gatherPageContent(input: PageContentInput): Promise<PageContent> {
  const { out, state } = input;
  const root = await readStateRoot(out, state.commit.sha);
  if (!root) throw new Error(`the tip ${state.commit.sha} has no state in ${out}`);
  const transitive = new Map<string, TransitiveAdvisory[]>();
  for (const [key, text] of input.transitive) transitive.set(key, JSON.parse(`[${text}]`) as TransitiveAdvisory[]);
  const versions = new Map<string, VersionHistory['versions']>();
  for (const [key, pkg] of state.packages) versions.set(key, composeVersions(state, key, pkg.manifest.name).versions);
  return {
    listing: (await assembleBody(out, root.listing)).toString('utf8'),
    transitive,
    versions,
    changes: await Promise.all(input.chain.slice(0, CHANGES_ON_PAGE).map((commit) => changeOf(out, commit))),
  };
}
