import { describe, it, expect } from 'vitest';
import { serialize } from '../../src/serialize.ts';
import { analyze } from '../../src/compose/analysis.ts';
import { composeCard, composeDeps, composeEnvelope, composeRecord, composeScorecard, composeVersions } from '../../src/compose/package.ts';
import type { CatalogState } from '../../src/compose/types.ts';
import { ARCHIVE_SHA256, advisory, catalogState, manifest, scorecard, sha, shipped } from '../helpers/state.ts';
import { SCHEMA_VERSION } from '../helpers/spec.ts';

const record = (state: CatalogState, key: string) => composeRecord(state, analyze(state), key);
const card = (state: CatalogState, key: string) => composeCard(state, analyze(state), key);
const deps = (state: CatalogState, key: string) => composeDeps(state, analyze(state), key);

describe('package envelope (SPEC.md "Package record envelope")', () => {
  it('is {schemaVersion, commitSha, pushedAt, package}, byte for byte, for a tiny state', () => {
    const state = catalogState({
      commit: { sha: sha(0xabc), pushedAt: '2026-03-01T12:00:00Z' },
      packages: [manifest('zlib', { version: '1.2.11', description: 'Compression <library> & more.' })],
      advisories: [advisory('OSV-1', { package: 'zlib', fixed: '1.2.12', severity: 'HIGH', summary: 'Overflow' })],
    });
    const expected =
      '{"commitSha":"0000000000000000000000000000000000000abc","package":{' +
      '"advisories":[{"affectedPackage":"zlib","aliases":[],"cvss":null,"details":null,"fixedIn":["1.2.12"],"id":"OSV-1",' +
      '"modified":"2026-01-01T00:00:00Z","published":null,"references":[],"severity":"high","summary":"Overflow"}],' +
      `"archive":{"sha256":"${ARCHIVE_SHA256}","url":"https://example.org/zlib-1.2.11.tar.gz"},` +
      '"categories":[],"dependencies":{"build":[],"runtime":[]},' +
      '"description":"Compression \\u003clibrary\\u003e \\u0026 more.","homepage":null,"license":"MIT",' +
      '"links":{"badge":"/api/pkgs/zlib/badge.svg","markdown":"/pkgs/zlib.md","page":"/pkgs/zlib","sbom":"/api/pkgs/zlib/sbom.json","self":"/api/pkgs/zlib.json"},' +
      '"name":"zlib","repository":null,"reverseDependencies":[],"scorecard":null,"stars":0,"version":"1.2.11"},' +
      `"pushedAt":"2026-03-01T12:00:00Z","schemaVersion":${SCHEMA_VERSION}}`;
    expect(serialize(composeEnvelope(state.commit, record(state, 'zlib')))).toBe(expected);
    expect(typeof SCHEMA_VERSION).toBe('number');
  });

  it('has exactly the four envelope members, and the package has no transitiveAdvisories (the rollup is bundle-level)', () => {
    const state = catalogState({
      packages: [manifest('app', { runtime: ['zlib'] }), manifest('zlib')],
      advisories: [advisory('OSV-1', { package: 'zlib' })],
    });
    const envelope = composeEnvelope(state.commit, record(state, 'app'));
    expect(Object.keys(envelope).sort()).toEqual(['commitSha', 'package', 'pushedAt', 'schemaVersion']);
    expect(envelope.commitSha).toBe(state.commit.sha);
    expect(envelope.pushedAt).toBe(state.commit.pushedAt);
    expect(envelope.package).not.toHaveProperty('transitiveAdvisories');
    expect(serialize(envelope)).not.toContain('transitive');
    // The dependency's advisory is not the package's own.
    expect(record(state, 'app').advisories).toEqual([]);
  });
});

describe('package record fields (SPEC.md "Package record envelope", CATALOG-FORMAT.md manifest.json)', () => {
  it('carries the manifest fields, null homepage/repository when absent, and nothing else', () => {
    const state = catalogState({ packages: [manifest('zlib')] });
    expect(record(state, 'zlib')).toEqual({
      name: 'zlib',
      version: '1.0.0',
      description: 'The zlib package.',
      license: 'MIT',
      homepage: null,
      repository: null,
      categories: [],
      stars: 0,
      archive: { url: 'https://example.org/zlib-1.0.0.tar.gz', sha256: ARCHIVE_SHA256 },
      dependencies: { build: [], runtime: [] },
      reverseDependencies: [],
      advisories: [],
      scorecard: null,
      links: {
        self: '/api/pkgs/zlib.json',
        page: '/pkgs/zlib',
        markdown: '/pkgs/zlib.md',
        sbom: '/api/pkgs/zlib/sbom.json',
        badge: '/api/pkgs/zlib/badge.svg',
      },
    });
  });

  it.each([
    ['homepage present (CATALOG-FORMAT manifest `homepage`)', { homepage: 'https://zlib.net/' }, 'homepage', 'https://zlib.net/'],
    ['repository present (CATALOG-FORMAT manifest `repository`)', { repository: 'https://github.com/madler/zlib' }, 'repository', 'https://github.com/madler/zlib'],
    ['categories as written (CATALOG-FORMAT manifest `categories`)', { categories: ['compression', 'archiving'] }, 'categories', ['compression', 'archiving']],
    ['stars (CATALOG-FORMAT manifest `stars`)', { stars: 5321 }, 'stars', 5321],
    ['license expression as written (CATALOG-FORMAT manifest `license`)', { license: 'Apache-2.0 OR MIT' }, 'license', 'Apache-2.0 OR MIT'],
    ['version as written (CATALOG-FORMAT manifest `version`)', { version: '2.14_1' }, 'version', '2.14_1'],
    [
      'dependencies as written, dangling ones kept (CATALOG-FORMAT "dangling")',
      { build: ['cmake'], runtime: ['ghost'] },
      'dependencies',
      { build: ['cmake'], runtime: ['ghost'] },
    ],
  ])('%s', (_why, overrides, field, expected) => {
    const state = catalogState({ packages: [manifest('zlib', overrides), manifest('cmake')] });
    expect(record(state, 'zlib')[field as keyof ReturnType<typeof record>]).toEqual(expected);
  });

  it.each([
    [
      'dependents sorted by name, case-insensitively, in canonical spelling (CATALOG-FORMAT "Names")',
      [manifest('zlib'), manifest('Curl', { runtime: ['ZLIB'] }), manifest('apr', { build: ['zlib'] }), manifest('Bzip', { runtime: ['Zlib'] })],
      ['apr', 'Bzip', 'Curl'],
    ],
    [
      'a dependent listing it in both build and runtime appears once (DECISIONS 2: build and runtime edges)',
      [manifest('zlib'), manifest('png', { build: ['zlib'], runtime: ['zlib'] })],
      ['png'],
    ],
    [
      'a package that depends on nothing present is nobody\'s dependent',
      [manifest('zlib'), manifest('png', { runtime: ['ghost'] })],
      [],
    ],
  ])('reverseDependencies: %s', (_why, packages, expected) => {
    expect(record(catalogState({ packages }), 'zlib').reverseDependencies).toEqual(expected);
  });

  it.each([
    ['an affecting advisory is listed (CATALOG-FORMAT "active")', [advisory('A-1', { package: 'zlib', fixed: '1.2.12' })], ['A-1']],
    ['a withdrawn advisory is not (CATALOG-FORMAT "active")', [advisory('A-1', { package: 'zlib', withdrawn: '2026-02-01T00:00:00Z' })], []],
    ['a version past the fix is not affected', [advisory('A-1', { package: 'zlib', fixed: '1.2.11' })], []],
    ['a version before `introduced` is not affected', [advisory('A-1', { package: 'zlib', introduced: '1.3' })], []],
    ['listed versions: another version is not affected', [advisory('A-1', { package: 'zlib', versions: ['1.2.10'] })], []],
    ['listed versions: an equivalent spelling is affected', [advisory('A-1', { package: 'zlib', versions: ['1.2.11.0', '1.2_11'] })], ['A-1']],
    ['the package name in the advisory is case-insensitive', [advisory('A-1', { package: 'ZLib' })], ['A-1']],
    ['an advisory of another package is not listed', [advisory('A-1', { package: 'png' })], []],
    [
      'several, sorted by id; only the active ones',
      [
        advisory('B-2', { package: 'zlib' }),
        advisory('A-9', { package: 'zlib', withdrawn: '2026-02-01T00:00:00Z' }),
        advisory('A-1', { package: ['png', 'zlib'] }),
        advisory('C-0', { package: 'zlib', fixed: '1.0' }),
      ],
      ['A-1', 'B-2'],
    ],
  ])('advisories = active direct ones only: %s', (_why, advisories, ids) => {
    const state = catalogState({ packages: [manifest('zlib', { version: '1.2.11' }), manifest('png')], advisories });
    expect(record(state, 'zlib').advisories.map((a) => a.id)).toEqual(ids);
  });

  it('a full advisory names this package as affectedPackage and carries this package\'s fixed versions (SPEC full bundle rule 3)', () => {
    const state = catalogState({
      packages: [manifest('png', { version: '1.6.0' }), manifest('Zlib', { version: '1.2.11' })],
      advisories: [
        advisory('OSV-7', {
          package: 'png',
          fixed: '1.6.40',
          severity: 'MODERATE',
          summary: 'Shared bug',
          details: 'Long text',
          aliases: ['CVE-2026-0001'],
          published: '2025-12-01T00:00:00Z',
          references: [{ type: 'WEB', url: 'https://example.org/osv-7' }],
          affected: [{ package: { name: 'zlib' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '1.3' }, { fixed: '1.2.12' }] }] }],
        }),
      ],
    });
    expect(record(state, 'zlib').advisories).toEqual([
      {
        id: 'OSV-7',
        summary: 'Shared bug',
        details: 'Long text',
        aliases: ['CVE-2026-0001'],
        published: '2025-12-01T00:00:00Z',
        modified: '2026-01-01T00:00:00Z',
        severity: 'medium',
        cvss: null,
        affectedPackage: 'Zlib',
        fixedIn: ['1.2.12', '1.3'],
        references: [{ type: 'WEB', url: 'https://example.org/osv-7' }],
      },
    ]);
    expect(record(state, 'png').advisories[0]).toMatchObject({ affectedPackage: 'png', fixedIn: ['1.6.40'] });
  });

  it('carries the CVSS score the severity came from', () => {
    const vector = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
    const state = catalogState({ packages: [manifest('zlib')], advisories: [advisory('A-1', { package: 'zlib', cvss: vector })] });
    expect(record(state, 'zlib').advisories[0]).toMatchObject({ severity: 'critical', cvss: { version: '3.1', vector, score: 9.8 } });
  });

  it.each([
    [7.5, 75],
    [10, 100],
    [0, 0],
    [3.14, 31],
    [6.96, 70],
    [-1, null],
  ])('scorecard score %d has normalizedScore %j = round(score * 10), null when -1 (CATALOG-FORMAT scorecard.json)', (score, normalized) => {
    const state = catalogState({ packages: [{ manifest: manifest('zlib'), scorecard: scorecard(score) }] });
    expect(record(state, 'zlib').scorecard).toEqual({ ...scorecard(score), normalizedScore: normalized });
  });

  it('no scorecard.json gives scorecard null', () => {
    expect(composeScorecard(null)).toBeNull();
    expect(record(catalogState({ packages: [manifest('zlib')] }), 'zlib').scorecard).toBeNull();
  });

  it.each([
    [
      'llama.cpp',
      {
        self: '/api/pkgs/llama.cpp.json',
        page: '/pkgs/llama.cpp',
        markdown: '/pkgs/llama.cpp.md',
        sbom: '/api/pkgs/llama.cpp/sbom.json',
        badge: '/api/pkgs/llama.cpp/badge.svg',
      },
    ],
    [
      'Py_Foo-2',
      {
        self: '/api/pkgs/Py_Foo-2.json',
        page: '/pkgs/Py_Foo-2',
        markdown: '/pkgs/Py_Foo-2.md',
        sbom: '/api/pkgs/Py_Foo-2/sbom.json',
        badge: '/api/pkgs/Py_Foo-2/badge.svg',
      },
    ],
  ])('links of %s keep the dots and the canonical spelling (SPEC "Other read-only surfaces": name followed by .md)', (name, links) => {
    expect(record(catalogState({ packages: [manifest(name)] }), name.toLowerCase()).links).toEqual(links);
  });
});

describe('listing card (SPEC.md "Listing bundle": name, version, categories, stars, slim advisories)', () => {
  it('is exact for a package with advisories', () => {
    const state = catalogState({
      packages: [manifest('OpenSSL', { version: '3.0.1', categories: ['crypto', 'tls'], stars: 42, license: 'Apache-2.0' })],
      advisories: [
        advisory('B-2', { package: 'openssl', severity: 'LOW', summary: 'Minor' }),
        advisory('A-1', { package: 'openssl', severity: 'CRITICAL', summary: null }),
        advisory('C-3', { package: 'openssl', severity: 'MODERATE', summary: 'Middle', details: 'not in the card' }),
        advisory('D-4', { package: 'openssl', severity: 'HIGH', withdrawn: '2026-02-01T00:00:00Z' }),
      ],
    });
    expect(card(state, 'openssl')).toEqual({
      name: 'OpenSSL',
      version: '3.0.1',
      description: 'The OpenSSL package.',
      license: 'Apache-2.0',
      categories: ['crypto', 'tls'],
      stars: 42,
      advisories: [
        { id: 'A-1', severity: 'critical', summary: null },
        { id: 'B-2', severity: 'low', summary: 'Minor' },
        { id: 'C-3', severity: 'medium', summary: 'Middle' },
      ],
      maxSeverity: 'critical',
    });
  });

  it.each([
    ['no advisories: null', [], null],
    ['one unknown-severity advisory: unknown (DECISIONS 9)', [advisory('A', { package: 'zlib' })], 'unknown'],
    ['unknown does not outrank low', [advisory('A', { package: 'zlib' }), advisory('B', { package: 'zlib', severity: 'LOW' })], 'low'],
    ['high over medium', [advisory('A', { package: 'zlib', severity: 'MEDIUM' }), advisory('B', { package: 'zlib', severity: 'HIGH' })], 'high'],
    ['a withdrawn critical does not count', [advisory('A', { package: 'zlib', severity: 'CRITICAL', withdrawn: '2026-01-02T00:00:00Z' }), advisory('B', { package: 'zlib', severity: 'LOW' })], 'low'],
    ['a critical on a fixed version does not count', [advisory('A', { package: 'zlib', severity: 'CRITICAL', fixed: '1.0.0' }), advisory('B', { package: 'zlib', severity: 'MEDIUM' })], 'medium'],
  ])('maxSeverity: %s', (_why, advisories, expected) => {
    expect(card(catalogState({ packages: [manifest('zlib')], advisories }), 'zlib').maxSeverity).toBe(expected);
  });
});

describe('dependency rollup (SPEC.md "Dependency rollup")', () => {
  it('lists build and runtime deps once each, sorted, canonical, enriched; dangling ones as missing', () => {
    const state = catalogState({
      packages: [
        manifest('app', { build: ['cmake', 'ZLIB', 'Ghost-Build'], runtime: ['zlib', 'OpenSSL', 'ghost'] }),
        manifest('CMake', { version: '3.28.1', license: 'BSD-3-Clause' }),
        manifest('openssl', { version: '3.0.1', license: 'Apache-2.0' }),
        manifest('zlib', { version: '1.2.11', license: 'Zlib' }),
      ],
      advisories: [
        advisory('Z-2', { package: 'zlib', severity: 'LOW', summary: 'low one' }),
        advisory('Z-1', { package: 'zlib', severity: 'HIGH', summary: 'high one' }),
        advisory('Z-0', { package: 'zlib', fixed: '1.2.0', severity: 'CRITICAL' }),
      ],
    });
    expect(deps(state, 'app')).toEqual({
      schemaVersion: SCHEMA_VERSION,
      name: 'app',
      dependencies: [
        { name: 'CMake', scopes: ['build'], missing: false, version: '3.28.1', license: 'BSD-3-Clause', advisories: [], maxSeverity: null },
        { name: 'ghost', scopes: ['runtime'], missing: true, version: null, license: null, advisories: [], maxSeverity: null },
        { name: 'Ghost-Build', scopes: ['build'], missing: true, version: null, license: null, advisories: [], maxSeverity: null },
        { name: 'openssl', scopes: ['runtime'], missing: false, version: '3.0.1', license: 'Apache-2.0', advisories: [], maxSeverity: null },
        {
          name: 'zlib',
          scopes: ['build', 'runtime'],
          missing: false,
          version: '1.2.11',
          license: 'Zlib',
          advisories: [
            { id: 'Z-1', severity: 'high', summary: 'high one' },
            { id: 'Z-2', severity: 'low', summary: 'low one' },
          ],
          maxSeverity: 'high',
        },
      ],
    });
  });

  it.each([
    ['no dependencies', manifest('app'), []],
    ['build only (SPEC "Direct build and runtime dependencies")', manifest('app', { build: ['zlib'] }), [['zlib', ['build'], false]]],
    ['runtime only', manifest('app', { runtime: ['zlib'] }), [['zlib', ['runtime'], false]]],
    ['both lists: listed once, both scopes', manifest('app', { runtime: ['zlib'], build: ['zlib'] }), [['zlib', ['build', 'runtime'], false]]],
    ['both lists in other spellings: once, canonical', manifest('app', { runtime: ['Zlib'], build: ['ZLIB'] }), [['zlib', ['build', 'runtime'], false]]],
    [
      'a dangling dep in both lists: once, missing, spelled as first written',
      manifest('app', { build: ['Ghost'], runtime: ['ghost'] }),
      [['Ghost', ['build', 'runtime'], true]],
    ],
    ['a self-dependency is listed like any other (CATALOG-FORMAT: cycles occur)', manifest('app', { build: ['app'] }), [['app', ['build'], false]]],
  ])('%s', (_why, root, expected) => {
    const state = catalogState({ packages: [root, manifest('zlib')] });
    expect(deps(state, 'app').dependencies.map((d) => [d.name, d.scopes, d.missing])).toEqual(expected);
  });

  // BUG (src/compose/package.ts composeDeps): parse.ts de-duplicates a dependency list by exact
  // spelling only, so `build: ['zlib', 'ZLIB']` reaches composition; composeDeps merges the two
  // spellings into one entry (same name key) but pushes 'build' once per spelling, giving
  // scopes ['build', 'build']. CATALOG-FORMAT.md: "Names are case-insensitive everywhere (`zlib`,
  // `ZLib` are one package)", so this is one build dependency: scopes must be ['build'].
  it('one package in two spellings within one list is one dependency with one scope (CATALOG-FORMAT "Names are case-insensitive")', () => {
    const state = catalogState({ packages: [manifest('app', { build: ['zlib', 'ZLIB'], runtime: ['Zlib', 'zlib'] }), manifest('zlib')] });
    expect(deps(state, 'app').dependencies).toEqual([
      { name: 'zlib', scopes: ['build', 'runtime'], missing: false, version: '1.0.0', license: 'MIT', advisories: [], maxSeverity: null },
    ]);
  });

  it('the dependency\'s own advisories are the ones active at its version', () => {
    const state = catalogState({
      packages: [manifest('app', { runtime: ['zlib'] }), manifest('zlib', { version: '1.3' })],
      advisories: [advisory('OLD', { package: 'zlib', fixed: '1.2.12' }), advisory('NEW', { package: 'zlib', introduced: '1.3', severity: 'MODERATE' })],
    });
    expect(deps(state, 'app').dependencies[0]).toMatchObject({ advisories: [{ id: 'NEW', severity: 'medium' }], maxSeverity: 'medium' });
  });
});

describe('version history (SPEC.md "Version history", DECISIONS 6, CATALOG-FORMAT version history)', () => {
  const events = [
    shipped('1.2.11', { sha: sha(1), pushedAt: '2026-01-01T00:00:00Z', filesChanged: 3, linesAdded: 120, linesRemoved: 0, runtime: [] }),
    shipped('1.2.12', { sha: sha(4), pushedAt: '2026-01-10T00:00:00Z', filesChanged: 1, linesAdded: 2, linesRemoved: 2, build: ['cmake'] }),
    shipped('1.3', { sha: sha(9), pushedAt: '2026-02-01T00:00:00Z', filesChanged: 2, linesAdded: 5, linesRemoved: 7, build: ['cmake'], runtime: ['libc'] }),
  ];

  it('lists every shipping event newest first with sha, pushedAt, stats and dependency sets', () => {
    const state = catalogState({ commit: { sha: sha(9) }, packages: [manifest('zlib', { version: '1.3' })], history: { zlib: events } });
    expect(composeVersions(state, 'zlib', 'zlib')).toEqual({
      schemaVersion: SCHEMA_VERSION,
      name: 'zlib',
      versions: [
        { version: '1.3', sha: sha(9), pushedAt: '2026-02-01T00:00:00Z', filesChanged: 2, linesAdded: 5, linesRemoved: 7, dependencies: { build: ['cmake'], runtime: ['libc'] } },
        { version: '1.2.12', sha: sha(4), pushedAt: '2026-01-10T00:00:00Z', filesChanged: 1, linesAdded: 2, linesRemoved: 2, dependencies: { build: ['cmake'], runtime: [] } },
        { version: '1.2.11', sha: sha(1), pushedAt: '2026-01-01T00:00:00Z', filesChanged: 3, linesAdded: 120, linesRemoved: 0, dependencies: { build: [], runtime: [] } },
      ],
    });
    // The state's own history stays oldest first: composition does not reverse it in place.
    expect(state.history.get('zlib')!.map((e) => e.version)).toEqual(['1.2.11', '1.2.12', '1.3']);
  });

  it('a removed package keeps its history and its canonical name', () => {
    const state = catalogState({ commit: { sha: sha(12) }, packages: [manifest('png')], history: { ZLib: events } });
    expect(state.packages.has('zlib')).toBe(false);
    expect(state.names.get('zlib')).toBe('ZLib');
    const versions = composeVersions(state, 'zlib', state.names.get('zlib')!);
    expect(versions.name).toBe('ZLib');
    expect(versions.versions.map((v) => [v.version, v.sha])).toEqual([['1.3', sha(9)], ['1.2.12', sha(4)], ['1.2.11', sha(1)]]);
  });

  it('a re-added package keeps its earlier history (DECISIONS 6)', () => {
    const readded = [...events, shipped('1.3', { sha: sha(20), pushedAt: '2026-03-01T00:00:00Z' })];
    const state = catalogState({ commit: { sha: sha(20) }, packages: [manifest('zlib', { version: '1.3' })], history: { zlib: readded } });
    expect(composeVersions(state, 'zlib', 'zlib').versions.map((v) => [v.version, v.sha])).toEqual([
      ['1.3', sha(20)],
      ['1.3', sha(9)],
      ['1.2.12', sha(4)],
      ['1.2.11', sha(1)],
    ]);
  });

  it('a name without history has no versions', () => {
    expect(composeVersions(catalogState({ packages: [] }), 'zlib', 'zlib').versions).toEqual([]);
  });

  it('the helper gives a present package one shipping event at the commit', () => {
    const state = catalogState({ commit: { sha: sha(5), pushedAt: '2026-04-01T00:00:00Z' }, packages: [manifest('zlib', { version: '2.0', runtime: ['libc'] })] });
    expect(composeVersions(state, 'zlib', 'zlib').versions).toEqual([
      { version: '2.0', sha: sha(5), pushedAt: '2026-04-01T00:00:00Z', filesChanged: 1, linesAdded: 10, linesRemoved: 0, dependencies: { build: [], runtime: ['libc'] } },
    ]);
  });
});
