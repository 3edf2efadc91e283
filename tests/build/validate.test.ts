/** The build refuses to publish output that fails its own checks. */
import { cp, readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createCatalogRepo } from '../../demo/catalog-writer.ts';
import { BuildValidationError, validateRelease } from '../../build/validate.ts';
import { ChunkedCollection } from '../../build/chunks.ts';
import { ObjectStore } from '../../build/objects.ts';
import { currentReleaseId, paths, readJson, readObject, readStateRoot, type ChunkRef, type ReleaseInfo, type StateRootFile } from '../../src/store/layout.ts';
import { manifestEntries, renderManifestChunk, type ManifestEntry } from '../../src/store/manifest.ts';
import { openObjects } from '../../src/store/objects.ts';
import { build, temporaryDirectory } from '../helpers/catalog.ts';
import { STORY } from './story.ts';

/** A copy of the published release whose manifest `damage` changed (bodies it puts are stored as objects). */
async function damagedCopy(out: string, damage: (entries: Map<string, ManifestEntry>, put: (body: string) => Promise<ManifestEntry>, body: (path: string) => Promise<string>) => Promise<void>): Promise<string> {
  const published = paths.release(out, (await currentReleaseId(out))!);
  const entries = new Map<string, ManifestEntry>();
  for await (const [path, entry] of manifestEntries(openObjects(out), await readJson<ChunkRef[]>(paths.manifest(published)))) entries.set(path, entry);
  const store = new ObjectStore(out);
  await damage(entries, async (text) => ({ object: await store.put(text) }), async (path) => (await readObject(out, entries.get(path)!.object)).toString('utf8'));
  const damaged = `${await temporaryDirectory()}/release`;
  await cp(published, damaged, { recursive: true });
  const refs = await new ChunkedCollection(renderManifestChunk, entries).flush(store);
  await store.settled();
  await writeFile(paths.manifest(damaged), JSON.stringify(refs));
  return damaged;
}

/**
 * The story's release checked again with its tip replaced by a copy under another sha, whose state
 * `damage` changed (storing what it needs), against the story's tip as the one checked before.
 */
async function checkDamagedTip(
  steps: typeof STORY,
  damage: (root: StateRootFile, store: ObjectStore & { out: string }) => Promise<{ root: StateRootFile; object: string }>,
): Promise<{ error: BuildValidationError; object: string }> {
  const repo = `${await temporaryDirectory()}/catalog`;
  const out = `${await temporaryDirectory()}/out`;
  await createCatalogRepo(repo, steps);
  await build(repo, out);
  const published = paths.release(out, (await currentReleaseId(out))!);
  const info = await readJson<ReleaseInfo>(paths.releaseInfo(published));
  const tip = info.tip!;
  const root = JSON.parse((await openObjects(out).getRoot(tip.sha))!.toString('utf8')) as StateRootFile;
  const store = Object.assign(new ObjectStore(out), { out });
  const damagedSha = 'd'.repeat(40);
  const damaged = await damage(root, store);
  await store.settled();
  await store.putRoot(damagedSha, JSON.stringify({ ...damaged.root, commit: { ...root.commit, sha: damagedSha } }));
  await store.close();
  const release = `${await temporaryDirectory()}/release`;
  await cp(published, release, { recursive: true });
  await writeFile(paths.releaseInfo(release), JSON.stringify({ ...info, tip: { ...tip, sha: damagedSha } }));
  const chain = JSON.parse(await readFile(paths.chain(release), 'utf8')) as { sha: string }[];
  await writeFile(paths.chain(release), JSON.stringify([{ ...chain[0], sha: damagedSha }, ...chain.slice(1)]));
  const error = await validateRelease(out, release, { writtenStates: [damagedSha], checkedTip: await readStateRoot(out, tip.sha) }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(BuildValidationError);
  return { error: error as BuildValidationError, object: damaged.object };
}

describe('validateRelease', () => {
  it('passes the release the build published, and names each problem of a damaged copy', async () => {
    const repo = `${await temporaryDirectory()}/catalog`;
    const out = `${await temporaryDirectory()}/out`;
    const shas = await createCatalogRepo(repo, STORY);
    await build(repo, out);
    const published = paths.release(out, (await currentReleaseId(out))!);
    await expect(validateRelease(out, published)).resolves.toBeUndefined();

    const damaged = await damagedCopy(out, async (entries, put, body) => {
      entries.delete('api/pkgs/curl.json');
      entries.set('api/pkgs/zlib.json', await put('{"commitSha":"0000"}'));
      // A record of another commit, and a record with a field the wire schema does not have.
      const openssl = JSON.parse(await body('api/pkgs/openssl.json'));
      entries.set('api/pkgs/openssl.json', await put(JSON.stringify({ ...openssl, commitSha: shas[0] })));
      entries.set('api/pkgs/ZLIB.json', await put(JSON.stringify({ ...openssl, commitSha: shas.at(-1), package: { ...openssl.package, internalNote: 'x' } })));
      entries.set('api/pkgs/notes.txt', await put('not a surface'));
      // A badge cut short, and a variant badge missing.
      entries.set('api/pkgs/zlib/badge.svg', await put((await body('api/pkgs/zlib/badge.svg')).slice(0, 100)));
      entries.delete('api/pkgs/openssl/badge.advisories.svg');
      entries.delete('pkgs/curl.md');
      entries.delete('llms.txt');
    });
    // A commit the build says it wrote whose state root is not in the packs.
    const unbuilt = 'e'.repeat(40);
    const error = await validateRelease(out, damaged, { writtenStates: [...shas, unbuilt] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BuildValidationError);
    expect([...(error as BuildValidationError).problems].sort()).toEqual([
      'api/pkgs/ZLIB.json does not match the PackageEnvelope schema: package: Unrecognized key: "internalNote"',
      'api/pkgs/curl.json is missing',
      'api/pkgs/notes.txt is no surface\'s file',
      'api/pkgs/openssl.json is not openssl at the tip',
      'api/pkgs/openssl/badge.advisories.svg is missing',
      'api/pkgs/zlib.json does not match the PackageEnvelope schema: schemaVersion: Invalid input: expected 1; commitSha: Invalid string: must match pattern /^[0-9a-f]{40}$/; pushedAt: Invalid input: expected string, received undefined; package: Invalid input: expected object, received undefined',
      'api/pkgs/zlib/badge.svg is not an image/svg+xml body',
      `commit ${unbuilt} has no state`,
      'llms.txt is missing',
      'the markdown mirror of curl is missing',
    ]);
  });

  it("checks what changed from a release it checked whole (a builder that stays up): dropped files, new names' files, new files' owners", async () => {
    const repo = `${await temporaryDirectory()}/catalog`;
    const out = `${await temporaryDirectory()}/out`;
    await createCatalogRepo(repo, STORY);
    await build(repo, out);
    const published = paths.release(out, (await currentReleaseId(out))!);
    const names = await readJson<Record<string, string>>(paths.names(published));
    const damaged = await damagedCopy(out, async (entries, put) => {
      entries.delete('api/pkgs/curl.json');
      entries.delete('pkgs/curl.md');
      entries.delete('llms.txt');
      entries.delete('api/pkgs/openssl/badge.advisories.svg');
      entries.set('api/pkgs/notes.txt', await put('not a surface'));
      entries.set('api/pkgs/unchanged.txt', await put('not a surface either'));
    });
    // curl's files and llms.txt were dropped, openssl is new since the release before, notes.txt is new.
    const changes = {
      files: new Set(['api/pkgs/notes.txt']),
      dropped: ['api/pkgs/curl.json', 'pkgs/curl.md', 'llms.txt'],
      previousNames: new Map(Object.entries(names).filter(([key]) => key !== 'openssl')),
    };
    const error = await validateRelease(out, damaged, { documentProblems: [], changes }).catch((caught: unknown) => caught);
    expect([...(error as BuildValidationError).problems].sort()).toEqual([
      'api/pkgs/curl.json is missing',
      'api/pkgs/notes.txt is no surface\'s file',
      'api/pkgs/openssl/badge.advisories.svg is missing',
      'llms.txt is missing',
      'the markdown mirror of curl is missing',
    ]);
    // Checked whole, the file that did not change is named too.
    const whole = await validateRelease(out, damaged, { documentProblems: [] }).catch((caught: unknown) => caught);
    expect((whole as BuildValidationError).problems).toContain('api/pkgs/unchanged.txt is no surface\'s file');
  });

  it('names the problems of a damaged OpenAPI document: its version, its path set, an example off its schema', async () => {
    const repo = `${await temporaryDirectory()}/catalog`;
    const out = `${await temporaryDirectory()}/out`;
    await createCatalogRepo(repo, STORY);
    await build(repo, out);
    const damaged = await damagedCopy(out, async (entries, put, body) => {
      const document = JSON.parse(await body('api/pkgs/openapi.json'));
      document.info.version = '2.0.0';
      delete document.paths['/api/pkgs/recent-commits.json'];
      document.paths['/api/pkgs/{name}.json'].get.responses['200'].content['application/json'].example.package.internalNote = 'x';
      entries.set('api/pkgs/openapi.json', await put(JSON.stringify(document)));
    });
    const error = await validateRelease(out, damaged).catch((caught: unknown) => caught);
    expect((error as BuildValidationError).problems).toEqual([
      'the OpenAPI document is not version 3.1.0 of API 1.0.0',
      expect.stringMatching(/^the OpenAPI document's paths are not the registry's JSON API routes: /),
      'the OpenAPI example of 200 on /api/pkgs/{name}.json does not match the PackageEnvelope schema: package: Unrecognized key: "internalNote"',
    ]);
  });

  it("names a full bundle whose transitive chunk breaks its schema, and whose length is not the one recorded", async () => {
    // The story up to ADV-1: zlib's advisory reaches curl and openssl, whose entries are the tip's transitive chunks.
    const { error, object } = await checkDamagedTip(STORY.slice(0, 2), async (root, store) => {
      expect(root.transitive.length).toBeGreaterThan(0);
      // Its first transitive chunk has an entry with a one-name path.
      const first = (await readObject(store.out, root.transitive[0].object)).toString('utf8');
      const broken = first.replace(/"culpritPath":\["([^"]+)","[^\]]*\]/, '"culpritPath":["$1"]');
      expect(broken).not.toBe(first);
      const object = await store.put(broken);
      return { root: { ...root, transitive: [{ ...root.transitive[0], object }, ...root.transitive.slice(1)] }, object };
    });
    expect(error.problems.filter((problem) => problem.startsWith("the tip's full-bundle"))).toEqual([
      `the tip's full-bundle does not match the FullBundle schema: its transitive chunk ${object}, entry 0: culpritPath: Too small: expected array to have >=2 items`,
      "the tip's full-bundle does not have its recorded length",
    ]);
  });

  it('names a listing bundle whose card breaks its schema', async () => {
    const { error, object } = await checkDamagedTip(STORY.slice(0, 2), async (root, store) => {
      // Its first chunk of cards has a card whose "advisories" is spelled "advisorie5": as long, so only the shape is wrong.
      const segment = root.listing.segments.find((candidate) => typeof candidate !== 'string');
      if (!segment || typeof segment === 'string') throw new Error('the listing has no chunk of cards');
      const first = (await readObject(store.out, segment.object)).toString('utf8');
      const object = await store.put(first.replace('{"advisories":', '{"advisorie5":'));
      return { root: { ...root, listing: { ...root.listing, segments: root.listing.segments.map((candidate) => (candidate === segment ? { object } : candidate)) } }, object };
    });
    expect(error.problems.filter((problem) => problem.startsWith("the tip's listing-bundle"))).toEqual([
      `the tip's listing-bundle does not match the ListingBundle schema: its chunk ${object}, card 0: advisories: Invalid input: expected array, received undefined; (body): Unrecognized key: "advisorie5"`,
    ]);
  });

  it('names a listing bundle whose length is not the one recorded, reading only the chunk the tip before it does not hold', async () => {
    const { error } = await checkDamagedTip(STORY.slice(0, 2), async (root, store) => {
      // A space after a card's brace: the same cards, one byte more than the listing records.
      const segment = root.listing.segments.find((candidate) => typeof candidate !== 'string');
      if (!segment || typeof segment === 'string') throw new Error('the listing has no chunk of cards');
      const first = (await readObject(store.out, segment.object)).toString('utf8');
      const object = await store.put(first.replace('{"advisories":', '{ "advisories":'));
      return { root: { ...root, listing: { ...root.listing, segments: root.listing.segments.map((candidate) => (candidate === segment ? { object } : candidate)) } }, object };
    });
    expect(error.problems.filter((problem) => problem.startsWith("the tip's listing-bundle"))).toEqual(["the tip's listing-bundle does not have its recorded length"]);
  });
});
