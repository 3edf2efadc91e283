/** What the build makes of the fixture story, commit by commit (CATALOG-FORMAT.md, DECISIONS.md). */
import { beforeAll, describe, expect, it } from 'vitest';
import { createCatalogRepo } from '../../demo/catalog-writer.ts';
import { readFile, writeFile } from 'node:fs/promises';
import { paths, readStateRoot } from '../../src/store/layout.ts';
import { build, manifest, depsOf, pinnedBodies, pinnedJson, publicFiles, releaseFile, temporaryDirectory, versionsOf } from '../helpers/catalog.ts';
import { STORY } from './story.ts';

let out: string;
let repo: string;
let shas: string[];

beforeAll(async () => {
  repo = `${await temporaryDirectory()}/catalog`;
  out = `${await temporaryDirectory()}/out`;
  shas = await createCatalogRepo(repo, STORY);
  await build(repo, out);
});

const names = (listing: { packages: { name: string }[] }) => listing.packages.map((pkg) => pkg.name);

describe('every first-parent commit is a catalog state', () => {
  it('publishes the chain newest first with commit messages and committer times', async () => {
    const chain = await releaseFile(out, 'chain.json');
    expect(chain.map((commit: { sha: string }) => commit.sha)).toEqual([...shas].reverse());
    expect(chain.at(-1)).toEqual({ sha: shas[0], pushedAt: '2026-01-01T00:00:00Z', message: 'Import zlib, openssl, curl, cmake and llama.cpp' });
  });

  it('writes a state for every commit, each pointing at its first parent', async () => {
    for (const [index, sha] of shas.entries()) {
      const root = await readStateRoot(out, sha);
      expect(root?.parent).toBe(index === 0 ? null : shas[index - 1]);
      expect(root?.commit.sha).toBe(sha);
    }
  });

  it('lists the packages present at each commit, sorted by name', async () => {
    expect(names(await pinnedJson(out, shas[0], 'listing'))).toEqual(['cmake', 'curl', 'llama.cpp', 'openssl', 'zlib']);
    expect(names(await pinnedJson(out, shas[6], 'listing'))).toEqual(['cmake', 'curl', 'jq', 'openapi', 'openssl', 'zlib']);
    expect(names(await pinnedJson(out, shas[7], 'listing'))).toEqual(['cmake', 'curl', 'jq', 'oniguruma', 'openapi', 'openssl', 'sqlite', 'zlib']);
  });

  it('carries the commit and schemaVersion on every bundle', async () => {
    const listing = await pinnedJson(out, shas[2], 'listing');
    expect(listing).toMatchObject({ schemaVersion: 1, commitSha: shas[2], pushedAt: '2026-01-01T02:00:00Z' });
    expect(listing.allCategories).toEqual(['compression', 'ml', 'networking']);
  });
});

describe('advisories: active, transitive, fixed', () => {
  it('rolls an active advisory up to every package that reaches it, by the shortest path', async () => {
    const full = await pinnedJson(out, shas[1], 'full');
    expect(full.transitiveAdvisories).toEqual([
      { advisoryId: 'ADV-1', culpritPath: ['curl', 'zlib'] },
      { advisoryId: 'ADV-1', culpritPath: ['openssl', 'zlib'] },
    ]);
    expect(Object.keys(full.advisories)).toEqual(['ADV-1']);
    expect(full.advisories['ADV-1']).toMatchObject({ id: 'ADV-1', severity: 'high', affectedPackage: 'zlib', fixedIn: ['1.3.0'] });
    const zlib = full.packages.find((pkg: { name: string }) => pkg.name === 'zlib');
    expect(zlib.advisories.map((a: { id: string }) => a.id)).toEqual(['ADV-1']);
    expect(zlib.reverseDependencies).toEqual(['curl', 'openssl']);
  });

  it('drops the advisory everywhere once the fixed version ships, and the diff says so', async () => {
    const full = await pinnedJson(out, shas[4], 'full');
    expect(full.advisories).toEqual({});
    expect(full.transitiveAdvisories).toEqual([]);
    const diff = JSON.parse((await pinnedBodies(out, shas[4])).get('diff')!);
    expect(diff).toMatchObject({
      sha: shas[4],
      base: shas[3],
      added: [],
      removed: [],
      versionChanges: [{ name: 'zlib', fromVersion: '1.2.13', toVersion: '1.3.0', direction: 'upgrade' }],
      advisoryChanges: [{ name: 'zlib', fromCount: 1, toCount: 0, fromSeverity: 'high', toSeverity: null, added: [], removed: ['ADV-1'] }],
    });
  });

  it('shows the dependency rollup with each dependency\'s version, license and advisories', async () => {
    expect(await depsOf(out, shas[1], 'curl')).toEqual({
      schemaVersion: 1,
      name: 'curl',
      dependencies: [
        { name: 'cmake', scopes: ['build'], missing: false, version: '3.28.0', license: 'BSD-3-Clause', advisories: [], maxSeverity: null },
        { name: 'openssl', scopes: ['runtime'], missing: false, version: '3.0.0', license: 'Apache-2.0', advisories: [], maxSeverity: null },
        {
          name: 'zlib', scopes: ['runtime'], missing: false, version: '1.2.13', license: 'Zlib',
          advisories: [{ id: 'ADV-1', severity: 'high', summary: 'ADV-1 in zlib' }], maxSeverity: 'high',
        },
      ],
    });
  });
});

describe('dangling dependencies, removals and bad data', () => {
  it('keeps a dangling dependency, marked missing, until the package arrives', async () => {
    expect((await depsOf(out, shas[2], 'jq')).dependencies).toEqual([
      { name: 'oniguruma', scopes: ['runtime'], missing: true, version: null, license: null, advisories: [], maxSeverity: null },
    ]);
    expect((await depsOf(out, shas[7], 'jq')).dependencies[0]).toMatchObject({ name: 'oniguruma', missing: false, version: '6.9.9' });
  });

  it('reports a broken manifest with commit, path and reason, leaves it out and builds the rest', async () => {
    const root = await readStateRoot(out, shas[3]);
    expect(root?.diagnostics).toEqual([
      expect.objectContaining({ commit: shas[3], path: 'packages/sqlite/manifest.json', level: 'error', message: expect.stringContaining('not valid JSON') }),
    ]);
    expect(names(await pinnedJson(out, shas[3], 'listing'))).not.toContain('sqlite');
    const diagnostics = await releaseFile(out, 'diagnostics.json');
    expect(diagnostics.map((d: { commit: string; path: string }) => [d.commit, d.path])).toEqual([
      [shas[3], 'packages/sqlite/manifest.json'],
      [shas[5], 'packages/openapi/manifest.json'],
    ]);
  });

  it('reports a package name that a fixed route shadows, and still builds it', async () => {
    const root = await readStateRoot(out, shas[5]);
    expect(root?.diagnostics).toEqual([expect.objectContaining({ level: 'warning', message: expect.stringContaining('shadowed by a fixed route') })]);
    expect(names(await pinnedJson(out, shas[5], 'listing'))).toContain('openapi');
  });

  it('keeps the history of a removed package, but not its dependency rollup', async () => {
    expect(await depsOf(out, shas[6], 'llama.cpp')).toBeNull();
    const history = await versionsOf(out, shas[6], 'llama.cpp');
    expect(history.versions.map((v: { version: string; sha: string }) => [v.version, v.sha])).toEqual([['b100', shas[0]]]);
  });
});

describe('version history (CATALOG-FORMAT.md, DECISIONS.md 6)', () => {
  it('lists every shipped version newest first with sha, pushedAt, diff stats and dependency sets', async () => {
    const history = await versionsOf(out, shas[7], 'zlib');
    expect(history.versions).toEqual([
      {
        version: '1.3.0', sha: shas[4], pushedAt: '2026-01-01T04:00:00Z',
        // manifest.json: version, archive url and sha256 lines changed; notes.md: two new lines.
        filesChanged: 2, linesAdded: 5, linesRemoved: 3,
        dependencies: { build: [], runtime: [] },
      },
      {
        version: '1.2.13', sha: shas[0], pushedAt: '2026-01-01T00:00:00Z',
        // The whole first manifest: 14 lines of two-space indented JSON.
        filesChanged: 1, linesAdded: 14, linesRemoved: 0,
        dependencies: { build: [], runtime: [] },
      },
    ]);
  });

  it('counts every file of the package directory in the first version', async () => {
    const history = await versionsOf(out, shas[0], 'curl');
    expect(history.versions[0]).toMatchObject({ version: '8.0.0', filesChanged: 2, dependencies: { build: ['cmake'], runtime: ['openssl', 'zlib'] } });
  });
});

describe('floats-latest files of the tip', () => {
  it('writes each package envelope at the tip commit, and nothing for removed packages', async () => {
    const files = await publicFiles(out);
    const zlib = JSON.parse(files.get('api/pkgs/zlib.json')!);
    expect(zlib).toMatchObject({ schemaVersion: 1, commitSha: shas[7], pushedAt: '2026-01-01T07:00:00Z', package: { name: 'zlib', version: '1.3.0' } });
    expect(zlib.package.transitiveAdvisories).toBeUndefined();
    expect(files.has('api/pkgs/llama.cpp.json')).toBe(false);
    const full = await pinnedJson(out, shas[7], 'full');
    expect(zlib.package).toEqual(full.packages.find((pkg: { name: string }) => pkg.name === 'zlib'));
  });

  it('writes recent commits newest first', async () => {
    const recent = JSON.parse((await publicFiles(out)).get('api/pkgs/recent-commits.json')!);
    expect(recent).toHaveLength(8);
    expect(recent[0]).toEqual({ sha: shas[7], message: 'Add oniguruma; fix sqlite', pushedAt: '2026-01-01T07:00:00Z' });
  });

  it('never lets a package overwrite a fixed route\'s file (DECISIONS.md 4)', async () => {
    const files = await publicFiles(out);
    // The story has a package named `openapi`: the file is the OpenAPI document, not its record.
    expect(JSON.parse(files.get('api/pkgs/openapi.json')!)).toMatchObject({ openapi: expect.stringMatching(/^3\.1\./), paths: expect.any(Object) });
    const shadowRepo = `${await temporaryDirectory()}/shadow`;
    const shadowOut = `${await temporaryDirectory()}/out`;
    await createCatalogRepo(shadowRepo, [
      { message: 'a package named like a route', time: STORY[0].time, files: { 'packages/recent-commits/manifest.json': manifest('recent-commits') } },
    ]);
    await build(shadowRepo, shadowOut);
    const recent = JSON.parse((await publicFiles(shadowOut)).get('api/pkgs/recent-commits.json')!);
    expect(recent).toEqual([{ sha: expect.any(String), message: 'a package named like a route', pushedAt: STORY[0].time }]);
    expect(names(await pinnedJson(shadowOut, recent[0].sha, 'listing'))).toEqual(['recent-commits']);
  });

  it('does no composing work when main has not moved', async () => {
    expect(await build(repo, out)).toMatchObject({ composed: 0, releaseId: null, commits: 8 });
  });

  it('republishes an unchanged tip, without composing, when the release lacks a surface this version publishes', async () => {
    // A release written by an older pkgcat: its release.json lists fewer public surfaces.
    const file = paths.releaseInfo(paths.current(out));
    const info = JSON.parse(await readFile(file, 'utf8'));
    await writeFile(file, JSON.stringify({ ...info, publicSurfaces: ['recent-commits', 'package'] }));
    const result = await build(repo, out);
    expect(result).toMatchObject({ composed: 0, commits: 8 });
    expect(result.releaseId).not.toBeNull();
    expect([...(await publicFiles(out)).keys()].filter((path) => path.endsWith('/sbom.json')).length).toBeGreaterThan(0);
    expect(await build(repo, out)).toMatchObject({ composed: 0, releaseId: null });
  });
});
