/**
 * The bodies behind a sha never change: building from scratch, or one commit at a time, gives
 * byte-identical output; the chunked assembly equals the bundle composed whole.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { appendCommits, createCatalogRepo, git } from '../../demo/catalog-writer.ts';
import { PackObjects } from '../../src/store/objects.ts';
import { build, pinnedBodies, publicFiles, temporaryDirectory } from '../helpers/catalog.ts';
import { Builder } from '../../build/build.ts';
import { checkpointDirectory } from '../../build/checkpoints.ts';
import { readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { STORY } from './story.ts';
import { expectBundlesEqualWholeComposition } from './whole-composition.ts';
import { demoCommits } from '../../demo/make-demo-catalog.ts';

/**
 * An output built one commit at a time against the same history built from scratch: the same
 * state root for every commit, and every object of the scratch build, byte for byte, in the
 * other too (which also holds the documents of the releases published in between: a release's
 * documents are objects, src/store/manifest.ts).
 */
async function expectSameOutput(scratchOut: string, stepsOut: string, shas: readonly string[]): Promise<void> {
  const [scratch, steps] = [await storedItems(scratchOut, shas), await storedItems(stepsOut, shas)];
  // A checkpoint is the build's own memory, not a body: a builder that stays up saves fewer.
  const checkpointed = await checkpointSegments(scratchOut);
  const bodies = [...scratch].filter(([item]) => !checkpointed.has(item.replace(/\.(br|gz)$/, '')));
  expect(bodies.filter(([item]) => !steps.has(item)).map(([item]) => item)).toEqual([]);
  for (const [item, bytes] of bodies) expect(steps.get(item)!.equals(bytes), item).toBe(true);
}

/** The objects the checkpoints of an output are stored in. */
async function checkpointSegments(out: string): Promise<Set<string>> {
  const files = await readdir(checkpointDirectory(out));
  const lists = await Promise.all(files.map(async (file) => (JSON.parse(await readFile(join(checkpointDirectory(out), file), 'utf8')) as { segments: string[] }).segments));
  return new Set(lists.flat());
}

/**
 * Every item of an output's packs: each object by `<hash>` and its copies by `<hash>.br`,
 * `<hash>.gz`, and the state roots of `shas` by `root <sha>` (the packs themselves may differ).
 */
async function storedItems(out: string, shas: readonly string[]): Promise<Map<string, Buffer>> {
  const objects = new PackObjects(out);
  const items = new Map<string, Buffer>();
  for await (const hash of objects.list()) {
    for (const [encoding, suffix] of [['identity', ''], ['br', '.br'], ['gzip', '.gz']] as const) {
      const bytes = await objects.get(hash, encoding);
      if (bytes) items.set(`${hash}${suffix}`, bytes);
    }
  }
  for (const sha of shas) {
    const root = await objects.getRoot(sha);
    expect(root, `the state root of ${sha}`).not.toBeNull();
    items.set(`root ${sha}`, root!);
  }
  await objects.close();
  return items;
}

let scratchOut: string;
let stepOut: string;
let shas: string[];
let repo: string;

beforeAll(async () => {
  repo = `${await temporaryDirectory()}/scratch`;
  shas = await createCatalogRepo(repo, STORY);
  scratchOut = `${await temporaryDirectory()}/out`;
  await build(repo, scratchOut);

  // The same history, arriving one commit at a time, each followed by a build.
  const stepRepo = `${await temporaryDirectory()}/steps`;
  stepOut = `${await temporaryDirectory()}/out`;
  const stepShas = await createCatalogRepo(stepRepo, STORY.slice(0, 1));
  await build(stepRepo, stepOut);
  for (const commit of STORY.slice(1)) {
    stepShas.push(...(await appendCommits(stepRepo, [commit])));
    await build(stepRepo, stepOut);
  }
  expect(stepShas).toEqual(shas);
});

describe('deterministic builds', () => {
  it('stores the same state roots and objects built from scratch and incrementally', async () => {
    await expectSameOutput(scratchOut, stepOut, shas);
  });

  it('publishes byte-identical floats-latest files', async () => {
    expect(await publicFiles(stepOut)).toEqual(await publicFiles(scratchOut));
  });

  it('gives the same bytes for every sha-pinned body of every commit', async () => {
    for (const sha of shas) expect(await pinnedBodies(stepOut, sha)).toEqual(await pinnedBodies(scratchOut, sha));
  });
});

describe('chunked bundles equal the bundles composed whole', () => {
  it('assembles, for every commit, exactly serialize(composeListingBundle) and serialize(composeFullBundle)', async () => {
    await expectBundlesEqualWholeComposition(repo, shas.at(-1)!, scratchOut);
  });
});

describe('the demo history (42 commits) built one commit at a time', () => {
  it('matches the scratch build byte for byte, and each bundle matches its whole composition', async () => {
    const commits = demoCommits();
    const scratch = `${await temporaryDirectory()}/demo`;
    const demoShas = await createCatalogRepo(scratch, commits);
    const scratchDemoOut = `${await temporaryDirectory()}/out`;
    await build(scratch, scratchDemoOut);

    const steps = `${await temporaryDirectory()}/demo-steps`;
    const stepsOut = `${await temporaryDirectory()}/out`;
    await createCatalogRepo(steps, commits.slice(0, 1));
    await build(steps, stepsOut);
    for (const commit of commits.slice(1)) {
      await appendCommits(steps, [commit]);
      await build(steps, stepsOut);
    }
    await expectSameOutput(scratchDemoOut, stepsOut, demoShas);
    expect(await publicFiles(stepsOut)).toEqual(await publicFiles(scratchDemoOut));

    await expectBundlesEqualWholeComposition(scratch, demoShas.at(-1)!, stepsOut);
    // 43 builds: a minute on an idle 2-core machine, several on a busy one.
  }, 600_000);
});

describe('one builder building commit after commit (the build process of serve --repo)', () => {
  const options = (repo: string, out: string) => ({ repo, out, progress: false, log: () => {} });

  it('starts each build from the state it kept, not from a checkpoint, and stores what a build from scratch stores', async () => {
    const warmRepo = `${await temporaryDirectory()}/warm`;
    const warmOut = `${await temporaryDirectory()}/out`;
    await createCatalogRepo(warmRepo, STORY.slice(0, 1));
    const builder = new Builder();
    let result = await builder.build(options(warmRepo, warmOut));
    for (const commit of STORY.slice(1)) {
      const [sha] = await appendCommits(warmRepo, [commit]);
      // Without its kept state, a build with no checkpoint reads the history from the root.
      await rm(checkpointDirectory(warmOut), { recursive: true, force: true });
      const before = result.tip;
      result = await builder.build(options(warmRepo, warmOut));
      expect([result.tip, result.resumedFrom, result.applied]).toEqual([sha, before, 1]);
    }
    builder.close();
    await expectSameOutput(scratchOut, warmOut, shas);
    expect(await publicFiles(warmOut)).toEqual(await publicFiles(scratchOut));
  });

  it('starts from a checkpoint when another build published in between, or main was force-pushed', async () => {
    const warmRepo = `${await temporaryDirectory()}/warm`;
    const warmOut = `${await temporaryDirectory()}/out`;
    const original = await createCatalogRepo(warmRepo, STORY.slice(0, 4));
    const builder = new Builder();
    // The builder saves its tip's checkpoint at every 4th commit (and only there): at original[3], not at `after`.
    const spaced = { ...options(warmRepo, warmOut), checkpointSpacings: [4] };
    await builder.build(spaced);
    // Another process builds the next commit: the builder's state is of an older release.
    const [next] = await appendCommits(warmRepo, [STORY[4]]);
    await build(warmRepo, warmOut);
    const [after] = await appendCommits(warmRepo, [STORY[5]]);
    expect(await builder.build(spaced)).toMatchObject({ tip: after, resumedFrom: next, applied: 1 });
    // main rewritten below the builder's tip: its state is of a commit main no longer has.
    await git(warmRepo, ['update-ref', 'refs/heads/main', original[3]]);
    const [rewritten] = await appendCommits(warmRepo, [{ message: 'Another way: drop curl', time: STORY[4].time, files: { 'packages/curl/manifest.json': null } }]);
    const result = await builder.build(spaced);
    builder.close();
    expect([result.tip, result.resumedFrom]).toEqual([rewritten, original[3]]);
  });

  it('reads the history from the root when main was replaced by one that shares no commit with its state', async () => {
    const warmRepo = `${await temporaryDirectory()}/warm`;
    const warmOut = `${await temporaryDirectory()}/out`;
    await createCatalogRepo(warmRepo, STORY.slice(0, 4));
    const builder = new Builder();
    await builder.build(options(warmRepo, warmOut));
    // Another history altogether (another first commit): no commit of it has the builder's state or a checkpoint.
    const other = STORY.slice(0, 2).map((commit) => ({ ...commit, message: `${commit.message} (again)` }));
    const otherRepo = `${await temporaryDirectory()}/other`;
    const otherShas = await createCatalogRepo(otherRepo, other);
    await git(warmRepo, ['fetch', '-q', otherRepo, 'main']);
    await git(warmRepo, ['update-ref', 'refs/heads/main', otherShas[1]]);
    const result = await builder.build(options(warmRepo, warmOut));
    builder.close();
    expect([result.tip, result.resumedFrom, result.applied]).toEqual([otherShas[1], null, 2]);
    const cleanOut = `${await temporaryDirectory()}/out`;
    await build(otherRepo, cleanOut);
    expect(await publicFiles(warmOut)).toEqual(await publicFiles(cleanOut));
  });

  it('fails the next build with the reason a first build gives when the repository it kept goes away', async () => {
    const warmRepo = `${await temporaryDirectory()}/warm`;
    const warmOut = `${await temporaryDirectory()}/out`;
    await createCatalogRepo(warmRepo, STORY.slice(0, 1));
    const builder = new Builder();
    await builder.build(options(warmRepo, warmOut));
    await rename(warmRepo, `${warmRepo}-moved`);
    await expect(builder.build(options(warmRepo, warmOut))).rejects.toThrow(`${warmRepo} does not exist`);
    builder.close();
  });
});

describe('a force-pushed main', () => {
  it('builds the new commits exactly as a clean build of the rewritten history would', async () => {
    const rewritten = [...STORY.slice(0, 4), { message: 'Another way: drop curl', time: STORY[4].time, files: { 'packages/curl/manifest.json': null } }];
    const pushed = `${await temporaryDirectory()}/pushed`;
    const pushedOut = `${await temporaryDirectory()}/out`;
    const original = await createCatalogRepo(pushed, STORY);
    await build(pushed, pushedOut);
    await git(pushed, ['update-ref', 'refs/heads/main', original[3]]);
    const [tip] = await appendCommits(pushed, rewritten.slice(4));

    const clean = `${await temporaryDirectory()}/clean`;
    const cleanOut = `${await temporaryDirectory()}/out`;
    expect((await createCatalogRepo(clean, rewritten)).at(-1)).toBe(tip);
    await build(clean, cleanOut);

    expect(await build(pushed, pushedOut)).toMatchObject({ tip, composed: 1, commits: 5 });
    expect(await pinnedBodies(pushedOut, tip)).toEqual(await pinnedBodies(cleanOut, tip));
    expect(await publicFiles(pushedOut)).toEqual(await publicFiles(cleanOut));
  });
});
