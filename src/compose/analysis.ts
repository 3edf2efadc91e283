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
  /** For reanalyze: every present package's declared dependencies (present or not), as sorted name keys. */
  declared: ReadonlyMap<string, readonly string[]>;
  /** For reanalyze: the name keys each advisory of the state names (withdrawn ones too). */
  named: ReadonlyMap<string, readonly string[]>;
  /** For reanalyze: the ids of the advisories that name each key. */
  namedBy: ReadonlyMap<string, ReadonlySet<string>>;
}

/** What changed from one state to the next, as far as the analysis is concerned. */
export interface AnalysisChange {
  /** Name keys whose manifest changed, or that appeared or disappeared. */
  packages: ReadonlySet<string>;
  /** Ids of the advisories added, changed or removed. */
  advisories: ReadonlySet<string>;
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
  const declared = new Map<string, readonly string[]>();
  for (const [key, pkg] of state.packages) {
    const deps = declaredKeys(pkg);
    declared.set(key, deps);
    edges.set(key, deps.filter((dep) => state.packages.has(dep)));
    for (const dep of deps) {
      const list = dependents.get(dep) ?? [];
      list.push(key);
      dependents.set(dep, list);
    }
  }
  for (const list of dependents.values()) list.sort();
  const named = new Map<string, readonly string[]>();
  const namedBy = new Map<string, Set<string>>();
  for (const osv of state.advisories.values()) {
    const keys = advisoryMemo(osv).named;
    named.set(osv.id, keys);
    for (const key of keys) namedBy.set(key, (namedBy.get(key) ?? new Set()).add(osv.id));
  }
  return { activeIds, advisories, edges, dependents, declared, named, namedBy };
}

/** A manifest's dependency names (build and runtime, present or not) as sorted, distinct name keys. */
function declaredKeys(pkg: PackageState | undefined): readonly string[] {
  if (!pkg) return [];
  let deps = dependencyKeys.get(pkg.manifest);
  if (!deps) dependencyKeys.set(pkg.manifest, (deps = [...new Set([...pkg.manifest.dependencies.build, ...pkg.manifest.dependencies.runtime].map(nameKey))].sort()));
  return deps;
}

/** `list` with `item` added in sorted place (a new array). */
const withItem = (list: readonly string[] | undefined, item: string) => [...(list ?? []), item].sort();
/** `list` without `item` (a new array), or undefined when nothing is left. */
function withoutItem(list: readonly string[] | undefined, item: string): string[] | undefined {
  const rest = (list ?? []).filter((entry) => entry !== item);
  return rest.length > 0 ? rest : undefined;
}
function setOrDelete<V>(map: Map<string, V>, key: string, value: V | undefined): void {
  if (value === undefined) map.delete(key);
  else map.set(key, value);
}

/** What the rollups read of an analysis: the dependency graph and where each advisory is active. */
export interface AdvisoryGraph {
  edges: { get(key: string): readonly string[] | undefined };
  activeIds: { get(key: string): readonly string[] | undefined };
}

/** An analysis's maps, which only analyze and reanalyze write. */
type Writable<T> = { -readonly [K in keyof T]: T[K] extends ReadonlyMap<infer Key, infer Value> ? Map<Key, Value> : T[K] };

/**
 * Brings `analysis` (of the state before) to `state`, in place, from what changed between them:
 * afterwards it equals analyze(state), at the cost of the change rather than of the catalog (a
 * build analyzes every commit of a history; analyzing each whole, or even copying the analysis's
 * maps, made the cost per commit grow with the catalog: a third of vcpkg's 16,193 commits). Returns
 * the graph as it was before, read through the entries it replaced, for the caller to compare
 * with; it is valid until the next reanalyze.
 */
export function reanalyze(analysis: CatalogAnalysis, state: CatalogState, change: AnalysisChange): AdvisoryGraph {
  const { activeIds, advisories, edges, dependents, declared, named, namedBy } = analysis as Writable<CatalogAnalysis>;
  const [edgesBefore, activeIdsBefore] = [new Map<string, readonly string[] | undefined>(), new Map<string, readonly string[] | undefined>()];
  const remembered = (map: Map<string, readonly string[]>, before: Map<string, readonly string[] | undefined>, key: string) => {
    if (!before.has(key)) before.set(key, map.get(key));
    return map;
  };

  // Which advisories name which packages.
  for (const id of change.advisories) {
    for (const key of named.get(id) ?? []) {
      const ids = new Set(namedBy.get(key));
      ids.delete(id);
      setOrDelete(namedBy, key, ids.size > 0 ? ids : undefined);
    }
    const osv = state.advisories.get(id);
    const keys = osv ? advisoryMemo(osv).named : undefined;
    setOrDelete(named, id, keys);
    for (const key of keys ?? []) namedBy.set(key, new Set(namedBy.get(key)).add(id));
  }

  // Dependencies both ways, for the packages that changed and those whose dependencies came or went.
  const edgeKeys = new Set(change.packages);
  for (const key of change.packages) {
    const before = declared.get(key) ?? [];
    const after = declaredKeys(state.packages.get(key));
    setOrDelete(declared, key, state.packages.has(key) ? after : undefined);
    for (const dep of before) if (!after.includes(dep)) setOrDelete(dependents, dep, withoutItem(dependents.get(dep), key));
    for (const dep of after) if (!before.includes(dep)) dependents.set(dep, withItem(dependents.get(dep), key));
    if (edges.has(key) !== state.packages.has(key)) for (const dependent of dependents.get(key) ?? []) edgeKeys.add(dependent);
  }
  for (const key of edgeKeys) {
    const pkg = state.packages.get(key);
    setOrDelete(remembered(edges, edgesBefore, key), key, pkg ? declaredKeys(pkg).filter((dep) => state.packages.has(dep)) : undefined);
  }

  // Active advisories: those that changed and those naming a package that changed.
  const recheck = new Set(change.advisories);
  // (An advisory that started or stopped naming a package is one that changed.)
  for (const key of change.packages) for (const id of namedBy.get(key) ?? []) recheck.add(id);
  for (const id of recheck) {
    for (const name of advisories.get(id)?.activeOn ?? []) {
      const key = nameKey(name);
      setOrDelete(remembered(activeIds, activeIdsBefore, key), key, withoutItem(activeIds.get(key), id));
    }
    const osv = state.advisories.get(id);
    const memo = osv && advisoryMemo(osv);
    const activeOn: string[] = [];
    if (osv && memo && !memo.withdrawn) {
      for (const key of memo.named) {
        const pkg = state.packages.get(key);
        if (pkg && affects(osv, memo, key, pkg.manifest.version)) {
          activeOn.push(pkg.manifest.name);
          remembered(activeIds, activeIdsBefore, key).set(key, withItem(activeIds.get(key), id));
        }
      }
    }
    setOrDelete(advisories, id, memo && activeOn.length > 0 ? { ...memo.severity, activeOn: activeOn.sort(compareNames) } : undefined);
  }
  const through = (before: Map<string, readonly string[] | undefined>, now: ReadonlyMap<string, readonly string[]>) => ({
    get: (key: string) => (before.has(key) ? before.get(key) : now.get(key)),
  });
  return { edges: through(edgesBefore, edges), activeIds: through(activeIdsBefore, activeIds) };
}
