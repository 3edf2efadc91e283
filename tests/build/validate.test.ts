/** The build refuses to publish output that fails its own checks. */
import { cp, rm, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createCatalogRepo } from '../../demo/catalog-writer.ts';
import { BuildValidationError, validateRelease } from '../../build/validate.ts';
import { currentReleaseId, paths } from '../../src/store/layout.ts';
import { build, temporaryDirectory } from '../helpers/catalog.ts';
import { STORY } from './story.ts';

describe('validateRelease', () => {
  it('passes the release the build published, and names each problem of a damaged copy', async () => {
    const repo = `${await temporaryDirectory()}/catalog`;
    const out = `${await temporaryDirectory()}/out`;
    const shas = await createCatalogRepo(repo, STORY);
    await build(repo, out);
    const published = paths.release(out, (await currentReleaseId(out))!);
    await expect(validateRelease(out, published)).resolves.toBeUndefined();

    const damaged = `${await temporaryDirectory()}/release`;
    await cp(published, damaged, { recursive: true });
    await rm(`${paths.public(damaged)}/api/pkgs/curl.json`);
    await writeFile(`${paths.public(damaged)}/api/pkgs/zlib.json`, '{"commitSha":"0000"}');
    await rm(paths.state(out, shas[2]));
    const error = await validateRelease(out, damaged).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BuildValidationError);
    expect((error as BuildValidationError).problems).toEqual([
      `commit ${shas[2]} has no state`,
      expect.stringMatching(/api\/pkgs\/curl\.json is missing or not JSON$/),
      expect.stringMatching(/api\/pkgs\/zlib\.json is not zlib at the tip$/),
    ]);
  });
});
