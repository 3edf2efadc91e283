/**
 * `pkgcat export`, `build --export`: the anonymous files of the published release as a tree a
 * static host serves as it is. The story: a catalog is built and exported; a leaf's version bump is
 * exported again (only what changed is written, and every envelope names the new tip); a package
 * removed leaves the export; a directory that holds something else is refused.
 */
import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendCommits, createCatalogRepo } from '../../demo/catalog-writer.ts';
import { hoursLater, manifest, temporaryDirectory } from '../helpers/catalog.ts';
import { cleanEnv, pkgcat } from './run.ts';

let repo: string;
let out: string;
let site: string;
let shas: string[];

const exported = (file: string) => readFile(join(site, 'public', file), 'utf8');

beforeAll(async () => {
  const dir = await temporaryDirectory();
  [repo, out, site] = [join(dir, 'catalog'), join(dir, 'out'), join(dir, 'site')];
  shas = await createCatalogRepo(repo, [
    {
      message: 'Add zlib and curl',
      time: hoursLater(0),
      files: {
        'packages/zlib/manifest.json': manifest('zlib', { version: '1.3.1' }),
        'packages/curl/manifest.json': manifest('curl', { version: '8.0.0', dependencies: { runtime: ['zlib'] } }),
        'packages/leftpad/manifest.json': manifest('leftpad', { version: '1.0.0' }),
      },
    },
  ]);
});

describe('pkgcat export', () => {
  it('before anything is published: exit 1 and one line saying to build first', async () => {
    const result = await pkgcat(['export', '--out', out, '--to', site], { env: cleanEnv() });
    expect(result).toMatchObject({ code: 1, stderr: `pkgcat: ${out} has no published release yet; run pkgcat build first\n` });
  });

  it('without --to: exit 2 naming the flag and its variable', async () => {
    expect(await pkgcat(['export', '--out', out], { env: cleanEnv() })).toMatchObject({ code: 2, stderr: 'pkgcat: --to is required (or set PKGCAT_EXPORT_TO)\n' });
  });

  it('build --export writes every anonymous file, the header rules, and what the export holds', async () => {
    const result = await pkgcat(['build', '--repo', repo, '--out', out, '--export', site, '--log-format', 'text'], { env: cleanEnv() });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^pkgcat: exported release 000001-[0-9a-f]{12} into .*\/site: \d+ files written, 0 unchanged, 0 removed$/m);
    expect((await readdir(site)).sort()).toEqual(['export.json', 'public', 'static']);
    expect((await readdir(join(site, 'static'))).sort()).toEqual(['nginx-anonymous-gateway.conf', 'nginx-anonymous.conf']);
    const envelope = JSON.parse(await exported('api/pkgs/zlib.json'));
    expect([envelope.commitSha, envelope.package.name, envelope.package.version]).toEqual([shas[0], 'zlib', '1.3.1']);
    expect(await exported('pkgs/zlib.html')).toContain(`<script type="application/json" id="envelope">${await exported('api/pkgs/zlib.json')}</script>`);
    for (const file of ['_headers', 'index.html', 'llms.txt', 'sitemap.xml', 'pkgs/curl.md', 'api/pkgs/curl/sbom.json', 'api/pkgs/curl/badge.svg', 'api/pkgs/openapi.json']) {
      expect((await stat(join(site, 'public', file))).size, file).toBeGreaterThan(0);
    }
  });

  it('again after a leaf\'s version bump: writes what changed and what carries the tip, keeps the rest as it was', async () => {
    shas.push(...(await appendCommits(repo, [{ message: 'Bump leftpad', time: hoursLater(1), files: { 'packages/leftpad/manifest.json': manifest('leftpad', { version: '1.0.1' }) } }])));
    expect((await pkgcat(['build', '--repo', repo, '--out', out, '--quiet'], { env: cleanEnv() })).code).toBe(0);
    const before = { mirror: (await stat(join(site, 'public', 'pkgs/zlib.md'))).ino, envelope: (await stat(join(site, 'public', 'api/pkgs/zlib.json'))).ino };
    const result = await pkgcat(['export', '--out', out, '--to', site, '--log-format', 'text'], { env: cleanEnv() });
    expect(result.code).toBe(0);
    const [, written, unchanged, removed] = /: (\d+) files written, (\d+) unchanged, (\d+) removed$/m.exec(result.stderr)!.map(Number);
    expect(removed).toBe(0);
    // zlib's mirror did not change: the same file. Its envelope carries the tip: a new file with the new sha.
    expect((await stat(join(site, 'public', 'pkgs/zlib.md'))).ino).toBe(before.mirror);
    expect((await stat(join(site, 'public', 'api/pkgs/zlib.json'))).ino).not.toBe(before.envelope);
    expect(JSON.parse(await exported('api/pkgs/zlib.json')).commitSha).toBe(shas[1]);
    expect(await exported('pkgs/leftpad.md')).toContain('- **Version:** 1.0.1');
    expect(unchanged).toBeGreaterThan(written / 4);

    // Nothing changed since: nothing is written.
    expect((await pkgcat(['export', '--out', out, '--to', site, '--log-format', 'text'], { env: cleanEnv() })).stderr).toMatch(/: 0 files written, \d+ unchanged, 0 removed$/m);
  });

  it('removes the files of a package the catalog dropped', async () => {
    await appendCommits(repo, [{ message: 'Drop leftpad', time: hoursLater(2), files: { 'packages/leftpad/manifest.json': null } }]);
    const result = await pkgcat(['build', '--repo', repo, '--out', out, '--export', site, '--log-format', 'text'], { env: cleanEnv() });
    expect(result.stderr).toMatch(/, [1-9]\d* removed$/m);
    await expect(stat(join(site, 'public', 'pkgs/leftpad.md'))).rejects.toThrow();
    await expect(stat(join(site, 'public', 'api/pkgs/leftpad.json'))).rejects.toThrow();
  });

  it('refuses a directory that holds something else, and writes nothing into it', async () => {
    const other = await temporaryDirectory();
    await writeFile(join(other, 'index.html'), 'my own site');
    const result = await pkgcat(['export', '--out', out, '--to', other], { env: cleanEnv() });
    expect(result).toMatchObject({ code: 1, stderr: `pkgcat: ${other} is not empty and holds no pkgcat export; export into a new or empty directory\n` });
    expect(await readdir(other)).toEqual(['index.html']);
  });
});
