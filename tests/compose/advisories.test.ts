import { describe, it, expect } from 'vitest';
import { serialize } from '../../src/serialize.ts';
import { analyze } from '../../src/compose/analysis.ts';
import { advisoryMap, transitiveAdvisories } from '../../src/compose/advisories.ts';
import { transitiveRollups } from '../../src/compose/transitive.ts';
import { composeFullBundle, composeListingBundle } from '../../src/compose/bundles.ts';
import { composeCard, composeRecord, type PackageCard, type PackageRecord } from '../../src/compose/package.ts';
import type { FullAdvisory, TransitiveAdvisory } from '../../src/compose/advisories.ts';
import type { CatalogState, OsvRecord } from '../../src/compose/types.ts';
import { advisory, catalogState, manifest, sha } from '../helpers/state.ts';
import { SCHEMA_VERSION } from '../helpers/spec.ts';

/**
 * A dependency graph in one line per package: `{ a: ['b', 'c'] }` makes runtime edges;
 * `{ a: { build: ['b'] } }` build ones. Every advisory affects every version of its carriers.
 */
function graph(edges: Record<string, string[] | { build?: string[]; runtime?: string[] }>, carriers: Record<string, string | string[]> = {}, extra: OsvRecord[] = []): CatalogState {
  return catalogState({
    packages: Object.entries(edges).map(([name, deps]) => (Array.isArray(deps) ? manifest(name, { runtime: deps }) : manifest(name, deps))),
    advisories: [...Object.entries(carriers).map(([id, pkg]) => advisory(id, { package: pkg })), ...extra],
  });
}

/** Each package's rollup as `id: path` strings, for rows that read like the graph. */
function rollup(state: CatalogState, name: string): string[] {
  return transitiveAdvisories(state, analyze(state), name.toLowerCase()).map((t) => `${t.advisoryId}: ${t.culpritPath.join('>')}`);
}

describe('transitive advisories (DECISIONS.md 2)', () => {
  it.each([
    ['a chain reaches the culprit through every hop', { a: ['b'], b: ['c'], c: [] }, { X: 'c' }, 'a', ['X: a>b>c']],
    ['a direct dependency is a path of two', { a: ['b'], b: [] }, { X: 'b' }, 'a', ['X: a>b']],
    ['a package with no deps has no rollup', { a: [], b: ['a'] }, { X: 'a' }, 'a', []],
    ['the shortest path wins over a path with earlier names', { a: ['b', 'z'], b: ['c'], c: ['d'], z: ['d'], d: [] }, { X: 'd' }, 'a', ['X: a>z>d']],
    ['diamond a>b>d, a>c>d: the path whose names compare first (manifest order does not matter)', { a: ['c', 'b'], b: ['d'], c: ['d'], d: [] }, { X: 'd' }, 'a', ['X: a>b>d']],
    ['a prefix name compares first: c before c2', { a: ['c2', 'c'], c: ['d'], c2: ['d'], d: [] }, { X: 'd' }, 'a', ['X: a>c>d']],
    [
      'element by element: the first differing element decides, not later ones',
      { a: ['c', 'b'], b: ['y'], c: ['x'], x: ['d'], y: ['d'], d: [] },
      { X: 'd' },
      'a',
      ['X: a>b>y>d'],
    ],
    ['two culprits at the same depth: one entry, the earlier name', { a: ['q', 'p'], p: [], q: [] }, { X: ['q', 'p'] }, 'a', ['X: a>p']],
    ['two culprits at different depths: one entry, the nearer one', { a: ['m', 'n'], m: ['k'], k: [], n: [] }, { X: ['k', 'n'] }, 'a', ['X: a>n']],
    [
      'two culprits, same depth, tie broken at the culprit itself',
      { a: ['b'], b: ['e', 'd'], d: [], e: [] },
      { X: ['e', 'd'] },
      'a',
      ['X: a>b>d'],
    ],
    ['the package\'s own direct advisories are not in its rollup', { a: ['b'], b: [] }, { X: ['a', 'b'], Y: 'b' }, 'a', ['Y: a>b']],
    ['build edges count', { a: { build: ['b'] }, b: [] }, { X: 'b' }, 'a', ['X: a>b']],
    ['build and runtime edges both count', { a: { build: ['b'], runtime: ['c'] }, b: [], c: [] }, { X: 'b', Y: 'c' }, 'a', ['X: a>b', 'Y: a>c']],
    ['a path may mix build and runtime edges', { a: { build: ['b'] }, b: { runtime: ['c'] }, c: [] }, { X: 'c' }, 'a', ['X: a>b>c']],
    ['self loop x>x: its own advisory is not a transitive one', { x: ['x'] }, { X: 'x' }, 'x', []],
    ['self loop x>x with another dep: terminates, reaches the dep', { x: ['x', 'b'], b: [] }, { Y: 'b' }, 'x', ['Y: x>b']],
    ['self loop on the culprit: terminates, path through it once', { y: ['x'], x: ['x'] }, { X: 'x' }, 'y', ['X: y>x']],
    ['3-cycle a>b>c>a, from a', { a: ['b'], b: ['c'], c: ['a'] }, { X: 'c', Y: 'a' }, 'a', ['X: a>b>c']],
    ['3-cycle a>b>c>a, from b', { a: ['b'], b: ['c'], c: ['a'] }, { X: 'c', Y: 'a' }, 'b', ['X: b>c', 'Y: b>c>a']],
    ['3-cycle a>b>c>a, from c', { a: ['b'], b: ['c'], c: ['a'] }, { X: 'c', Y: 'a' }, 'c', ['Y: c>a']],
    ['a dangling dependency is ignored', { a: ['ghost', 'b'], b: ['ghost2'] }, { X: 'b' }, 'a', ['X: a>b']],
    ['an advisory on a package not in the catalog reaches nobody', { a: ['ghost'] }, { X: 'ghost' }, 'a', []],
    ['entries sorted by advisory id (code-unit order)', { a: ['b'], b: [] }, { 'ADV-2': 'b', 'ADV-10': 'b', 'ADV-1': 'b' }, 'a', ['ADV-1: a>b', 'ADV-10: a>b', 'ADV-2: a>b']],
    [
      'several advisories along one path each get their own nearest culprit',
      { a: ['b'], b: ['c'], c: ['d'], d: [] },
      { X: ['d', 'b'], Y: 'c', Z: 'd' },
      'a',
      ['X: a>b', 'Y: a>b>c', 'Z: a>b>c>d'],
    ],
  ])('%s', (_why, edges, carriers, root, expected) => {
    expect(rollup(graph(edges, carriers), root)).toEqual(expected);
  });

  it.each([
    [
      'names compare case-insensitively (DECISIONS 4: names are case-insensitive): alpha before Beta',
      { a: ['Beta', 'alpha'], Beta: [], alpha: [] },
      { X: ['Beta', 'alpha'] },
      'a',
      ['X: a>alpha'],
    ],
    [
      'dependency spellings resolve to the canonical name in the path (DECISIONS 4)',
      { app: ['LIBB'], LibB: ['zlib'], ZLib: [] },
      { X: 'zlib', Y: 'libb' },
      'app',
      ['X: app>LibB>ZLib', 'Y: app>LibB'],
    ],
  ])('%s', (_why, edges, carriers, root, expected) => {
    expect(rollup(graph(edges, carriers), root)).toEqual(expected);
  });

  it.each([
    ['withdrawn on the culprit', [advisory('W', { package: 'b', withdrawn: '2026-02-01T00:00:00Z' })], []],
    ['not affecting the culprit\'s version', [advisory('F', { package: 'b', fixed: '1.0.0' })], []],
    ['affecting another version only', [advisory('V', { package: 'b', versions: ['0.9'] })], []],
    [
      'active on a farther package only',
      [advisory('F', { package: ['b', 'c'], fixed: '1.0.0', affected: [{ package: { name: 'c' }, versions: ['1.0.0'] }] })],
      ['F: a>b>c'],
    ],
  ])('only active advisories count (CATALOG-FORMAT "active"): %s', (_why, advisories, expected) => {
    expect(rollup(graph({ a: ['b'], b: ['c'], c: [] }, {}, advisories), 'a')).toEqual(expected);
  });
});

describe('advisory map of the full bundle (SPEC.md full bundle rules 1-3, DECISIONS.md 3)', () => {
  const state = catalogState({
    packages: [
      manifest('zlib', { version: '1.2.11' }),
      manifest('Curl', { version: '8.0.0', runtime: ['zlib'] }),
      manifest('bzip2', { version: '1.0.6' }),
      manifest('apr', { version: '2.0.0' }),
      manifest('png', { version: '1.6.0', runtime: ['zlib'] }),
    ],
    advisories: [
      advisory('OSV-1', {
        package: 'aaa-not-in-catalog',
        summary: 'Shared',
        severity: 'HIGH',
        affected: [
          { package: { name: 'apr' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '1.9' }] }] },
          { package: { name: 'ZLIB' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '1.2.12' }] }] },
          { package: { name: 'curl' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '7.0' }, { fixed: '8.1.0' }] }] },
          { package: { name: 'Bzip2' }, versions: ['1.0.6'] },
        ],
      }),
      advisory('OSV-2', { package: 'png', severity: 'LOW' }),
      advisory('OSV-3', { package: 'zlib', withdrawn: '2026-02-01T00:00:00Z' }),
      advisory('OSV-4', { package: 'zlib', fixed: '1.0' }),
      advisory('OSV-5', { package: 'ghost' }),
    ],
  });
  const analysis = analyze(state);
  const map = advisoryMap(state, analysis);

  it('ships each active advisory once, keyed by id; withdrawn, inactive and uncatalogued ones are absent', () => {
    expect(Object.keys(map)).toEqual(['OSV-1', 'OSV-2']);
    for (const [id, adv] of Object.entries(map)) expect(adv.id).toBe(id);
  });

  it('affectedPackage is the alphabetically first package the advisory is ACTIVE on, in canonical spelling', () => {
    // apr is named and present but fixed; "aaa-not-in-catalog" is not present; bzip2 < Curl < zlib.
    expect(map['OSV-1']).toEqual({
      id: 'OSV-1',
      summary: 'Shared',
      details: null,
      aliases: [],
      published: null,
      modified: '2026-01-01T00:00:00Z',
      severity: 'high',
      cvss: null,
      affectedPackage: 'bzip2',
      fixedIn: [],
      references: [],
    });
  });

  it.each([
    ['bzip2', 'bzip2', []],
    ['curl', 'Curl', ['8.1.0']],
    ['zlib', 'zlib', ['1.2.12']],
  ])('each package\'s own advisories entry names that package (rule 3): %s', (key, name, fixedIn) => {
    const own = composeRecord(state, analysis, key).advisories;
    expect(own.map((a) => [a.id, a.affectedPackage, a.fixedIn])).toEqual([['OSV-1', name, fixedIn]]);
  });

  it('apr, named but past the fix, has no advisory', () => {
    expect(composeRecord(state, analysis, 'apr').advisories).toEqual([]);
  });

  it('once the alphabetically first carrier is fixed, the next active one is affectedPackage', () => {
    const later = catalogState({
      packages: [...[...state.packages.values()].filter((p) => p.manifest.name !== 'bzip2'), { manifest: manifest('bzip2', { version: '1.0.8' }), scorecard: null }],
      advisories: [...state.advisories.values()],
    });
    expect(advisoryMap(later, analyze(later))['OSV-1'].affectedPackage).toBe('Curl');
  });
});

describe('composeFullBundle (SPEC.md "Full bundle")', () => {
  const state = catalogState({
    commit: { sha: sha(0xf00), pushedAt: '2026-03-02T00:00:00Z' },
    packages: [
      manifest('Zlib', { categories: ['compression'] }),
      manifest('curl', { runtime: ['zlib', 'openssl'], categories: ['networking', 'http'] }),
      manifest('openssl', { categories: ['crypto'] }),
      manifest('apr', { build: ['curl'], runtime: ['Zlib'] }),
      manifest('Bzip', { categories: ['compression'], runtime: ['ghost'] }),
    ],
    advisories: [
      advisory('Z-1', { package: 'zlib' }),
      advisory('O-1', { package: 'openssl', severity: 'HIGH' }),
      advisory('A-1', { package: ['openssl', 'zlib'] }),
      advisory('W-1', { package: 'curl', withdrawn: '2026-02-01T00:00:00Z' }),
    ],
  });
  const analysis = analyze(state);
  // Composed whole, the bundle holds plain arrays and a plain map (not StoredArray/RawJson).
  const bundle = composeFullBundle(state, analysis) as ReturnType<typeof composeFullBundle> & {
    packages: PackageRecord[];
    advisories: Record<string, FullAdvisory>;
    transitiveAdvisories: TransitiveAdvisory[];
  };

  it('has exactly the bundle members', () => {
    expect(Object.keys(bundle).sort()).toEqual(['advisories', 'commitSha', 'packages', 'pushedAt', 'schemaVersion', 'transitiveAdvisories']);
    expect(bundle).toMatchObject({ schemaVersion: SCHEMA_VERSION, commitSha: sha(0xf00), pushedAt: '2026-03-02T00:00:00Z' });
  });

  it('lists every package record, sorted by name case-insensitively, each without a rollup', () => {
    expect(bundle.packages.map((p) => p.name)).toEqual(['apr', 'Bzip', 'curl', 'openssl', 'Zlib']);
    expect(bundle.packages).toEqual(['apr', 'bzip', 'curl', 'openssl', 'zlib'].map((key) => composeRecord(state, analysis, key)));
    for (const pkg of bundle.packages) expect(pkg).not.toHaveProperty('transitiveAdvisories');
  });

  it('transitiveAdvisories are sorted by (package, advisoryId) with exact paths', () => {
    expect(bundle.transitiveAdvisories).toEqual([
      { advisoryId: 'A-1', culpritPath: ['apr', 'Zlib'] },
      { advisoryId: 'O-1', culpritPath: ['apr', 'curl', 'openssl'] },
      { advisoryId: 'Z-1', culpritPath: ['apr', 'Zlib'] },
      { advisoryId: 'A-1', culpritPath: ['curl', 'openssl'] },
      { advisoryId: 'O-1', culpritPath: ['curl', 'openssl'] },
      { advisoryId: 'Z-1', culpritPath: ['curl', 'Zlib'] },
    ]);
  });

  it('every advisoryId of the rollup resolves through the advisory map (rule 1)', () => {
    expect(Object.keys(bundle.advisories)).toEqual(['A-1', 'O-1', 'Z-1']);
    for (const entry of bundle.transitiveAdvisories) expect(bundle.advisories).toHaveProperty(entry.advisoryId);
    expect(bundle.advisories['A-1'].affectedPackage).toBe('openssl');
    expect(bundle.advisories['Z-1'].affectedPackage).toBe('Zlib');
  });

  it('composition is pure: the same state gives the same bytes', () => {
    expect(serialize(composeFullBundle(state, analyze(state)))).toBe(serialize(bundle));
  });
});

describe('composeListingBundle (SPEC.md "Listing bundle")', () => {
  it('is cards in name order plus allCategories sorted and unique', () => {
    const state = catalogState({
      commit: { sha: sha(7), pushedAt: '2026-03-03T00:00:00Z' },
      packages: [
        manifest('zlib', { categories: ['compression', 'archiving'] }),
        manifest('Curl', { categories: ['networking', 'http'] }),
        manifest('bzip2', { categories: ['compression'] }),
        manifest('empty'),
      ],
      advisories: [advisory('Z-1', { package: 'zlib', severity: 'MODERATE', summary: 'Z' })],
    });
    const analysis = analyze(state);
    const bundle = composeListingBundle(state, analysis) as ReturnType<typeof composeListingBundle> & { packages: PackageCard[] };
    expect(bundle).toEqual({
      schemaVersion: SCHEMA_VERSION,
      commitSha: sha(7),
      pushedAt: '2026-03-03T00:00:00Z',
      packages: ['bzip2', 'curl', 'empty', 'zlib'].map((key) => composeCard(state, analysis, key)),
      allCategories: ['archiving', 'compression', 'http', 'networking'],
    });
    expect(bundle.packages[3]).toMatchObject({ name: 'zlib', advisories: [{ id: 'Z-1', severity: 'medium', summary: 'Z' }], maxSeverity: 'medium' });
  });

  it('an empty catalog has no packages and no categories', () => {
    const state = catalogState({ packages: [] });
    expect(serialize(composeListingBundle(state, analyze(state)))).toBe(
      `{"allCategories":[],"commitSha":"${sha(1)}","packages":[],"pushedAt":"2026-03-01T12:00:00Z","schemaVersion":${SCHEMA_VERSION}}`,
    );
  });
});

/** DECISIONS.md 2 read literally: a breadth-first search from the package over sorted name keys; the first culprit met gives the entry. */
function referenceRollup(state: CatalogState, name: string): string[] {
  const analysis = analyze(state);
  const key = name.toLowerCase();
  const own = new Set(analysis.activeIds.get(key) ?? []);
  const found = new Map<string, string[]>();
  const previous = new Map<string, string | null>([[key, null]]);
  const queue = [key];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head];
    for (const id of node === key ? [] : (analysis.activeIds.get(node) ?? [])) {
      if (own.has(id) || found.has(id)) continue;
      const path: string[] = [];
      for (let step: string | null = node; step !== null; step = previous.get(step)!) path.unshift(state.packages.get(step)!.manifest.name);
      found.set(id, path);
    }
    for (const next of analysis.edges.get(node) ?? []) if (!previous.has(next)) queue.push(next), previous.set(next, node);
  }
  return [...found.keys()].sort().map((id) => `${id}: ${found.get(id)!.join('>')}`);
}

describe('transitive advisories computed per advisory equal the breadth-first search from each package', () => {
  /** A seeded graph: each package depends on up to 4 others, cycles and self loops included. */
  function randomGraph(seed: number, size: number): { edges: Record<string, string[]>; carriers: Record<string, string[]> } {
    let x = seed;
    const next = (n: number) => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) % n);
    const name = (i: number) => `p${i}`;
    const edges: Record<string, string[]> = {};
    for (let i = 0; i < size; i++) edges[name(i)] = Array.from({ length: next(5) }, () => name(next(size)));
    const carriers: Record<string, string[]> = {};
    for (let a = 0; a < 4; a++) carriers[`ADV-${a}`] = Array.from({ length: 1 + next(3) }, () => name(next(size)));
    // Advisories on the same packages as another (named in another order): their paths are found once for the set.
    carriers['ADV-4'] = [...carriers['ADV-0']!].reverse();
    carriers['ADV-10'] = [...carriers['ADV-1']!];
    return { edges, carriers };
  }

  it.each([1, 2, 3, 4, 5, 6, 7, 8])('seed %i: every package of a random graph', (seed) => {
    const { edges, carriers } = randomGraph(seed, 40);
    const state = graph(edges, carriers);
    for (const name of Object.keys(edges)) expect(rollup(state, name), name).toEqual(referenceRollup(state, name));
  });

  it.each([1, 2, 3, 4])('seed %i: the rollups of every package at once, as the build asks for them, equal each one asked alone', (seed) => {
    const { edges, carriers } = randomGraph(seed, 40);
    const state = graph(edges, carriers);
    const names = Object.keys(edges);
    const together = [...transitiveRollups(state, analyze(state), [...names.map((name) => name.toLowerCase()), 'absent'])];
    expect(together.map(([key]) => key)).toEqual([...names.map((name) => name.toLowerCase()), 'absent']);
    expect(together.at(-1)).toEqual(['absent', []]);
    for (const [key, entries] of together.slice(0, -1)) {
      expect(entries.map((t) => `${t.advisoryId}: ${t.culpritPath.join('>')}`), key).toEqual(referenceRollup(state, key));
    }
  });
});

describe(`culprit paths hold at most ${64} names (docs/decisions.md "Transitive rollups")`, () => {
  // ring-000 -> ring-001 -> ... -> ring-199 -> ring-000, one advisory on ring-000.
  const size = 200;
  const ringName = (i: number) => `ring-${String(i % size).padStart(3, '0')}`;
  const ring = Object.fromEntries(Array.from({ length: size }, (_, i) => [ringName(i), [ringName(i + 1)]]));
  const state = graph(ring, { X: 'ring-000' });

  it('a path of 64 names or fewer is whole', () => {
    // ring-137 -> ... -> ring-199 -> ring-000: 64 names.
    expect(transitiveAdvisories(state, analyze(state), 'ring-137')[0].culpritPath).toEqual([...Array.from({ length: 63 }, (_, i) => ringName(137 + i)), 'ring-000']);
  });

  it('a longer one keeps its first 63 packages and the culprit; the 63rd package\'s entry continues it', () => {
    const analysis = analyze(state);
    const [entry] = transitiveAdvisories(state, analysis, 'ring-001');
    expect(entry.culpritPath).toEqual([...Array.from({ length: 63 }, (_, i) => ringName(1 + i)), 'ring-000']);
    const [continued] = transitiveAdvisories(state, analysis, 'ring-063');
    expect(continued.culpritPath.slice(0, 2)).toEqual(['ring-063', 'ring-064']);
    expect(continued.culpritPath.at(-1)).toBe('ring-000');
  });
});
