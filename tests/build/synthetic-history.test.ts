/**
 * A generated history that changes dependencies often: the benchmark's generator at a small size
 * (rings, a chain, dangling names, advisories on low-level packages, packages added, removed and
 * given new dependencies), then a package on many culprit paths respelled. Every commit's bundles
 * must equal the whole composition of its state, as the incremental composer keeps rollups,
 * records and cards from one commit to the next.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkpointDirectory } from '../../build/checkpoints.ts';
import { appendCommits, git, type FileContent } from '../../demo/catalog-writer.ts';
import { makeSyntheticCatalog } from '../../bench/synthetic.ts';
import { build, temporaryDirectory } from '../helpers/catalog.ts';
import { expectBundlesEqualWholeComposition } from './whole-composition.ts';

/** Moves a package's directory to a new spelling of its name (a case change): the canonical name changes, the key does not. */
async function respell(repo: string, from: string, to: string): Promise<void> {
  const files: Record<string, FileContent> = {};
  for (const path of (await git(repo, ['ls-tree', '-r', '--name-only', 'main', `packages/${from}/`])).split('\n').filter(Boolean)) {
    const name = path.slice(`packages/${from}/`.length);
    const text = await git(repo, ['show', `main:${path}`]);
    files[path] = null;
    files[`packages/${to}/${name}`] = name === 'manifest.json' ? { ...(JSON.parse(text) as Record<string, unknown>), name: to } : text;
  }
  await appendCommits(repo, [{ message: `[${to}] respelled`, time: '2026-01-01T00:00:00Z', files }]);
}

describe('a generated history of 160 commits with frequent dependency changes', () => {
  it('composes every commit, step by step, as its state composed whole', async () => {
    const repo = `${await temporaryDirectory()}/synthetic`;
    await makeSyntheticCatalog(repo, { packages: 60, commits: 160, chainDepth: 8, seed: 'pkgcat-test-edges' });
    // chain-0002 lies on the culprit path of every package that reaches core-00 through the chain.
    await respell(repo, 'chain-0002', 'Chain-0002');
    const out = `${await temporaryDirectory()}/out`;
    const result = await build(repo, out);
    await expectBundlesEqualWholeComposition(repo, result.tip, out);

    // A build that resumes from its oldest checkpoint goes over dozens of commits already built,
    // noting each and composing only at the spaced checkpoints: the changes of many commits are
    // composed at once.
    const saved = (await readdir(checkpointDirectory(out))).filter((file) => file.endsWith('.json'));
    const shas = (await git(repo, ['rev-list', '--reverse', 'main'])).split('\n').filter(Boolean);
    const oldest = shas.find((sha) => saved.includes(`${sha}.json`))!;
    for (const file of saved) if (file !== `${oldest}.json`) await rm(join(checkpointDirectory(out), file));
    await respell(repo, 'Chain-0002', 'chain-0002');
    const resumed = await build(repo, out);
    expect(resumed.resumedFrom).toBe(oldest);
    expect(resumed.applied).toBeGreaterThan(30);
    await expectBundlesEqualWholeComposition(repo, resumed.tip, out);
  }, 300_000);
});
