/**
 * Per-package reads at any sha (gateway/catalog.ts): one package's record, its transitive
 * advisories and its build and runtime closure, read from the state root's keyed chunks.
 *
 * The story (a catalog a platform team might keep):
 *   c0  cmake (a build tool that builds itself with ninja, which needs cmake: a cycle),
 *       zlib 1.3.1, openssl -> zlib, curl -> openssl + cmake (build) + `quiche` (not in the catalog)
 *   c1  advisory ZLIB-1 on zlib 1.3.1: curl and openssl reach it
 *   c2  zlib 1.3.2 fixes it
 * The reads at c1 must still show the advisory after c2 is built: an auditor's answer for that day.
 *
 * And the demo catalog's whole history: at every commit, every package's record and transitive
 * entries read one by one equal those of the full bundle the build assembled.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Catalog } from '../../gateway/catalog.ts';
import { createCatalogRepo } from '../../demo/catalog-writer.ts';
import { makeDemoCatalog } from '../../demo/make-demo-catalog.ts';
import { advisory, build, hoursLater, manifest, temporaryDirectory } from '../helpers/catalog.ts';
import { assembleBody, readStateRoot, type StateRoot } from '../../src/store/layout.ts';
import { join } from 'node:path';

const quiet = () => {};

describe('per-package reads at any sha: the story', () => {
  let catalog: Catalog;
  let shas: string[];
  const root = async (index: number): Promise<StateRoot> => (await catalog.stateRoot(shas[index]))!;

  beforeAll(async () => {
    const dir = await temporaryDirectory();
    const repo = join(dir, 'catalog');
    shas = await createCatalogRepo(repo, [
      {
        message: 'import',
        time: hoursLater(0),
        files: {
          'packages/cmake/manifest.json': manifest('cmake', { version: '3.30.0', dependencies: { build: ['ninja'] } }),
          'packages/ninja/manifest.json': manifest('ninja', { version: '1.12.1', dependencies: { build: ['cmake'] } }),
          'packages/zlib/manifest.json': manifest('zlib', { version: '1.3.1' }),
          'packages/openssl/manifest.json': manifest('openssl', { version: '3.3.0', dependencies: { runtime: ['zlib'] } }),
          'packages/curl/manifest.json': manifest('curl', { version: '8.9.0', dependencies: { build: ['cmake'], runtime: ['openssl', 'quiche'] } }),
        },
      },
      { message: 'ZLIB-1', time: hoursLater(1), files: { 'advisories/ZLIB-1.json': advisory('ZLIB-1', { package: 'zlib', fixed: '1.3.2', severity: 'HIGH' }) } },
      { message: 'zlib 1.3.2', time: hoursLater(2), files: { 'packages/zlib/manifest.json': manifest('zlib', { version: '1.3.2' }) } },
    ]);
    const out = join(dir, 'out');
    await build(repo, out);
    catalog = new Catalog(out, quiet);
  });

  it('reads one record at an old sha, as it was then', async () => {
    expect((await catalog.record(await root(1), 'zlib'))!.version).toBe('1.3.1');
    expect((await catalog.record(await root(1), 'zlib'))!.advisories.map((item) => item.id)).toEqual(['ZLIB-1']);
    expect((await catalog.record(await root(2), 'zlib'))!.version).toBe('1.3.2');
    expect((await catalog.record(await root(2), 'zlib'))!.advisories).toEqual([]);
  });

  it('answers null for a package the commit does not have (a dangling name)', async () => {
    expect(await catalog.record(await root(1), 'quiche')).toBeNull();
    expect(await catalog.closure(await root(1), 'quiche')).toBeNull();
  });

  it('reads the transitive entries that start at a package, with the path to the culprit', async () => {
    expect(await catalog.transitive(await root(1), 'curl')).toEqual([{ advisoryId: 'ZLIB-1', culpritPath: ['curl', 'openssl', 'zlib'] }]);
    expect(await catalog.transitive(await root(1), 'openssl')).toEqual([{ advisoryId: 'ZLIB-1', culpritPath: ['openssl', 'zlib'] }]);
    // zlib's own advisory is direct, not transitive; after the fix nobody reaches it.
    expect(await catalog.transitive(await root(1), 'zlib')).toEqual([]);
    expect(await catalog.transitive(await root(2), 'curl')).toEqual([]);
  });

  it('walks the build and runtime closure through a cycle, keeping dangling names', async () => {
    const closure = (await catalog.closure(await root(1), 'curl'))!;
    expect(closure.root.name).toBe('curl');
    expect([...closure.packages.keys()]).toEqual(['cmake', 'openssl', 'ninja', 'zlib']);
    expect(closure.packages.get('zlib')!.version).toBe('1.3.1');
    expect(closure.missing).toEqual(['quiche']);
    const cycle = (await catalog.closure(await root(0), 'cmake'))!;
    expect([...cycle.packages.keys()]).toEqual(['ninja']);
    expect(cycle.missing).toEqual([]);
  });
});

describe('per-package reads at any sha: the demo history', () => {
  it('equal the full bundle at every commit, package by package', async () => {
    const dir = await temporaryDirectory();
    const shas = await makeDemoCatalog(join(dir, 'catalog'));
    const out = join(dir, 'out');
    await build(join(dir, 'catalog'), out);
    const catalog = new Catalog(out, quiet);
    let checked = 0;
    for (const sha of shas) {
      const root = (await readStateRoot(out, sha))!;
      const bundle = JSON.parse((await assembleBody(out, root.full)).toString('utf8')) as {
        packages: { name: string }[];
        transitiveAdvisories: { advisoryId: string; culpritPath: string[] }[];
      };
      for (const record of bundle.packages) {
        const key = record.name.toLowerCase();
        expect(await catalog.record(root, key)).toEqual(record);
        expect(await catalog.transitive(root, key)).toEqual(bundle.transitiveAdvisories.filter((entry) => entry.culpritPath[0] === record.name));
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });
});
