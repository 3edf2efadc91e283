/** Bad catalog data through the real build: one diagnostic per bad file, naming every bad field. */
import { describe, expect, it } from 'vitest';
import { createCatalogRepo } from '../../demo/catalog-writer.ts';
import { readStateRoot } from '../../src/store/layout.ts';
import { buildCatalog } from '../../build/build.ts';
import { hoursLater, manifest, pinnedJson, temporaryDirectory } from '../helpers/catalog.ts';

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
