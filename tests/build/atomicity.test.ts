/**
 * A build that fails or is killed leaves the output serving exactly what it served before, and
 * the next build completes (CLI.md `build`; the SIGKILL requirement).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { appendCommits, createCatalogRepo, type CatalogCommit } from '../../demo/catalog-writer.ts';
import { currentReleaseId } from '../../src/store/layout.ts';
import { openObjects } from '../../src/store/objects.ts';
import { build, hoursLater, manifest, pinnedBodies, publicFiles, temporaryDirectory } from '../helpers/catalog.ts';
import { STORY } from './story.ts';

const PKGCAT = fileURLToPath(new URL('../../bin/pkgcat.js', import.meta.url));

/** Many small commits: enough work that the build is still running when we look. */
function upgrades(count: number): CatalogCommit[] {
  return Array.from({ length: count }, (_, index) => ({
    message: `Upgrade zlib to 2.0.${index}`,
    time: hoursLater(100 + index),
    files: { 'packages/zlib/manifest.json': manifest('zlib', { version: `2.0.${index}`, license: 'Zlib' }) },
  }));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('atomic publishing', () => {
  it('survives SIGKILL mid-build: the old release keeps serving, the next build completes', async () => {
    const repo = `${await temporaryDirectory()}/catalog`;
    const out = `${await temporaryDirectory()}/out`;
    const shas = await createCatalogRepo(repo, STORY);
    await build(repo, out);
    const release = await currentReleaseId(out);
    const served = await publicFiles(out);
    const tipBodies = await pinnedBodies(out, shas.at(-1)!);

    const newShas = await appendCommits(repo, upgrades(150));
    const child = spawn(process.execPath, [PKGCAT, 'build', '--repo', repo, '--out', out, '--quiet'], { stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    // Wait (a bounded number of looks) until the child has stored a few new states, then kill it.
    const objects = openObjects(out);
    for (let look = 0; look < 3000 && !(await objects.hasRoot(newShas[5])); look++) await sleep(5);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    expect(await currentReleaseId(out)).toBe(release);
    expect(await publicFiles(out)).toEqual(served);
    expect(await pinnedBodies(out, shas.at(-1)!)).toEqual(tipBodies);

    const result = await build(repo, out);
    expect(result.tip).toBe(newShas.at(-1));
    expect(JSON.parse((await publicFiles(out)).get('api/pkgs/zlib.json')!).package.version).toBe('2.0.149');

    // And the interrupted-then-resumed output equals a clean build of the same history.
    const clean = `${await temporaryDirectory()}/clean`;
    await build(repo, clean);
    for (const sha of [shas.at(-1)!, newShas[0], newShas[75], newShas.at(-1)!]) {
      expect(await pinnedBodies(out, sha)).toEqual(await pinnedBodies(clean, sha));
    }
    expect(await publicFiles(out)).toEqual(await publicFiles(clean));
  });
});
