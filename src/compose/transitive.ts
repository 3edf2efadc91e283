/**
 * Transitive rollups (DECISIONS.md 2) computed per advisory rather than per package: for each
 * advisory, one breadth-first search backwards from the packages it is active on gives every
 * package's distance to its nearest culprit, and each package's path then follows, hop by hop,
 * its dependency (sorted by name key) one step nearer. A per-package walk costs the package's
 * whole closure, so a catalog's rollups cost the sum of its closures: a cycle through n packages
 * made that n², and its paths n² names. Here the work is one walk per advisory over the packages
 * that can reach it, and a path holds at most MAX_CULPRIT_PATH names.
 *
 * Why the hop rule gives the same path as a breadth-first search from the package: among the
 * shortest paths to any culprit, the one whose names compare first element by element starts
 * with the first dependency from which a culprit is one step nearer, and continues with that
 * dependency's own such path (the suffix of a shortest path is a shortest path).
 */
import { MAX_CULPRIT_PATH, type TransitiveAdvisory } from '../schemas/wire.ts';
import type { CatalogAnalysis } from './analysis.ts';
import type { CatalogState } from './types.ts';

export { MAX_CULPRIT_PATH };

/**
 * The transitive entries of each package of `keys` (name keys; absent packages get none),
 * sorted by advisory id. A path longer than MAX_CULPRIT_PATH keeps its first
 * MAX_CULPRIT_PATH - 1 packages and the culprit (docs/decisions.md "Transitive rollups").
 */
export function transitiveRollups(state: CatalogState, analysis: CatalogAnalysis, keys: Iterable<string>): Map<string, TransitiveAdvisory[]> {
  const roots = [...new Set(keys)].filter((key) => state.packages.has(key));
  // Everything the roots reach: a path from a root never leaves it, so distances inside it are exact.
  const reach = new Set(roots);
  const queue = [...roots];
  for (let head = 0; head < queue.length; head++) {
    for (const next of analysis.edges.get(queue[head]) ?? []) {
      if (!reach.has(next)) {
        reach.add(next);
        queue.push(next);
      }
    }
  }
  // The advisories active somewhere within reach, with the packages they are active on there.
  const carriers = new Map<string, string[]>();
  for (const key of reach) {
    for (const id of analysis.activeIds.get(key) ?? []) {
      const list = carriers.get(id);
      if (list) list.push(key);
      else carriers.set(id, [key]);
    }
  }

  const rollups = new Map<string, TransitiveAdvisory[]>(roots.map((key) => [key, []]));
  const nameOf = (key: string) => state.packages.get(key)!.manifest.name;
  for (const id of [...carriers.keys()].sort()) {
    const distance = distancesTo(carriers.get(id)!, analysis, reach);
    const culprits = new Map<string, string>();
    const nextHop = (key: string): string => {
      const wanted = distance.get(key)! - 1;
      return analysis.edges.get(key)!.find((dependency) => distance.get(dependency) === wanted)!;
    };
    /** The culprit at the end of `key`'s path, remembered for every package along the way. */
    const culpritOf = (key: string): string => {
      const walked: string[] = [];
      let step = key;
      let culprit = distance.get(step) === 0 ? step : culprits.get(step);
      while (culprit === undefined) {
        walked.push(step);
        step = nextHop(step);
        culprit = distance.get(step) === 0 ? step : culprits.get(step);
      }
      for (const key of walked) culprits.set(key, culprit);
      return culprit;
    };
    // The packages that reach it (a few, for most advisories), not every root.
    for (const [root, hops] of distance) {
      const rollup = rollups.get(root);
      if (!rollup || hops === 0) continue; // not asked for, or its own direct advisory
      const path = [nameOf(root)];
      let step = root;
      while (distance.get(step)! > 1 && path.length < MAX_CULPRIT_PATH - 1) path.push(nameOf((step = nextHop(step))));
      path.push(nameOf(distance.get(step) === 1 ? nextHop(step) : culpritOf(step)));
      rollup.push({ advisoryId: id, culpritPath: path });
    }
  }
  return rollups;
}

/** Each package's distance, in dependency hops, to the nearest of `carriers` (0 for them), within `within`. */
function distancesTo(carriers: readonly string[], analysis: CatalogAnalysis, within: ReadonlySet<string>): Map<string, number> {
  const distance = new Map(carriers.map((key) => [key, 0]));
  const queue = [...carriers];
  for (let head = 0; head < queue.length; head++) {
    const hops = distance.get(queue[head])! + 1;
    for (const dependent of analysis.dependents.get(queue[head]) ?? []) {
      if (within.has(dependent) && !distance.has(dependent)) {
        distance.set(dependent, hops);
        queue.push(dependent);
      }
    }
  }
  return distance;
}
