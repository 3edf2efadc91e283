/**
 * The changes page (`/changes`): what each recent commit of main changed, projected from the
 * diff of the commit against its parent, which the build composes with the diff endpoint's own
 * helper (src/compose/diff.ts composeDiff; SPEC.md "Diff": "projected by the same helper as the
 * changes HTML page"). A catalog's first commit is shown as everything it added.
 */
import type { CommitChanges } from '../compose/documents.ts';
import type { CommitInfo, Severity } from '../compose/types.ts';
import { fillTemplate, surface } from '../surfaces/registry.ts';
import { advisoryHref, pageFrame, SITE_PATHS, type PageFrame } from './frame.ts';
import { capped, formatTime, plural, shortSha, type Capped } from './format.ts';
import { packageRef, type PackageRef } from './package-page.ts';

/** How many names of one kind a commit lists before "and N more" (the diff JSON has them all). */
export const NAMES_PER_LIST = 40;

export interface ChangeEntry {
  readonly sha: string;
  readonly short: string;
  readonly pushedAt: string;
  readonly time: string;
  readonly message: string | null;
  readonly first: boolean;
  readonly summary: string;
  readonly added: Capped<PackageRef & { readonly version: string }>;
  readonly removed: Capped<PackageRef & { readonly version: string }>;
  readonly versionChanges: Capped<PackageRef & { readonly from: string; readonly to: string; readonly direction: string }>;
  readonly advisoryChanges: Capped<
    PackageRef & {
      readonly fromSeverity: Severity | null;
      readonly toSeverity: Severity | null;
      readonly fromCount: number;
      readonly toCount: number;
      /** Each with its page when it is still active at the tip. */
      readonly added: readonly { readonly id: string; readonly href: string | null }[];
      readonly removed: readonly string[];
    }
  >;
  /** The diff as JSON (sha-pinned: sign-in required); null for the first commit. */
  readonly diffHref: string | null;
}

export interface ChangesPageView {
  readonly kind: 'changes';
  readonly frame: PageFrame;
  readonly commits: readonly ChangeEntry[];
}

export interface ChangesPageInput {
  readonly tip: CommitInfo;
  /** The chain's newest commits, newest first (the same list as the changes feed's). */
  readonly changes: readonly CommitChanges[];
  /** The first-parent chain, newest first: a commit's parent is the one after it. */
  readonly chain: readonly CommitInfo[];
  /** The canonical name of every package at the tip, by name key. */
  readonly names: ReadonlyMap<string, string>;
  /** Advisory ids active at the tip (the ones that have a page). */
  readonly activeAdvisories: ReadonlySet<string>;
  readonly siteUrl: string;
}

const cap = <T>(items: readonly T[]): Capped<T> => capped(items, NAMES_PER_LIST);

function summaryOf(diff: CommitChanges['diff'], first: boolean): string {
  const parts: string[] = [];
  if (diff.added.length > 0) parts.push(`${plural(diff.added.length, 'package')} added`);
  if (diff.removed.length > 0) parts.push(`${plural(diff.removed.length, 'package')} removed`);
  if (diff.versionChanges.length > 0) parts.push(`${plural(diff.versionChanges.length, 'version change')}`);
  if (diff.advisoryChanges.length > 0) parts.push(`${plural(diff.advisoryChanges.length, 'advisory change')}`);
  if (parts.length === 0) return first ? 'The catalog starts empty.' : 'No package or advisory changes.';
  return `${parts.join(', ')}.`;
}

export function changesPageView(input: ChangesPageInput): ChangesPageView {
  const ref = (name: string) => packageRef(name, input.names);
  return {
    kind: 'changes',
    frame: pageFrame({
      title: 'Changes · pkgcat',
      description: `What the last ${plural(input.changes.length, 'commit')} of the catalog changed: packages added, removed and upgraded, and advisory changes.`,
      path: SITE_PATHS.changes,
      section: 'changes',
      tip: input.tip,
      siteUrl: input.siteUrl,
      alternates: [{ href: SITE_PATHS.changesFeed, type: 'application/atom+xml', title: 'Catalog changes (Atom)' }],
    }),
    // The changes are the chain's newest commits, in its order: a commit's parent is the next one.
    commits: input.changes.map(({ commit, diff, root }, index) => {
      const parent = root ? null : (input.chain[index + 1]?.sha ?? null);
      return {
      sha: commit.sha,
      short: shortSha(commit.sha),
      pushedAt: commit.pushedAt,
      time: formatTime(commit.pushedAt),
      message: commit.message,
      first: root,
      summary: summaryOf(diff, root),
      added: cap(diff.added.map((entry) => ({ ...ref(entry.name), version: entry.version }))),
      removed: cap(diff.removed.map((entry) => ({ ...ref(entry.name), version: entry.version }))),
      versionChanges: cap(diff.versionChanges.map((entry) => ({ ...ref(entry.name), from: entry.fromVersion, to: entry.toVersion, direction: entry.direction }))),
      advisoryChanges: cap(
        diff.advisoryChanges.map((entry) => ({
          ...ref(entry.name),
          fromSeverity: entry.fromSeverity,
          toSeverity: entry.toSeverity,
          fromCount: entry.fromCount,
          toCount: entry.toCount,
          added: entry.added.map((id) => ({ id, href: input.activeAdvisories.has(id) ? advisoryHref(id) : null })),
          removed: entry.removed,
        })),
      ),
      diffHref: parent === null ? null : fillTemplate(surface('diff').path, { sha: commit.sha, base: parent }),
      };
    }),
  };
}
