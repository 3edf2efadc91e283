/**
 * The diff between two catalog states (DECISIONS.md 5), computed from their listing bundles so
 * that the build (each commit against its parent) and the gateway (any pair, on first request)
 * use the same function on data they both have.
 */
import { SCHEMA_VERSION } from '../schemas/version.ts';
import type { Diff } from '../schemas/wire.ts';
import { compareNames, nameKey } from '../grammar.ts';
import { compareVersions } from './versions.ts';
import type { Severity } from './types.ts';

/** What the diff reads of a listing bundle. */
export interface DiffSide {
  commitSha: string;
  pushedAt: string;
  packages: readonly { name: string; version: string; advisories: readonly { id: string; severity: Severity }[]; maxSeverity: Severity | null }[];
}

/** `/api/pkgs/bundle/{sha}/diff/{base}.json`: the change from `base` to `sha`. */
export function composeDiff(base: DiffSide, head: DiffSide): Diff {
  const before = new Map(base.packages.map((pkg) => [nameKey(pkg.name), pkg]));
  const after = new Map(head.packages.map((pkg) => [nameKey(pkg.name), pkg]));
  const byName = (a: { name: string }, b: { name: string }) => compareNames(a.name, b.name);

  const added = head.packages.filter((pkg) => !before.has(nameKey(pkg.name))).map(({ name, version }) => ({ name, version }));
  const removed = base.packages.filter((pkg) => !after.has(nameKey(pkg.name))).map(({ name, version }) => ({ name, version }));

  const versionChanges: Diff['versionChanges'] = [];
  const advisoryChanges: Diff['advisoryChanges'] = [];
  for (const [key, now] of after) {
    const was = before.get(key);
    if (was && was.version !== now.version) {
      const order = compareVersions(now.version, was.version);
      versionChanges.push({
        name: now.name,
        fromVersion: was.version,
        toVersion: now.version,
        direction: order > 0 ? 'upgrade' : order < 0 ? 'downgrade' : 'equivalent',
      });
    }
    const wasIds = new Set(was?.advisories.map((advisory) => advisory.id) ?? []);
    const nowIds = new Set(now.advisories.map((advisory) => advisory.id));
    const fromSeverity = was?.maxSeverity ?? null;
    const toSeverity = now.maxSeverity;
    const addedIds = [...nowIds].filter((id) => !wasIds.has(id)).sort();
    const removedIds = [...wasIds].filter((id) => !nowIds.has(id)).sort();
    if (addedIds.length > 0 || removedIds.length > 0 || fromSeverity !== toSeverity) {
      advisoryChanges.push({
        name: now.name,
        fromCount: wasIds.size,
        toCount: nowIds.size,
        fromSeverity,
        toSeverity,
        added: addedIds,
        removed: removedIds,
      });
    }
  }
  for (const [key, was] of before) {
    if (after.has(key) || was.advisories.length === 0) continue;
    advisoryChanges.push({
      name: was.name,
      fromCount: was.advisories.length,
      toCount: 0,
      fromSeverity: was.maxSeverity,
      toSeverity: null,
      added: [],
      removed: was.advisories.map((advisory) => advisory.id).sort(),
    });
  }
  return {
    schemaVersion: SCHEMA_VERSION,
    sha: head.commitSha,
    base: base.commitSha,
    pushedAt: head.pushedAt,
    basePushedAt: base.pushedAt,
    added: added.sort(byName),
    removed: removed.sort(byName),
    versionChanges: versionChanges.sort(byName),
    advisoryChanges: advisoryChanges.sort(byName),
  };
}
