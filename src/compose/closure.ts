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
 * The most packages the closure of a package whose SBOM the build writes may hold. An SBOM lists
 * the whole closure, so a catalog's SBOMs together cost the sum of its closures: on vcpkg the
 * largest closure is 174 packages and the sum 30,000, but a dependency cycle through n packages
 * gives each of them a closure of n, n² components in all (a 3,000-package cycle: 9 million, gigabytes of
 * documents). The build leaves out the SBOM of a package whose closure is larger; the gateway
 * composes it on request, with the same bytes (docs/decisions.md "Documents and lists with a bound").
 */
export const PRERENDERED_SBOM_CLOSURE = 500;

/**
 * Whether the closure of `key` holds more than `limit` packages (present ones, the root
 * excluded): a walk of at most `limit` + 1 of them, whatever the closure's size.
 */
export function closureExceeds(lookup: (key: string) => PackageRecord | null, key: string, limit: number): boolean {
  const seen = new Set([key]);
  const queue = [key];
  for (let head = 0; head < queue.length; head++) {
    const record = lookup(queue[head]);
    if (!record) continue;
    for (const name of [...record.dependencies.build, ...record.dependencies.runtime]) {
      const dependency = nameKey(name);
      if (seen.has(dependency) || !lookup(dependency)) continue;
      seen.add(dependency);
      if (seen.size - 1 > limit) return true;
      queue.push(dependency);
    }
  }
  return false;
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

/**
 * A digest of every package's closure, made in one walk of the graph (O(packages + edges)) rather
 * than one walk per package (the sum of the closures: 1.45 million packages at 20,000). A closure is
 * the package's strongly connected component (a dependency cycle's packages share one closure)
 * and the closures it reaches, so each component is digested once, sinks first (Tarjan's order):
 * `digest` gets its members, sorted, and the distinct digests of the components it reaches, sorted.
 * Two packages get the same digest exactly when their closures hold the same packages with the
 * same digested text, whatever the text is (`digest` reads it).
 *
 * `dependencies(key)`: the package's dependencies that are packages (by name key). Iterative, so a
 * cycle through thousands of packages does not overflow the stack.
 */
export function closureDigests(
  keys: Iterable<string>,
  dependencies: (key: string) => readonly string[],
  digest: (members: readonly string[], reached: readonly string[]) => string,
): Map<string, string> {
  const digests = new Map<string, string>();
  /** Tarjan's numbering: when each package was entered, and the lowest number it reaches through the stack. */
  const entered = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  /** Each package's dependencies, asked for once: the walk and its component both read them. */
  const next = new Map<string, readonly string[]>();
  for (const start of keys) {
    if (entered.has(start)) continue;
    const walk: { key: string; at: number }[] = [];
    const enter = (key: string) => {
      entered.set(key, entered.size);
      lowest.set(key, entered.get(key)!);
      next.set(key, dependencies(key));
      stack.push(key);
      onStack.add(key);
      walk.push({ key, at: 0 });
    };
    enter(start);
    while (walk.length > 0) {
      const top = walk[walk.length - 1];
      const dependenciesOfTop = next.get(top.key)!;
      if (top.at < dependenciesOfTop.length) {
        const dependency = dependenciesOfTop[top.at++];
        if (!entered.has(dependency)) enter(dependency);
        else if (onStack.has(dependency)) lowest.set(top.key, Math.min(lowest.get(top.key)!, entered.get(dependency)!));
        continue;
      }
      walk.pop();
      if (walk.length > 0) {
        const parent = walk[walk.length - 1].key;
        lowest.set(parent, Math.min(lowest.get(parent)!, lowest.get(top.key)!));
      }
      if (lowest.get(top.key) !== entered.get(top.key)) continue;
      // `top` is its component's first package: the component is the stack down to it.
      const members = stack.splice(stack.lastIndexOf(top.key));
      for (const member of members) onStack.delete(member);
      const inside = new Set(members);
      // Every component it reaches is digested already: Tarjan finishes a component after those it reaches.
      const reached = new Set<string>();
      for (const member of members) for (const dependency of next.get(member)!) if (!inside.has(dependency)) reached.add(digests.get(dependency)!);
      const made = digest(members.sort(), [...reached].sort());
      for (const member of members) digests.set(member, made);
    }
  }
  return digests;
}
