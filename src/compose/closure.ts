/**
 * A package's build and runtime closure at one commit: everything it reaches through its
 * dependencies, breadth-first, ending at packages already visited (cycles end), with dependency
 * names that are no package at that commit (dangling) kept, not dropped. Records come from a
 * lookup the caller provides (the build's composed records, or the gateway's chunk reads), so
 * the walk is written once.
 */
import { compareNames, nameKey } from '../grammar.ts';
import type { PackageRecord } from '../schemas/wire.ts';

export interface PackageClosure {
  readonly root: PackageRecord;
  /** Every package reached (the root excluded), by name key, in breadth-first order. */
  readonly packages: ReadonlyMap<string, PackageRecord>;
  /** Dependency names that are no package at that commit, as spelled by a dependent, sorted. */
  readonly missing: readonly string[];
}

export type RecordLookup = (key: string) => PackageRecord | null | Promise<PackageRecord | null>;

/** The closure of `key`, or null when the package is not there. */
export async function packageClosure(lookup: RecordLookup, key: string): Promise<PackageClosure | null> {
  const root = await lookup(key);
  if (!root) return null;
  const packages = new Map<string, PackageRecord>();
  const missing = new Map<string, string>();
  const seen = new Set([key]);
  let frontier = [root];
  while (frontier.length > 0) {
    const next = frontier
      .flatMap((record) => [...record.dependencies.build, ...record.dependencies.runtime])
      .filter((name) => !seen.has(nameKey(name)) && Boolean(seen.add(nameKey(name))));
    const records = await Promise.all(next.map((name) => lookup(nameKey(name))));
    frontier = [];
    next.forEach((name, index) => {
      const record = records[index];
      if (record) {
        packages.set(nameKey(name), record);
        frontier.push(record);
      } else {
        missing.set(nameKey(name), name);
      }
    });
  }
  return { root, packages, missing: [...missing.values()].sort(compareNames) };
}

/**
 * The keys of the closure reached through runtime dependencies alone (the root's runtime
 * closure); every other package of the closure is needed only to build something.
 */
export function runtimeKeys(closure: PackageClosure): Set<string> {
  const reached = new Set<string>();
  let frontier = [closure.root];
  while (frontier.length > 0) {
    const next: PackageRecord[] = [];
    for (const record of frontier) {
      for (const name of record.dependencies.runtime) {
        const key = nameKey(name);
        const dependency = closure.packages.get(key);
        if (dependency && !reached.has(key)) {
          reached.add(key);
          next.push(dependency);
        }
      }
    }
    frontier = next;
  }
  return reached;
}
