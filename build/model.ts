/**
 * The build's running model of the catalog: the state at the commit being built, updated by
 * applying each first-parent commit's changed paths. It owns parsing and the bad-data rules of
 * CATALOG-FORMAT.md; composition only ever sees the resulting CatalogState.
 */
import { compareNames, isReservedName, nameKey } from '../src/grammar.ts';
import { parseAdvisory, parseManifest, parseScorecard } from '../src/catalog/parse.ts';
import { namedPackages } from '../src/compose/analysis.ts';
import type { PathChange } from '../src/catalog/git.ts';
import type {
  CatalogState, CommitInfo, Diagnostic, Manifest, OsvRecord, PackageState, Scorecard, VersionEvent,
} from '../src/compose/types.ts';

const MANIFEST = /^packages\/([^/]+)\/manifest\.json$/;
const SCORECARD = /^packages\/([^/]+)\/scorecard\.json$/;
const ADVISORY = /^advisories\/([^/]+)\.json$/;

/** What one commit changed, as the composition's dirty-tracking needs it. */
export interface AppliedCommit {
  /** Keys whose manifest or scorecard changed, or that appeared or disappeared. */
  packages: Set<string>;
  /** Keys that disappeared or appeared. */
  presence: Set<string>;
  /** Keys named (before or after) by a changed advisory. */
  advisoryNamed: Set<string>;
  /** Ids of the advisories added, changed or removed. */
  advisories: Set<string>;
  /** Keys that gained or lost a dependent (their reverse dependencies changed). */
  dependentsChanged: Set<string>;
  /** Keys present before and after whose canonical spelling changed (a directory renamed in case). */
  respelled: Set<string>;
  /** Keys that ship a version at this commit, with the directory to diff. */
  shipped: { key: string; dir: string }[];
  diagnostics: Diagnostic[];
}

/** The serializable form of a model, kept in the build's checkpoint. */
export interface ModelSnapshot {
  commit: CommitInfo | null;
  manifests: [string, Manifest][];
  scorecards: [string, Scorecard][];
  advisories: [string, OsvRecord][];
  history: [string, VersionEvent[]][];
  names: [string, string][];
  diagnostics: Diagnostic[];
}

function emptyApplied(): AppliedCommit {
  return { packages: new Set(), presence: new Set(), advisoryNamed: new Set(), advisories: new Set(), dependentsChanged: new Set(), respelled: new Set(), shipped: [], diagnostics: [] };
}

/** Name keys of a manifest's dependencies (build and runtime, present or not). */
function dependencyKeys(manifest: Manifest | undefined): Set<string> {
  return new Set(manifest ? [...manifest.dependencies.build, ...manifest.dependencies.runtime].map(nameKey) : []);
}

export type BlobReader = (id: string) => Promise<Buffer | null>;

export class CatalogModel {
  commit: CommitInfo | null = null;
  /** Valid manifests by exact directory name. */
  private readonly manifests = new Map<string, Manifest>();
  /** Directory names with a valid manifest, by name key (two only when they collide in case). */
  private readonly dirsByKey = new Map<string, Set<string>>();
  /** Valid scorecards by exact directory name. */
  private readonly scorecards = new Map<string, Scorecard>();
  readonly advisories = new Map<string, OsvRecord>();
  readonly packages = new Map<string, PackageState>();
  readonly history = new Map<string, VersionEvent[]>();
  readonly names = new Map<string, string>();
  /** Every diagnostic so far, oldest first. */
  readonly diagnostics: Diagnostic[] = [];

  state(): CatalogState {
    if (!this.commit) throw new Error('no commit applied yet');
    return { commit: this.commit, packages: this.packages, advisories: this.advisories, history: this.history, names: this.names };
  }

  /** Applies one commit's changes; blob contents come from `read`. */
  async apply(commit: CommitInfo, changes: readonly PathChange[], read: BlobReader): Promise<AppliedCommit> {
    this.commit = commit;
    const result: AppliedCommit = emptyApplied();
    const report = (path: string, level: Diagnostic['level'], message: string) =>
      result.diagnostics.push({ commit: commit.sha, path, level, message });
    const touchedDirs = new Set<string>();
    const newManifestDirs = new Set<string>();

    const blobs = await Promise.all(changes.map((change) => (change.newBlob ? read(change.newBlob) : Promise.resolve(null))));
    changes.forEach((change, index) => {
      const bytes = blobs[index];
      let match: RegExpExecArray | null;
      if ((match = MANIFEST.exec(change.path))) {
        const dir = match[1];
        touchedDirs.add(dir);
        this.setManifest(dir, null);
        if (!bytes) return;
        newManifestDirs.add(dir);
        const parsed = parseManifest(bytes, dir);
        if (!parsed.ok) return report(change.path, 'error', `${parsed.reason}; the package is left out of this commit`);
        for (const warning of parsed.warnings) report(change.path, 'warning', warning);
        this.setManifest(dir, parsed.value);
      } else if ((match = SCORECARD.exec(change.path))) {
        const dir = match[1];
        touchedDirs.add(dir);
        this.scorecards.delete(dir);
        if (!bytes) return;
        const parsed = parseScorecard(bytes);
        if (!parsed.ok) return report(change.path, 'error', `${parsed.reason}; the scorecard is left out of this commit`);
        this.scorecards.set(dir, parsed.value);
      } else if ((match = ADVISORY.exec(change.path))) {
        const id = match[1];
        result.advisories.add(id);
        const before = this.advisories.get(id);
        if (before) for (const key of namedPackages(before)) result.advisoryNamed.add(key);
        this.advisories.delete(id);
        if (!bytes) return;
        const parsed = parseAdvisory(bytes, id);
        if (!parsed.ok) return report(change.path, 'error', `${parsed.reason}; the advisory is left out of this commit`);
        for (const warning of parsed.warnings) report(change.path, 'warning', warning);
        this.advisories.set(id, parsed.value);
        for (const key of namedPackages(parsed.value)) result.advisoryNamed.add(key);
      }
    });

    for (const key of new Set([...touchedDirs].map(nameKey))) this.resolveKey(key, result, newManifestDirs, report);
    this.diagnostics.push(...result.diagnostics);
    return result;
  }

  private setManifest(dir: string, manifest: Manifest | null): void {
    const key = nameKey(dir);
    const dirs = this.dirsByKey.get(key) ?? new Set<string>();
    if (manifest) {
      this.manifests.set(dir, manifest);
      dirs.add(dir);
      this.dirsByKey.set(key, dirs);
    } else {
      this.manifests.delete(dir);
      dirs.delete(dir);
      if (dirs.size === 0) this.dirsByKey.delete(key);
    }
  }

  /** Decides which directory (if any) provides a name key, after its directories changed. */
  private resolveKey(
    key: string,
    result: AppliedCommit,
    newManifestDirs: Set<string>,
    report: (path: string, level: Diagnostic['level'], message: string) => void,
  ): void {
    const candidates = [...(this.dirsByKey.get(key) ?? [])].sort(compareNames);
    const before = this.packages.get(key);
    const dir = candidates[0];
    for (const loser of candidates.slice(1)) {
      if (newManifestDirs.has(loser) || newManifestDirs.has(dir)) {
        report(`packages/${loser}/manifest.json`, 'error', `package directory "${loser}" collides in case with "${dir}"; "${dir}" is kept and "${loser}" is left out of this commit`);
      }
    }
    const after = dir === undefined ? undefined : this.manifests.get(dir);
    const depsBefore = dependencyKeys(before?.manifest);
    const depsAfter = dependencyKeys(after);
    for (const dep of depsBefore) if (!depsAfter.has(dep)) result.dependentsChanged.add(dep);
    for (const dep of depsAfter) if (!depsBefore.has(dep)) result.dependentsChanged.add(dep);
    if (dir === undefined) {
      if (before) {
        this.packages.delete(key);
        result.packages.add(key);
        result.presence.add(key);
      }
      return;
    }
    const manifest = this.manifests.get(dir)!;
    const scorecard = this.scorecards.get(dir) ?? null;
    if (before && before.manifest === manifest && before.scorecard === scorecard) return;
    this.packages.set(key, { manifest, scorecard });
    this.names.set(key, manifest.name);
    result.packages.add(key);
    if (before && before.manifest.name !== manifest.name) result.respelled.add(key);
    if (!before) {
      result.presence.add(key);
      if (isReservedName(key)) {
        report(`packages/${dir}/manifest.json`, 'warning', `package name "${manifest.name}" is shadowed by a fixed route under /api/pkgs/; the route wins, and the package stays reachable through the bundles, pages and tools`);
      }
    }
    if (!before || before.manifest.version !== manifest.version) result.shipped.push({ key, dir: `packages/${dir}` });
  }

  /** The sha of the commit that shipped a package's previous version (null: never shipped). */
  lastShipped(key: string): string | null {
    const events = this.history.get(key);
    return events && events.length > 0 ? events[events.length - 1].sha : null;
  }

  recordShipping(key: string, event: VersionEvent): void {
    const events = this.history.get(key) ?? [];
    events.push(event);
    this.history.set(key, events);
  }

  snapshot(): ModelSnapshot {
    return {
      commit: this.commit,
      manifests: [...this.manifests],
      scorecards: [...this.scorecards],
      advisories: [...this.advisories],
      history: [...this.history],
      names: [...this.names],
      diagnostics: this.diagnostics,
    };
  }

  static restore(snapshot: ModelSnapshot): CatalogModel {
    const model = new CatalogModel();
    model.commit = snapshot.commit;
    for (const [dir, manifest] of snapshot.manifests) model.setManifest(dir, manifest);
    for (const [dir, scorecard] of snapshot.scorecards) model.scorecards.set(dir, scorecard);
    for (const [id, osv] of snapshot.advisories) model.advisories.set(id, osv);
    for (const [key, events] of snapshot.history) model.history.set(key, events);
    for (const [key, name] of snapshot.names) model.names.set(key, name);
    model.diagnostics.push(...snapshot.diagnostics);
    const keys = new Set([...model.manifests.keys()].map(nameKey));
    const ignore = emptyApplied();
    for (const key of keys) model.resolveKey(key, ignore, new Set(), () => {});
    return model;
  }
}
