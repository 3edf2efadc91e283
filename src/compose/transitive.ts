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
import type { AdvisoryGraph, CatalogAnalysis } from './analysis.ts';
import type { CatalogState } from './types.ts';

export { MAX_CULPRIT_PATH };

/**
 * The transitive entries of each package of `keys` (name keys; absent packages get none),
 * sorted by advisory id, one package at a time in the order of `keys`, so that a caller can
 * serialize each and let it go: the rollups of a whole catalog are its (package, advisory)
 * pairs times their paths' lengths (10 million pairs and 350 million names at 100,000 packages
 * of the benchmark's shape), far more than the graph. A path longer than MAX_CULPRIT_PATH keeps
 * its first MAX_CULPRIT_PATH - 1 packages and the culprit (docs/decisions.md "Transitive rollups").
 *
 * Advisories active on the same packages share their distances and paths: the walk is one per
 * set of carriers (the core libraries carry most advisories), and a package's path to a set is
 * found once and named by each advisory of the set.
 *
 * `advisories`: only the entries of these advisory ids (all when absent). An advisory's entries
 * depend only on the graph and the packages it is active on, so a commit changes only the entries
 * of the advisories whose carriers it changed or that its new dependencies reroute
 * (reroutedAdvisories; build/composer.ts keeps the others).
 */
export function* transitiveRollups(
  state: CatalogState,
  analysis: CatalogAnalysis,
  keys: Iterable<string>,
  advisories?: ReadonlySet<string>,
): Generator<[string, TransitiveAdvisory[]]> {
  const unique = [...new Set(keys)];
  const roots = unique.filter((key) => state.packages.has(key));
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
  // The advisories active somewhere within reach, by the packages they are active on there.
  const carriers = new Map<string, string[]>();
  for (const key of reach) {
    for (const id of analysis.activeIds.get(key) ?? []) {
      if (advisories && !advisories.has(id)) continue;
      const list = carriers.get(id);
      if (list) list.push(key);
      else carriers.set(id, [key]);
    }
  }
  const groups = new Map<string, CarrierSet>();
  for (const id of [...carriers.keys()].sort()) {
    const list = carriers.get(id)!;
    const setKey = list.join('\n');
    let group = groups.get(setKey);
    if (!group) groups.set(setKey, (group = new CarrierSet(list, analysis, reach)));
    group.ids.push(id);
  }
  // Which sets each root reaches (it carries none of their advisories itself).
  const reached = new Map<string, CarrierSet[]>();
  const wanted = new Set(roots);
  for (const group of groups.values()) {
    for (const [key, hops] of group.distance) {
      if (hops === 0 || !wanted.has(key)) continue;
      const list = reached.get(key);
      if (list) list.push(group);
      else reached.set(key, [group]);
    }
  }

  const nameOf = (key: string) => state.packages.get(key)!.manifest.name;
  for (const key of unique) {
    const entries: TransitiveAdvisory[] = [];
    for (const group of reached.get(key) ?? []) {
      const culpritPath = group.pathOf(key, nameOf);
      for (const advisoryId of group.ids) entries.push({ advisoryId, culpritPath });
    }
    yield [key, entries.sort(byAdvisoryId)];
  }
}

/** The order of a package's transitive entries: by advisory id (each advisory once per package). */
const byAdvisoryId = (a: TransitiveAdvisory, b: TransitiveAdvisory): number => (a.advisoryId < b.advisoryId ? -1 : a.advisoryId > b.advisoryId ? 1 : 0);

/** The packages some advisories are active on (the same for each), and every package's way to the nearest of them. */
class CarrierSet {
  readonly ids: string[] = [];
  readonly distance: Map<string, number>;
  readonly #analysis: CatalogAnalysis;
  /** The culprit at the end of a package's path, remembered for every package along the way. */
  readonly #culprits = new Map<string, string>();

  constructor(carriers: readonly string[], analysis: CatalogAnalysis, within: ReadonlySet<string>) {
    this.#analysis = analysis;
    this.distance = distancesTo(carriers, analysis, within);
  }

  /** The dependency (first by name key) one step nearer a carrier. */
  #nextHop(key: string): string {
    const wanted = this.distance.get(key)! - 1;
    return this.#analysis.edges.get(key)!.find((dependency) => this.distance.get(dependency) === wanted)!;
  }

  #culpritOf(key: string): string {
    const walked: string[] = [];
    let step = key;
    let culprit = this.distance.get(step) === 0 ? step : this.#culprits.get(step);
    while (culprit === undefined) {
      walked.push(step);
      step = this.#nextHop(step);
      culprit = this.distance.get(step) === 0 ? step : this.#culprits.get(step);
    }
    for (const key of walked) this.#culprits.set(key, culprit);
    return culprit;
  }

  /** The culprit path of `key` (a package that reaches the set and is not in it), cut at MAX_CULPRIT_PATH names. */
  pathOf(key: string, nameOf: (key: string) => string): string[] {
    const path = [nameOf(key)];
    let step = key;
    while (this.distance.get(step)! > 1 && path.length < MAX_CULPRIT_PATH - 1) path.push(nameOf((step = this.#nextHop(step))));
    path.push(nameOf(this.distance.get(step) === 1 ? this.#nextHop(step) : this.#culpritOf(step)));
    return path;
  }
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

/**
 * The advisories whose rollup entries new dependencies of the packages `keys` may have changed:
 * those whose nearest carrier is at a different distance from one of them, or is reached through
 * a different first dependency, in `after` than in `before`. `keys` must hold every package whose
 * dependencies differ between the two. Every other advisory's entries stay as they were in every
 * package, provided the packages each advisory is active on are the same in both (the caller adds
 * those whose carriers moved): a package's distance and next hop follow from those of its
 * dependencies, so when they are the same at every package whose dependencies changed, they are
 * the same everywhere, and so is every culprit path.
 */
export function reroutedAdvisories(before: AdvisoryGraph, after: AdvisoryGraph, keys: Iterable<string>): Set<string> {
  const rerouted = new Set<string>();
  // The dependents of a core library removed share their dependencies: each one's walk is made once.
  const [was, is] = [new Routes(before), new Routes(after)];
  for (const key of keys) {
    const [routesBefore, routesAfter] = [was.from(key), is.from(key)];
    for (const [id, route] of routesBefore) {
      const other = routesAfter.get(id);
      if (!other || other.distance !== route.distance || other.hop !== route.hop) rerouted.add(id);
    }
    for (const id of routesAfter.keys()) if (!routesBefore.has(id)) rerouted.add(id);
  }
  return rerouted;
}

interface Route {
  /** Hops to the nearest package the advisory is active on (0: this one). */
  distance: number;
  /** The first dependency (by name key) on a shortest way there; null when the package carries it. */
  hop: string | null;
}

/** The routes of packages to the advisories they reach, in one analysis. */
class Routes {
  readonly #analysis: AdvisoryGraph;
  readonly #nearest = new Map<string, Map<string, number>>();

  constructor(analysis: AdvisoryGraph) {
    this.#analysis = analysis;
  }

  /** Each advisory `key` reaches or carries, with its route (the one CarrierSet's hop rule takes). */
  from(key: string): Map<string, Route> {
    const routes = new Map<string, Route>();
    for (const id of this.#analysis.activeIds.get(key) ?? []) routes.set(id, { distance: 0, hop: null });
    for (const dependency of this.#analysis.edges.get(key) ?? []) {
      for (const [id, distance] of this.#nearestCarriers(dependency)) {
        const known = routes.get(id);
        if (!known || distance + 1 < known.distance) routes.set(id, { distance: distance + 1, hop: dependency });
      }
    }
    return routes;
  }

  /** The distance from `start` to the nearest carrier of each advisory it reaches (breadth-first over its closure). */
  #nearestCarriers(start: string): Map<string, number> {
    const known = this.#nearest.get(start);
    if (known) return known;
    const nearest = new Map<string, number>();
    const depth = new Map([[start, 0]]);
    const queue = [start];
    for (let head = 0; head < queue.length; head++) {
      const key = queue[head];
      const hops = depth.get(key)!;
      for (const id of this.#analysis.activeIds.get(key) ?? []) if (!nearest.has(id)) nearest.set(id, hops);
      for (const next of this.#analysis.edges.get(key) ?? []) {
        if (!depth.has(next)) {
          depth.set(next, hops + 1);
          queue.push(next);
        }
      }
    }
    this.#nearest.set(start, nearest);
    return nearest;
  }
}
