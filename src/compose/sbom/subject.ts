/**
 * What an SBOM describes, in the terms both formats share: a package at one commit, every
 * component of its build and runtime closure (dangling dependencies included, without a
 * version), which of them are needed at run time, the dependency edges, and every active
 * advisory on any of them. Both src/compose/sbom/cyclonedx.ts and spdx.ts render from this, so
 * the two documents of one (commit, package) always tell the same story.
 *
 * Pure (no I/O, clock or randomness): an SBOM's bytes depend on the catalog data alone.
 */
import { compareNames, nameKey } from '../../grammar.ts';
import type { CommitInfo, FullAdvisory, PackageRecord } from '../../schemas/wire.ts';
import { runtimeKeys, type PackageClosure } from '../closure.ts';

/** Why a component is in the document (CycloneDX `scope`, SPDX relationship types). */
export type ComponentScope = 'runtime' | 'build';

export interface SbomComponent {
  /** The catalog name; unique in the document (names are unique case-insensitively). */
  readonly name: string;
  /** The package record; null for a dangling dependency (no such package at this commit). */
  readonly record: PackageRecord | null;
  /**
   * runtime: reached from the root through runtime dependencies alone (needed where the root
   * runs); build: needed only to build something in the closure. The root is `runtime`.
   */
  readonly scope: ComponentScope;
  /** Direct dependencies of this component, by name, each with its kind; empty for a dangling one. */
  readonly dependsOn: readonly { readonly name: string; readonly kind: ComponentScope }[];
}

export interface SbomVulnerability {
  readonly advisory: FullAdvisory;
  /** Each component carrying it (as an active direct advisory), with the versions that fix it there. */
  readonly affects: readonly { readonly name: string; readonly fixedIn: readonly string[] }[];
}

export interface SbomSubject {
  readonly commit: CommitInfo;
  readonly root: SbomComponent & { readonly record: PackageRecord };
  /** Every other component, sorted by name (present and dangling). */
  readonly components: readonly SbomComponent[];
  /** Every active advisory on the root or a component, sorted by id. */
  readonly vulnerabilities: readonly SbomVulnerability[];
}

/** The subject of the SBOM of `closure`'s root at `commit`. */
export function sbomSubject(commit: CommitInfo, closure: PackageClosure): SbomSubject {
  const runtime = runtimeKeys(closure);
  const component = (record: PackageRecord, scope: ComponentScope): SbomComponent => ({
    name: record.name,
    record,
    scope,
    dependsOn: [
      ...record.dependencies.build.map((name) => ({ name: spelling(closure, name), kind: 'build' as const })),
      ...record.dependencies.runtime.map((name) => ({ name: spelling(closure, name), kind: 'runtime' as const })),
    ].sort((a, b) => compareNames(a.name, b.name) || a.kind.localeCompare(b.kind)),
  });
  const root = component(closure.root, 'runtime') as SbomSubject['root'];
  const present = [...closure.packages].map(([key, record]) => component(record, runtime.has(key) ? 'runtime' : 'build'));
  // A dangling dependency is needed at run time when a package needed at run time lists it as a runtime dependency.
  const runtimeMissing = new Set(
    [closure.root, ...[...closure.packages].filter(([key]) => runtime.has(key)).map(([, record]) => record)].flatMap((record) => record.dependencies.runtime.map(nameKey)),
  );
  const dangling = closure.missing.map((name): SbomComponent => ({ name, record: null, scope: runtimeMissing.has(nameKey(name)) ? 'runtime' : 'build', dependsOn: [] }));
  const components = [...present, ...dangling].sort((a, b) => compareNames(a.name, b.name));
  return { commit, root, components, vulnerabilities: vulnerabilitiesOf([root, ...components]) };
}

/** A dependency as the document names it: the package's own spelling when it is present. */
function spelling(closure: PackageClosure, name: string): string {
  const key = nameKey(name);
  if (key === nameKey(closure.root.name)) return closure.root.name;
  return closure.packages.get(key)?.name ?? closure.missing.find((missing) => nameKey(missing) === key) ?? name;
}

function vulnerabilitiesOf(components: readonly SbomComponent[]): SbomVulnerability[] {
  const byId = new Map<string, { advisory: FullAdvisory; affects: { name: string; fixedIn: readonly string[] }[] }>();
  for (const { name, record } of components) {
    for (const advisory of record?.advisories ?? []) {
      const entry = byId.get(advisory.id) ?? { advisory, affects: [] };
      entry.affects.push({ name, fixedIn: advisory.fixedIn });
      byId.set(advisory.id, entry);
    }
  }
  return [...byId.values()]
    .map((entry) => ({ ...entry, affects: entry.affects.sort((a, b) => compareNames(a.name, b.name)) }))
    .sort((a, b) => (a.advisory.id < b.advisory.id ? -1 : a.advisory.id > b.advisory.id ? 1 : 0));
}
