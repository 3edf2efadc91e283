/**
 * Facts derived once per catalog state and shared by every payload of that state: which
 * advisories are active on which package, the dependency graph both ways, advisory severities.
 */
import { compareNames, nameKey } from '../grammar.ts';
import { severityOf } from './severity.ts';
import { isAffected, isWithdrawn } from './versions.ts';
import type { CatalogState, OsvRecord, PackageState, Severity } from './types.ts';

export interface AdvisoryFacts {
  severity: Severity;
  cvss: { version: string; vector: string; score: number } | null;
  /** Canonical names of the catalog packages it is active on at this state, sorted. */
  activeOn: string[];
}

export interface CatalogAnalysis {
  /** Active advisory ids per present package (by name key), sorted. Absent: none. */
  activeIds: ReadonlyMap<string, readonly string[]>;
  /** Facts of every advisory active on at least one package. */
  advisories: ReadonlyMap<string, AdvisoryFacts>;
  /** Existing direct dependencies (build and runtime) per package, as sorted name keys. */
  edges: ReadonlyMap<string, readonly string[]>;
  /** Name keys of the packages that list a name (present or not) as a dependency, sorted. */
  dependents: ReadonlyMap<string, readonly string[]>;
}

/** Lowercased names an advisory's `affected[]` entries mention. */
export function namedPackages(osv: OsvRecord): string[] {
  const names = new Set<string>();
  for (const entry of osv.affected ?? []) {
    const name = entry?.package?.name;
    if (typeof name === 'string') names.add(nameKey(name));
  }
  return [...names];
}

/**
 * What analyze derives from one advisory or one manifest alone, kept per object: a build analyzes
 * every commit, and from one commit to the next nearly every advisory and manifest is the same
 * object (the model replaces only what a commit changed). Memoized pure functions, so the result
 * is what the plain computation gives.
 */
interface AdvisoryMemo {
  withdrawn: boolean;
  named: string[];
  severity: ReturnType<typeof severityOf>;
  /** isAffected by package key and version. */
  affected: Map<string, boolean>;
}
const advisoryMemos = new WeakMap<OsvRecord, AdvisoryMemo>();
/** A manifest's dependency names (build and runtime) as sorted, distinct name keys. */
const dependencyKeys = new WeakMap<PackageState['manifest'], string[]>();

function advisoryMemo(osv: OsvRecord): AdvisoryMemo {
  let memo = advisoryMemos.get(osv);
  if (!memo) advisoryMemos.set(osv, (memo = { withdrawn: isWithdrawn(osv), named: namedPackages(osv), severity: severityOf(osv), affected: new Map() }));
  return memo;
}

function affects(osv: OsvRecord, memo: AdvisoryMemo, key: string, version: string): boolean {
  const which = `${key}\0${version}`;
  let affected = memo.affected.get(which);
  if (affected === undefined) memo.affected.set(which, (affected = isAffected(osv, key, version)));
  return affected;
}

export function analyze(state: CatalogState): CatalogAnalysis {
  const activeIds = new Map<string, string[]>();
  const advisories = new Map<string, AdvisoryFacts>();
  for (const osv of state.advisories.values()) {
    const memo = advisoryMemo(osv);
    if (memo.withdrawn) continue;
    const activeOn: string[] = [];
    for (const key of memo.named) {
      const pkg = state.packages.get(key);
      if (pkg && affects(osv, memo, key, pkg.manifest.version)) {
        activeOn.push(pkg.manifest.name);
        const ids = activeIds.get(key) ?? [];
        ids.push(osv.id);
        activeIds.set(key, ids);
      }
    }
    if (activeOn.length > 0) advisories.set(osv.id, { ...memo.severity, activeOn: activeOn.sort(compareNames) });
  }
  for (const ids of activeIds.values()) ids.sort();

  const edges = new Map<string, string[]>();
  const dependents = new Map<string, string[]>();
  for (const [key, pkg] of state.packages) {
    let deps = dependencyKeys.get(pkg.manifest);
    if (!deps) dependencyKeys.set(pkg.manifest, (deps = [...new Set([...pkg.manifest.dependencies.build, ...pkg.manifest.dependencies.runtime].map(nameKey))].sort()));
    edges.set(key, deps.filter((dep) => state.packages.has(dep)));
    for (const dep of deps) {
      const list = dependents.get(dep) ?? [];
      list.push(key);
      dependents.set(dep, list);
    }
  }
  for (const list of dependents.values()) list.sort();
  return { activeIds, advisories, edges, dependents };
}
