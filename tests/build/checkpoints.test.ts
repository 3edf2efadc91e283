/**
 * Checkpoints along the chain (build/checkpoints.ts): a force-push that rewrites or drops the last
 * commits resumes from the newest checkpoint still on main, reading a few commits again instead of
 * the whole history (BuildResult.applied counts them), and builds exactly what a clean build of the
 * new history builds. The demo history (42 commits) with checkpoints every 4 commits.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Builder, buildCatalog, type BuildResult } from '../../build/build.ts';
import { KEEP_PER_SPACING, KEEP_RECENT, checkpointDirectory } from '../../build/checkpoints.ts';
import { appendCommits, createCatalogRepo, git, type CatalogCommit } from '../../demo/catalog-writer.ts';
import { demoCommits } from '../../demo/make-demo-catalog.ts';
import { pinnedBodies, publicFiles, releaseFile, temporaryDirectory } from '../helpers/catalog.ts';

const SPACING = 4;
const build = (repo: string, out: string): Promise<BuildResult> =>
  buildCatalog({ repo, out, progress: false, log: () => {}, checkpointSpacings: [SPACING] });

/** The shas that have a checkpoint, sorted. */
async function checkpointed(out: string): Promise<string[]> {
  return (await readdir(checkpointDirectory(out))).map((name) => name.replace('.json', '')).sort();
}

/** `commits` told apart from the originals: same files, another message, so other shas. */
const rewrite = (commits: CatalogCommit[]) => commits.map((commit) => ({ ...commit, message: `${commit.message} (rewritten)` }));

/** The bodies of every commit of `chain` and the floating files are those of a clean build of the same history. */
async function expectSameAsCleanBuild(out: string, history: CatalogCommit[], chain: string[]): Promise<void> {
  const clean = `${await temporaryDirectory()}/clean`;
  const cleanOut = `${await temporaryDirectory()}/out`;
  expect(await createCatalogRepo(clean, history)).toEqual(chain);
  await build(clean, cleanOut);
  expect(await publicFiles(out)).toEqual(await publicFiles(cleanOut));
  for (const sha of chain) expect(await pinnedBodies(out, sha), sha).toEqual(await pinnedBodies(cleanOut, sha));
}

const commits = demoCommits();
/** shas[i] is at depth i + 1 (the root is depth 1). */
let shas: string[];
let repo: string;
let out: string;

beforeAll(async () => {
  repo = `${await temporaryDirectory()}/catalog`;
  out = `${await temporaryDirectory()}/out`;
  shas = await createCatalogRepo(repo, commits);
  expect(shas).toHaveLength(42);
  expect(await build(repo, out)).toMatchObject({ composed: 42, applied: 42, resumedFrom: null });
});

describe('checkpoints along the chain', () => {
  it('are kept at the tip and at every 4th commit from the root, the newest 4 of them', async () => {
    expect(await checkpointed(out)).toEqual([shas[27], shas[31], shas[35], shas[39], shas[41]].sort());
  });

  it('a new commit resumes from the tip before it: one commit read', async () => {
    const [next] = await appendCommits(repo, [{ message: 'One more commit', time: '2026-12-01T00:00:00Z', files: { 'notes.txt': 'x\n' } }]);
    expect(await build(repo, out)).toMatchObject({ tip: next, composed: 1, applied: 1, resumedFrom: shas[41] });
    await git(repo, ['update-ref', 'refs/heads/main', shas[41]]);
    expect(await build(repo, out)).toMatchObject({ tip: shas[41], composed: 0, applied: 0, resumedFrom: shas[41] });
  });

  it('a force-push rewriting the last 5 commits reads 6 commits again, not 42, and builds what a clean build of the new history builds', async () => {
    await git(repo, ['update-ref', 'refs/heads/main', shas[36]]);
    const rewritten = rewrite(commits.slice(37));
    const newShas = await appendCommits(repo, rewritten);
    const result = await build(repo, out);
    // From the checkpoint at depth 36: commit 37 (built, read again) and the 5 new ones.
    expect(result).toMatchObject({ tip: newShas[4], commits: 42, composed: 5, applied: 6, resumedFrom: shas[35] });

    const chain = [...shas.slice(0, 37), ...newShas];
    const published = (await releaseFile(out, 'chain.json')).map((commit: { sha: string }) => commit.sha);
    expect(published).toEqual([...chain].reverse());
    for (const dropped of shas.slice(37)) expect(published).not.toContain(dropped);
    await expectSameAsCleanBuild(out, [...commits.slice(0, 37), ...rewritten], chain);

    // Those of the dropped commits are gone; the new commit at depth 40 and the new tip have one.
    expect(await checkpointed(out)).toEqual([shas[27], shas[31], shas[35], newShas[2], newShas[4]].sort());
  });

  it('a rewind of 5 commits reads only the commit after the newest checkpoint, and publishes a chain without the dropped ones', async () => {
    await git(repo, ['update-ref', 'refs/heads/main', shas[36]]);
    expect(await build(repo, out)).toMatchObject({ tip: shas[36], commits: 37, composed: 0, applied: 1, resumedFrom: shas[35] });
    const published = (await releaseFile(out, 'chain.json')).map((commit: { sha: string }) => commit.sha);
    expect(published).toEqual(shas.slice(0, 37).reverse());
  });

  it('a force-push below every checkpoint reads the history from the root, saving the spaced checkpoints it passes', async () => {
    await git(repo, ['update-ref', 'refs/heads/main', shas[9]]);
    const [tip] = await appendCommits(repo, rewrite(commits.slice(10, 11)));
    expect(await build(repo, out)).toMatchObject({ tip, commits: 11, composed: 1, applied: 11, resumedFrom: null });
    expect(await checkpointed(out)).toEqual([shas[3], shas[7], tip].sort());
    await expectSameAsCleanBuild(out, [...commits.slice(0, 10), ...rewrite(commits.slice(10, 11))], [...shas.slice(0, 10), tip]);
  });

  it('stay few on a long history: the newest few tips and KEEP_PER_SPACING per spacing', async () => {
    await git(repo, ['update-ref', 'refs/heads/main', shas[41]]);
    await build(repo, out);
    const kept = await checkpointed(out);
    expect(kept.length).toBeLessThanOrEqual(KEEP_RECENT + KEEP_PER_SPACING);
    expect(kept).toEqual([shas[27], shas[31], shas[35], shas[39], shas[41]].sort());
  });
});

describe('a builder that stays up (the build process of serve --repo)', () => {
  it('saves its tip\'s checkpoint only at every 4th commit; the build after it reads the commits since that one again', async () => {
    const ownRepo = `${await temporaryDirectory()}/catalog`;
    const ownOut = `${await temporaryDirectory()}/out`;
    const built = await createCatalogRepo(ownRepo, commits.slice(0, 2));
    const builder = new Builder();
    const options = { repo: ownRepo, out: ownOut, progress: false, log: () => {}, checkpointSpacings: [SPACING] };
    await builder.build(options);
    // One commit per build, as serve --repo follows main: depths 3 to 7.
    for (const commit of commits.slice(2, 7)) {
      built.push(...(await appendCommits(ownRepo, [commit])));
      expect(await builder.build(options)).toMatchObject({ applied: 1, resumedFrom: built.at(-2) });
    }
    builder.close();
    // built[i] is at depth i + 1: only depth 4 has one.
    expect(await checkpointed(ownOut)).toEqual([built[3]]);
    // A build without it starts from depth 4: commits 5 to 7 are read again (they are built), the new one composed.
    const [next] = await appendCommits(ownRepo, [commits[7]]);
    expect(await build(ownRepo, ownOut)).toMatchObject({ tip: next, composed: 1, applied: 4, resumedFrom: built[3] });
  });
});
