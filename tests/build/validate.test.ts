/** The build refuses to publish output that fails its own checks. */
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
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
    // A record of another commit, and a record with a field the wire schema does not have.
    const openssl = JSON.parse(await readFile(`${paths.public(damaged)}/api/pkgs/openssl.json`, 'utf8'));
    await writeFile(`${paths.public(damaged)}/api/pkgs/openssl.json`, JSON.stringify({ ...openssl, commitSha: shas[0] }));
    await writeFile(`${paths.public(damaged)}/api/pkgs/ZLIB.json`, JSON.stringify({ ...openssl, package: { ...openssl.package, internalNote: 'x' } }));
    await writeFile(`${paths.public(damaged)}/api/pkgs/notes.txt`, 'not a surface');
    await rm(`${paths.public(damaged)}/pkgs/curl.md`);
    await rm(`${paths.public(damaged)}/llms.txt`);
    await rm(paths.state(out, shas[2]));
    const error = await validateRelease(out, damaged).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BuildValidationError);
    expect([...(error as BuildValidationError).problems].sort()).toEqual([
      `commit ${shas[2]} has no state`,
      'public/api/pkgs/ZLIB.json does not match the PackageEnvelope schema: package: Unrecognized key: "internalNote"',
      'public/api/pkgs/notes.txt is no surface\'s file',
      'public/api/pkgs/openssl.json is not openssl at the tip',
      'public/api/pkgs/zlib.json does not match the PackageEnvelope schema: schemaVersion: Invalid input: expected 1; commitSha: Invalid string: must match pattern /^[0-9a-f]{40}$/; pushedAt: Invalid input: expected string, received undefined; package: Invalid input: expected object, received undefined',
      'public/llms.txt is missing',
      'the markdown mirror of curl is missing from public/',
      'the record of curl is missing from public/',
    ]);
  });

  it('names the problems of a damaged OpenAPI document: its version, its path set, an example off its schema', async () => {
    const repo = `${await temporaryDirectory()}/catalog`;
    const out = `${await temporaryDirectory()}/out`;
    await createCatalogRepo(repo, STORY);
    await build(repo, out);
    const damaged = `${await temporaryDirectory()}/release`;
    await cp(paths.release(out, (await currentReleaseId(out))!), damaged, { recursive: true });
    const file = `${paths.public(damaged)}/api/pkgs/openapi.json`;
    const document = JSON.parse(await readFile(file, 'utf8'));
    document.info.version = '2.0.0';
    delete document.paths['/api/pkgs/recent-commits.json'];
    document.paths['/api/pkgs/{name}.json'].get.responses['200'].content['application/json'].example.package.internalNote = 'x';
    await writeFile(file, JSON.stringify(document));
    const error = await validateRelease(out, damaged).catch((caught: unknown) => caught);
    expect((error as BuildValidationError).problems).toEqual([
      'the OpenAPI document is not version 3.1.0 of API 1.0.0',
      expect.stringMatching(/^the OpenAPI document's paths are not the registry's JSON API routes: /),
      'the OpenAPI example of 200 on /api/pkgs/{name}.json does not match the PackageEnvelope schema: package: Unrecognized key: "internalNote"',
    ]);
  });
});
