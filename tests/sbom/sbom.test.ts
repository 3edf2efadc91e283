/**
 * SBOMs over real HTTP (SPEC.md "SBOM documents", Endpoints, DECISIONS.md 7). The fixture tells
 * one story:
 *
 *   c0  app 2.0.0 (Apache-2.0 OR MIT) needs libcore, oddlicense and ghost-lib (no such package:
 *       dangling) at run time, and buildtool to build; libcore (LicenseRef-Vendor) needs zlib-ng
 *       at run time; buildtool and bootstrap build each other (a cycle); oddlicense's license is
 *       no SPDX expression. ADV-1 (CVSS 3.1, critical) is active on zlib-ng, ADV-2 (LOW) on app.
 *   c1  zlib-ng 2.2.1 fixes ADV-1 (the tip).
 */
import { createHash } from 'node:crypto';
import { cp, mkdir, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { v5 as uuidv5 } from 'uuid';
import { createCatalogRepo, type CatalogCommit } from '../../demo/catalog-writer.ts';
import { buildCatalog } from '../../build/build.ts';
import { paths } from '../../src/store/layout.ts';
import { startGateway, type Gateway } from '../gateway/harness.ts';
import { temporaryDirectory } from '../helpers/catalog.ts';
import { cycloneDxErrors, spdxErrors } from '../helpers/sbom-schemas.ts';
import { CACHE_CONTROL, CYCLONEDX_CONTENT_TYPE, SPDX_CONTENT_TYPE } from '../helpers/spec.ts';

const SITE = 'https://catalog.example.org';
const NAMES = ['app', 'bootstrap', 'buildtool', 'libcore', 'oddlicense', 'zlib-ng'];

function manifest(name: string, version: string, license: string, dependencies: { build?: string[]; runtime?: string[] } = {}) {
  return {
    name,
    version,
    description: `${name}, a package of the SBOM story.`,
    license,
    homepage: `https://example.org/${name}`,
    repository: `https://git.example.org/${name}`,
    archive: { url: `https://example.org/${name}-${version}.tar.gz`, sha256: createHash('sha256').update(`${name}@${version}`).digest('hex') },
    dependencies,
  };
}

const STORY: CatalogCommit[] = [
  {
    message: 'c0: the SBOM story',
    time: '2026-03-01T12:00:00Z',
    files: {
      'packages/app/manifest.json': manifest('app', '2.0.0', 'Apache-2.0 OR MIT', { build: ['buildtool'], runtime: ['libcore', 'oddlicense', 'ghost-lib'] }),
      'packages/libcore/manifest.json': manifest('libcore', '1.1.0', 'LicenseRef-Vendor', { runtime: ['zlib-ng'] }),
      'packages/zlib-ng/manifest.json': manifest('zlib-ng', '2.2.0', 'Zlib'),
      'packages/oddlicense/manifest.json': manifest('oddlicense', '0.9.0', 'Custom proprietary terms'),
      'packages/buildtool/manifest.json': manifest('buildtool', '3.0.0', 'BSD-3-Clause', { build: ['bootstrap'] }),
      'packages/bootstrap/manifest.json': manifest('bootstrap', '1.0.0', 'MIT', { build: ['buildtool'] }),
      'advisories/ADV-1.json': {
        id: 'ADV-1',
        modified: '2026-02-01T00:00:00Z',
        published: '2026-01-15T00:00:00Z',
        aliases: ['CVE-2026-0001'],
        summary: 'Heap overflow in inflate',
        details: 'A crafted stream overflows the window buffer.',
        severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
        affected: [{ package: { name: 'zlib-ng', ecosystem: 'fixture' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '2.2.1' }] }] }],
        references: [{ type: 'ADVISORY', url: 'https://example.org/advisories/ADV-1' }],
      },
      'advisories/ADV-2.json': {
        id: 'ADV-2',
        modified: '2026-02-02T00:00:00Z',
        published: '2026-02-02T00:00:00Z',
        summary: 'Verbose error messages',
        affected: [{ package: { name: 'app', ecosystem: 'fixture' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '2.0.1' }] }] }],
        database_specific: { severity: 'LOW' },
      },
    },
  },
  {
    message: 'c1: zlib-ng 2.2.1 fixes ADV-1',
    time: '2026-03-02T12:00:00Z',
    files: { 'packages/zlib-ng/manifest.json': manifest('zlib-ng', '2.2.1', 'Zlib') },
  },
];

let dir: string;
let out: string;
let shas: string[];
let gateway: Gateway;
let cookie: string;

beforeAll(async () => {
  dir = await temporaryDirectory('pkgcat-sbom-');
  await mkdir(join(dir, 'repo'));
  shas = await createCatalogRepo(join(dir, 'repo'), STORY);
  out = join(dir, 'out');
  await buildCatalog({ repo: join(dir, 'repo'), out, siteUrl: SITE, progress: false, log: () => {} });
  gateway = await startGateway(out, dir);
  cookie = await gateway.signIn();
});

afterAll(async () => {
  await gateway?.close();
});

async function get(path: string, signedIn = false) {
  const response = await fetch(`${gateway.url}${path}`, { headers: signedIn ? { cookie } : {}, redirect: 'manual' });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const json = async (path: string, signedIn = false) => JSON.parse((await get(path, signedIn)).text);

describe('every SBOM validates against the official schemas', () => {
  it('CycloneDX 1.5 (ajv and the CycloneDX library\'s own validator) and SPDX 2.3, floating and pinned, at both commits', async () => {
    const validator = new Validation.JsonStrictValidator(Spec.Version.v1dot5);
    for (const name of NAMES) {
      for (const path of [`/api/pkgs/${name}/sbom.json`, `/api/pkgs/bundle/${shas[0]}/${name}/sbom.json`]) {
        const signedIn = path.includes('/bundle/');
        const cyclonedx = await get(path, signedIn);
        expect(cyclonedx.status, path).toBe(200);
        expect(cycloneDxErrors(JSON.parse(cyclonedx.text)), path).toEqual([]);
        expect(await validator.validate(cyclonedx.text), path).toBeNull();
        const spdx = await get(`${path}?format=spdx`, signedIn);
        expect(spdx.status, path).toBe(200);
        expect(spdxErrors(JSON.parse(spdx.text)), `${path}?format=spdx`).toEqual([]);
      }
    }
  });
});

describe('CycloneDX: what goes where (docs/sbom.md)', () => {
  let bom: any;
  beforeAll(async () => {
    bom = await json(`/api/pkgs/bundle/${shas[0]}/app/sbom.json`, true);
  });

  it('the package is metadata.component; the timestamp is the commit\'s, the serial number a UUID v5', () => {
    expect(bom.bomFormat).toBe('CycloneDX');
    expect(bom.specVersion).toBe('1.5');
    expect(bom.version).toBe(1);
    expect(bom.metadata.timestamp).toBe('2026-03-01T12:00:00.000Z');
    expect(bom.serialNumber).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(bom.metadata.component).toMatchObject({ 'bom-ref': 'app', name: 'app', version: '2.0.0', purl: 'pkg:generic/app@2.0.0', licenses: [{ expression: 'Apache-2.0 OR MIT' }] });
    expect(bom.metadata.properties).toEqual([
      { name: 'pkgcat:commit', value: shas[0] },
      { name: 'pkgcat:pushedAt', value: '2026-03-01T12:00:00Z' },
    ]);
  });

  it('the closure: runtime reach is scope required, build-only is excluded; the cycle ends; the dangling one has no version', () => {
    const summary = bom.components.map((component: any) => [component.name, component.version ?? null, component.scope, component.properties]);
    expect(summary).toEqual([
      ['bootstrap', '1.0.0', 'excluded', [{ name: 'pkgcat:scope', value: 'build' }]],
      ['buildtool', '3.0.0', 'excluded', [{ name: 'pkgcat:scope', value: 'build' }]],
      ['ghost-lib', null, 'required', [{ name: 'pkgcat:missing', value: 'true' }, { name: 'pkgcat:scope', value: 'runtime' }]],
      ['libcore', '1.1.0', 'required', [{ name: 'pkgcat:scope', value: 'runtime' }]],
      ['oddlicense', '0.9.0', 'required', [{ name: 'pkgcat:scope', value: 'runtime' }]],
      ['zlib-ng', '2.2.0', 'required', [{ name: 'pkgcat:scope', value: 'runtime' }]],
    ]);
    expect(bom.components.find((component: any) => component.name === 'ghost-lib').purl).toBe('pkg:generic/ghost-lib');
  });

  it('licenses: an SPDX id, an expression with a LicenseRef, and a named license for text that is neither', () => {
    const licenses = Object.fromEntries(bom.components.map((component: any) => [component.name, component.licenses]));
    expect(licenses['zlib-ng']).toEqual([{ license: { id: 'Zlib' } }]);
    expect(licenses.libcore).toEqual([{ expression: 'LicenseRef-Vendor' }]);
    expect(licenses.oddlicense).toEqual([{ license: { name: 'Custom proprietary terms' } }]);
    expect(licenses['ghost-lib']).toBeUndefined();
  });

  it('the archive is a distribution reference with its SHA-256, also the component\'s hash', () => {
    const zlib = bom.components.find((component: any) => component.name === 'zlib-ng');
    const sha256 = createHash('sha256').update('zlib-ng@2.2.0').digest('hex');
    expect(zlib.hashes).toEqual([{ alg: 'SHA-256', content: sha256 }]);
    expect(zlib.externalReferences).toEqual([
      { type: 'distribution', url: 'https://example.org/zlib-ng-2.2.0.tar.gz', hashes: [{ alg: 'SHA-256', content: sha256 }] },
      { type: 'vcs', url: 'https://git.example.org/zlib-ng' },
      { type: 'website', url: 'https://example.org/zlib-ng' },
    ]);
  });

  it('the dependency graph, cycle included', () => {
    const graph = Object.fromEntries(bom.dependencies.map((entry: any) => [entry.ref, entry.dependsOn ?? []]));
    expect(graph).toEqual({
      app: ['buildtool', 'ghost-lib', 'libcore', 'oddlicense'],
      bootstrap: ['buildtool'],
      buildtool: ['bootstrap'],
      'ghost-lib': [],
      libcore: ['zlib-ng'],
      oddlicense: [],
      'zlib-ng': [],
    });
  });

  it('vulnerabilities: every active advisory of the closure, the root\'s included, with ratings, affects and the fix', () => {
    expect(bom.vulnerabilities).toEqual([
      {
        'bom-ref': 'vulnerability:ADV-1',
        id: 'ADV-1',
        source: { name: 'OSV' },
        references: [{ id: 'CVE-2026-0001', source: { name: 'NVD' } }],
        ratings: [{ method: 'CVSSv31', score: 9.8, severity: 'critical', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
        description: 'Heap overflow in inflate',
        detail: 'A crafted stream overflows the window buffer.',
        recommendation: 'Upgrade zlib-ng to 2.2.1.',
        advisories: [{ url: 'https://example.org/advisories/ADV-1' }],
        published: '2026-01-15T00:00:00.000Z',
        updated: '2026-02-01T00:00:00.000Z',
        affects: [{ ref: 'zlib-ng' }],
      },
      {
        'bom-ref': 'vulnerability:ADV-2',
        id: 'ADV-2',
        source: { name: 'OSV' },
        ratings: [{ severity: 'low' }],
        description: 'Verbose error messages',
        recommendation: 'Upgrade app to 2.0.1.',
        published: '2026-02-02T00:00:00.000Z',
        updated: '2026-02-02T00:00:00.000Z',
        affects: [{ ref: 'app' }],
      },
    ]);
  });

  it('at the tip, the fixed advisory is gone and the serial number differs', async () => {
    const tip = await json('/api/pkgs/app/sbom.json');
    expect(tip.vulnerabilities.map((vulnerability: any) => vulnerability.id)).toEqual(['ADV-2']);
    expect(tip.serialNumber).not.toBe(bom.serialNumber);
    expect(tip.components.find((component: any) => component.name === 'zlib-ng').version).toBe('2.2.1');
  });
});

describe('SPDX 2.3: what goes where (docs/sbom.md)', () => {
  let doc: any;
  const id = (name: string) => doc.packages.find((pkg: any) => pkg.name === name).SPDXID;
  beforeAll(async () => {
    doc = await json(`/api/pkgs/bundle/${shas[0]}/app/sbom.json?format=spdx`, true);
  });

  it('document: namespace a urn:uuid: of sha, name and format alone (no site address); created is the commit\'s time', () => {
    // docs/sbom.md: a UUID v5, in the namespace UUID v5 of the URL https://pkgcat.dev/sbom, of "<sha>/<name>/spdx".
    const namespace = uuidv5('https://pkgcat.dev/sbom', uuidv5.URL);
    expect(doc).toMatchObject({
      spdxVersion: 'SPDX-2.3',
      dataLicense: 'CC0-1.0',
      SPDXID: 'SPDXRef-DOCUMENT',
      name: `app 2.0.0 at ${shas[0]}`,
      documentNamespace: `urn:uuid:${uuidv5(`${shas[0]}/app/spdx`, namespace)}`,
      creationInfo: { created: '2026-03-01T12:00:00Z', creators: ['Tool: pkgcat'] },
    });
  });

  it('packages: download location, checksum, licenses, purl; a dangling one asserts nothing', () => {
    const libcore = doc.packages.find((pkg: any) => pkg.name === 'libcore');
    expect(libcore).toMatchObject({
      versionInfo: '1.1.0',
      downloadLocation: 'https://example.org/libcore-1.1.0.tar.gz',
      checksums: [{ algorithm: 'SHA256', checksumValue: createHash('sha256').update('libcore@1.1.0').digest('hex') }],
      licenseDeclared: 'LicenseRef-Vendor',
      licenseConcluded: 'LicenseRef-Vendor',
      externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: 'pkg:generic/libcore@1.1.0' }],
    });
    const odd = doc.packages.find((pkg: any) => pkg.name === 'oddlicense');
    expect(odd.licenseDeclared).toBe('LicenseRef-Custom-proprietary-terms');
    expect(doc.hasExtractedLicensingInfos).toEqual([
      { licenseId: 'LicenseRef-Custom-proprietary-terms', name: 'Custom proprietary terms', extractedText: 'Custom proprietary terms' },
      { licenseId: 'LicenseRef-Vendor', name: 'Vendor', extractedText: 'LicenseRef-Vendor, as the catalog names it' },
    ]);
    const ghost = doc.packages.find((pkg: any) => pkg.name === 'ghost-lib');
    expect(ghost.versionInfo).toBeUndefined();
    expect(ghost.downloadLocation).toBe('NOASSERTION');
  });

  it('advisories are SECURITY advisory references', () => {
    const zlib = doc.packages.find((pkg: any) => pkg.name === 'zlib-ng');
    expect(zlib.externalRefs).toContainEqual({
      referenceCategory: 'SECURITY',
      referenceType: 'advisory',
      referenceLocator: 'https://example.org/advisories/ADV-1',
      comment: 'ADV-1 (critical): Heap overflow in inflate; fixed in 2.2.1',
    });
  });

  it('relationships tell build dependencies from runtime ones; the document describes the package', () => {
    const relationships = doc.relationships.map((r: any) => `${r.spdxElementId} ${r.relationshipType} ${r.relatedSpdxElement}`);
    expect(relationships).toEqual([
      `SPDXRef-DOCUMENT DESCRIBES ${id('app')}`,
      `${id('buildtool')} BUILD_DEPENDENCY_OF ${id('app')}`,
      `${id('ghost-lib')} RUNTIME_DEPENDENCY_OF ${id('app')}`,
      `${id('libcore')} RUNTIME_DEPENDENCY_OF ${id('app')}`,
      `${id('oddlicense')} RUNTIME_DEPENDENCY_OF ${id('app')}`,
      `${id('buildtool')} BUILD_DEPENDENCY_OF ${id('bootstrap')}`,
      `${id('bootstrap')} BUILD_DEPENDENCY_OF ${id('buildtool')}`,
      `${id('zlib-ng')} RUNTIME_DEPENDENCY_OF ${id('libcore')}`,
    ]);
  });
});

describe('HTTP (SPEC.md Endpoints, Additional rules 2 and 3, Cache-Control per surface)', () => {
  // Each row: the request, whether signed in, then the expected status, Content-Type, Cache-Control and ETag rule.
  const rows: [string, string, boolean, number, string | null, string | null, RegExp | null][] = [
    ['SPEC Endpoints: floating, no format: CycloneDX', '/api/pkgs/app/sbom.json', false, 200, CYCLONEDX_CONTENT_TYPE, CACHE_CONTROL.floating, null],
    ['SPEC Endpoints: floating, format=spdx: SPDX', '/api/pkgs/app/sbom.json?format=spdx', false, 200, SPDX_CONTENT_TYPE, CACHE_CONTROL.floating, null],
    ['SPEC Endpoints: any other value gives CycloneDX, never a 400', '/api/pkgs/app/sbom.json?format=xml', false, 200, CYCLONEDX_CONTENT_TYPE, CACHE_CONTROL.floating, null],
    ['SPEC Endpoints: another spelling of spdx is another value', '/api/pkgs/app/sbom.json?format=SPDX', false, 200, CYCLONEDX_CONTENT_TYPE, CACHE_CONTROL.floating, null],
    ['SPEC Endpoints: floating, unknown name: 404', '/api/pkgs/nothing/sbom.json', false, 404, null, null, null],
    ['SPEC Endpoints: floating, charset violation: 404', '/api/pkgs/-app/sbom.json', false, 404, null, null, null],
    ['SPEC Endpoints: pinned needs a session: 401', '/api/pkgs/bundle/SHA0/app/sbom.json', false, 401, null, null, null],
    ['SPEC rule 3: pinned CycloneDX, ETag with a format suffix', '/api/pkgs/bundle/SHA0/app/sbom.json', true, 200, CYCLONEDX_CONTENT_TYPE, CACHE_CONTROL.pinned, /^W\/"[0-9a-f]{32}-cyclonedx"$/],
    ['SPEC rule 3: pinned SPDX, ETag with a format suffix', '/api/pkgs/bundle/SHA0/app/sbom.json?format=spdx', true, 200, SPDX_CONTENT_TYPE, CACHE_CONTROL.pinned, /^W\/"[0-9a-f]{32}-spdx"$/],
    ['SPEC Endpoints: pinned, a name not there at that sha: 404', '/api/pkgs/bundle/SHA0/nothing/sbom.json', true, 404, null, null, null],
  ];

  it.each(rows)('%s', async (_row, path, signedIn, status, contentType, cacheControl, etag) => {
    const reply = await get(path.replace('SHA0', shas[0]), signedIn);
    expect(reply.status).toBe(status);
    if (contentType) expect(reply.headers.get('content-type')).toBe(contentType);
    if (cacheControl) expect(reply.headers.get('cache-control')).toBe(cacheControl);
    if (status === 200) {
      if (etag) expect(reply.headers.get('etag')).toMatch(etag);
      else expect(reply.headers.get('etag')).toBeNull();
    }
  });

  it('SPEC Endpoints: a sha prefix redirects with the format kept', async () => {
    const reply = await get(`/api/pkgs/bundle/${shas[0].slice(0, 12)}/app/sbom.json?format=spdx`, true);
    expect(reply.status).toBe(301);
    expect(reply.headers.get('location')).toBe(`/api/pkgs/bundle/${shas[0]}/app/sbom.json?format=spdx`);
  });

  it('the floating body equals the pinned body at the tip, byte for byte, in both formats', async () => {
    for (const name of NAMES) {
      for (const query of ['', '?format=spdx']) {
        const floating = await get(`/api/pkgs/${name}/sbom.json${query}`);
        const pinned = await get(`/api/pkgs/bundle/${shas[1]}/${name}/sbom.json${query}`, true);
        expect(floating.text, `${name}${query}`).toBe(pinned.text);
      }
    }
  });

  it('a pinned body never changes: the same bytes on every request', async () => {
    const first = await get(`/api/pkgs/bundle/${shas[0]}/libcore/sbom.json?format=spdx`, true);
    const again = await get(`/api/pkgs/bundle/${shas[0]}/libcore/sbom.json?format=spdx`, true);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
  });
});

describe('byte-stable (DECISIONS.md 7)', () => {
  it('a second build from scratch gives the same SBOM bytes; the serial number depends on sha, name and format', async () => {
    const again = join(dir, 'again');
    await buildCatalog({ repo: join(dir, 'repo'), out: again, siteUrl: SITE, progress: false, log: () => {} });
    const other = await startGateway(again, join(dir, 'again-gateway'));
    try {
      for (const name of NAMES) {
        for (const query of ['', '?format=spdx']) {
          const path = `/api/pkgs/${name}/sbom.json${query}`;
          expect((await fetch(`${other.url}${path}`).then((response) => response.text())), path).toBe((await get(path)).text);
        }
      }
    } finally {
      await other.close();
    }
    const serials = new Set<string>();
    for (const sha of shas) {
      for (const name of ['app', 'libcore']) serials.add((await json(`/api/pkgs/bundle/${sha}/${name}/sbom.json`, true)).serialNumber);
    }
    expect(serials.size).toBe(4);
  });
});
