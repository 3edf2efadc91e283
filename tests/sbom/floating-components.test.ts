/**
 * A floating SBOM is stored with a marker in each component's place (src/compose/sbom/markers.ts),
 * and its readers put the tip's components there. The story: app needs libcore at run time,
 * libcore needs zlib at run time. libcore ships 1.1.1; nothing else changes. app's stored SBOM is
 * kept from the release before, and the gateway and the static export serve it with libcore
 * 1.1.1, byte for byte the pinned SBOM at the new tip.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { appendCommits, createCatalogRepo } from '../../demo/catalog-writer.ts';
import { buildCatalog } from '../../build/build.ts';
import { exportRelease } from '../../build/export.ts';
import { fillComponentMarkers, markedComponents } from '../../src/compose/sbom/markers.ts';
import { startGateway, type Gateway } from '../gateway/harness.ts';
import { readObject } from '../../src/store/layout.ts';
import { hoursLater, manifest, releaseManifest, temporaryDirectory } from '../helpers/catalog.ts';

let dir: string;
let out: string;
let shas: string[];
let releases: string[];
let gateway: Gateway;
let cookie: string;

const build = async () => (await buildCatalog({ repo: join(dir, 'catalog'), out, progress: false, log: () => {} })).releaseId!;

beforeAll(async () => {
  dir = await temporaryDirectory('pkgcat-floating-sbom-');
  out = join(dir, 'out');
  shas = await createCatalogRepo(join(dir, 'catalog'), [
    {
      message: 'Import app, libcore and zlib',
      time: hoursLater(1),
      files: {
        'packages/app/manifest.json': manifest('app', { version: '2.0.0', dependencies: { runtime: ['libcore'] } }),
        'packages/libcore/manifest.json': manifest('libcore', { version: '1.1.0', dependencies: { runtime: ['zlib'] } }),
        'packages/zlib/manifest.json': manifest('zlib', { version: '1.3.1' }),
      },
    },
  ]);
  releases = [await build()];
  shas.push(...(await appendCommits(join(dir, 'catalog'), [{ message: 'libcore 1.1.1', time: hoursLater(2), files: { 'packages/libcore/manifest.json': manifest('libcore', { version: '1.1.1', dependencies: { runtime: ['zlib'] } }) } }])));
  releases.push(await build());
  gateway = await startGateway(out, dir);
  cookie = await gateway.signIn();
});

afterAll(async () => {
  await gateway?.close();
  await rm(dir, { recursive: true, force: true });
});

const components = (text: string) => (JSON.parse(text) as { components: { name: string; version?: string; purl?: string }[] }).components;

it('keeps the stored SBOM of a package whose dependency shipped a new version: its components are markers', async () => {
  const [before, after] = [await releaseManifest(out, releases[0]), await releaseManifest(out, releases[1])];
  expect(after.get('api/pkgs/app/sbom.json')).toEqual(before.get('api/pkgs/app/sbom.json'));
  const entry = after.get('api/pkgs/app/sbom.json')!;
  expect(entry.components).toBe(true);
  expect(markedComponents(await readObject(out, entry.object))).toEqual([
    { scope: 'runtime', key: 'libcore' },
    { scope: 'runtime', key: 'zlib' },
  ]);
  // libcore's own SBOM changed: its root component is its record.
  expect(after.get('api/pkgs/libcore/sbom.json')!.object).not.toBe(before.get('api/pkgs/libcore/sbom.json')!.object);
});

it('the gateway serves it with the tip\'s components, byte for byte the pinned SBOM at the tip', async () => {
  const floating = await fetch(`${gateway.url}/api/pkgs/app/sbom.json`);
  expect(floating.status).toBe(200);
  const text = await floating.text();
  expect(components(text).find((component) => component.name === 'libcore')).toMatchObject({ version: '1.1.1', purl: 'pkg:generic/libcore@1.1.1' });
  const pinned = await fetch(`${gateway.url}/api/pkgs/bundle/${shas[1]}/app/sbom.json`, { headers: { cookie } });
  expect(pinned.status).toBe(200);
  expect(text).toBe(await pinned.text());
});

it('the static export writes it with the tip\'s components, the same bytes as the gateway', async () => {
  const exported = join(dir, 'export');
  await exportRelease(out, exported);
  const text = await readFile(join(exported, 'public', 'api', 'pkgs', 'app', 'sbom.json'), 'utf8');
  expect(text).toBe(await (await fetch(`${gateway.url}/api/pkgs/app/sbom.json`)).text());
});

it('a marker the tip has no component for, or a broken one, is an error, never a body with a hole in it', () => {
  const stored = Buffer.from('{"components":["\u0000runtime libcore\u0000","\u0000runtime gone\u0000"]}');
  expect(fillComponentMarkers(Buffer.from('{"components":["\u0000runtime libcore\u0000"]}'), new Map([['runtime libcore', '{"name":"libcore"}']])).toString()).toBe('{"components":[{"name":"libcore"}]}');
  expect(() => fillComponentMarkers(stored, new Map([['runtime libcore', '{}']]))).toThrow('a stored SBOM lists the component runtime gone, which the tip does not have');
  expect(() => markedComponents(Buffer.from('{"components":["\u0000runtime libcore"]}'))).toThrow('a stored SBOM holds a broken component marker');
});
