/** Bad catalog data through the real build: one diagnostic per bad file, naming every bad field. */
import { describe, expect, it } from 'vitest';
import { createCatalogRepo } from '../../demo/catalog-writer.ts';
import { readStateRoot } from '../../src/store/layout.ts';
import { buildCatalog } from '../../build/build.ts';
import { advisory, hoursLater, manifest, pinnedJson, releaseFile, temporaryDirectory } from '../helpers/catalog.ts';

describe('a manifest with three bad fields', () => {
  it('gives one error diagnostic that names all three, and leaves the package out of that commit', async () => {
    const repo = `${await temporaryDirectory()}/catalog`;
    const out = `${await temporaryDirectory()}/out`;
    const bad = manifest('sqlite', { stars: -1, archive: { url: 'https://sqlite.org/sqlite.tar.gz', sha256: 'NOT-HEX' } });
    delete bad.version;
    const shas = await createCatalogRepo(repo, [
      { message: 'Add zlib', time: hoursLater(0), files: { 'packages/zlib/manifest.json': manifest('zlib') } },
      { message: 'Add sqlite (three bad fields)', time: hoursLater(1), files: { 'packages/sqlite/manifest.json': bad } },
    ]);
    const lines: string[] = [];
    await buildCatalog({ repo, out, progress: false, log: (line) => lines.push(line) });
    const root = await readStateRoot(out, shas[1]!);
    expect(root?.diagnostics).toEqual([
      {
        commit: shas[1],
        path: 'packages/sqlite/manifest.json',
        level: 'error',
        message:
          'manifest.json: "version" is required; "stars" must be an integer >= 0; "archive.sha256" must be 64 lowercase hex characters; the package is left out of this commit',
      },
    ]);
    expect(lines.filter((line) => line.startsWith('diagnostic'))).toEqual([
      `diagnostic error: commit ${shas[1]!.slice(0, 12)} packages/sqlite/manifest.json: ${root?.diagnostics[0]?.message}`,
    ]);
    const listing = await pinnedJson(out, shas[1]!, 'listing');
    expect(listing.packages.map((pkg: { name: string }) => pkg.name)).toEqual(['zlib']);
  });
});

describe('links that are not http(s) URLs (pages will link them)', () => {
  it('a javascript: homepage and a file: advisory reference become warnings and are left out; the package and the advisory stay', async () => {
    const repo = `${await temporaryDirectory()}/catalog`;
    const out = `${await temporaryDirectory()}/out`;
    const osv = advisory('ADV-LINK-1', { package: 'zlib' });
    osv.references = [{ type: 'WEB', url: 'file:///etc/passwd' }, { type: 'ADVISORY', url: 'https://example.org/ADV-LINK-1' }];
    const [sha] = await createCatalogRepo(repo, [
      {
        message: 'Add zlib with a script for a homepage',
        time: hoursLater(0),
        files: {
          'packages/zlib/manifest.json': manifest('zlib', { homepage: 'javascript:alert(1)', repository: 'https://github.com/madler/zlib' }),
          'advisories/ADV-LINK-1.json': osv,
        },
      },
    ]);
    const lines: string[] = [];
    await buildCatalog({ repo, out, progress: false, log: (line) => lines.push(line) });
    const homepage = 'manifest.json: "homepage" is not an http(s) URL: "javascript:alert(1)"; the field is left out';
    const reference = 'advisory: "references[0].url" is not an http(s) URL: "file:///etc/passwd"; the reference is left out';
    expect(await releaseFile(out, 'diagnostics.json')).toEqual([
      { commit: sha, path: 'packages/zlib/manifest.json', level: 'warning', message: homepage },
      { commit: sha, path: 'advisories/ADV-LINK-1.json', level: 'warning', message: reference },
    ].sort((a, b) => (a.path < b.path ? -1 : 1)));
    expect(lines).toContain(`diagnostic warning: commit ${sha!.slice(0, 12)} packages/zlib/manifest.json: ${homepage}`);

    const full = await pinnedJson(out, sha!, 'full');
    const zlib = full.packages.find((pkg: { name: string }) => pkg.name === 'zlib');
    expect(zlib).toMatchObject({ homepage: null, repository: 'https://github.com/madler/zlib' });
    expect(zlib.advisories.map((adv: { id: string; references: unknown }) => [adv.id, adv.references])).toEqual([
      ['ADV-LINK-1', [{ type: 'ADVISORY', url: 'https://example.org/ADV-LINK-1' }]],
    ]);
  });
});
