/**
 * Every JSON body pkgcat publishes conforms to its wire schema (src/schemas/wire.ts), on the demo
 * catalog's whole history and on the gateway fixture: the public files of the release, every
 * commit's listing and full bundle, every deps.json and versions.json object a commit's index
 * names, every stored diff, and the error bodies of the gateway. And each schema converts to the
 * JSON Schema (draft 2020-12) that the OpenAPI document and the tool schemas are made from.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { WIRE, wireProblems, type WireName } from '../../src/schemas/wire.ts';
import { assembleBody, currentReleaseId, paths, readJson, readObject, readParentDiff, readStateRoot } from '../../src/store/layout.ts';
import { makeDemoCatalog } from '../../demo/make-demo-catalog.ts';
import { buildFixture } from '../gateway/fixtures.ts';
import { send, startGateway, unusedPrefix } from '../gateway/harness.ts';
import { build, exported, temporaryDirectory } from '../helpers/catalog.ts';

/** Checks every body of a build output; returns how many were checked. */
async function checkOutput(out: string): Promise<number> {
  let checked = 0;
  const expectConforms = (what: string, name: WireName, text: string) => {
    expect({ what, problems: wireProblems(name, JSON.parse(text)) }).toEqual({ what, problems: null });
    checked += 1;
  };
  const publicDir = paths.public((await exported(out))!);
  for (const entry of await readdir(join(publicDir, 'api', 'pkgs'), { withFileTypes: true })) {
    const file = entry.name;
    // The OpenAPI document is no wire body (tests/contract/ check it), nor are the SBOMs under `{name}/` (tests/sbom/).
    if (!entry.isFile() || file === 'openapi.json') continue;
    expectConforms(file, file === 'recent-commits.json' ? 'RecentCommits' : 'PackageEnvelope', await readFile(join(publicDir, 'api', 'pkgs', file), 'utf8'));
  }
  const objects = new Set<string>();
  const chain = await readJson<{ sha: string }[]>(paths.chain(paths.release(out, (await currentReleaseId(out))!)));
  for (const { sha } of chain) {
    const root = (await readStateRoot(out, sha))!;
    expectConforms(`listing ${sha}`, 'ListingBundle', (await assembleBody(out, root.listing)).toString('utf8'));
    expectConforms(`full ${sha}`, 'FullBundle', (await assembleBody(out, root.full)).toString('utf8'));
    for (const chunk of root.packages) {
      const entries = JSON.parse((await readObject(out, chunk.object)).toString('utf8')) as Record<string, { deps?: string; versions?: string }>;
      for (const entry of Object.values(entries)) {
        if (entry.deps && !objects.has(entry.deps)) expectConforms(`deps ${entry.deps}`, 'Dependencies', (await readObject(out, entry.deps)).toString('utf8'));
        if (entry.versions && !objects.has(entry.versions)) expectConforms(`versions ${entry.versions}`, 'VersionHistory', (await readObject(out, entry.versions)).toString('utf8'));
        for (const hash of [entry.deps, entry.versions]) if (hash) objects.add(hash);
      }
    }
    const diff = await readParentDiff(out, root);
    expect(diff === null, `commit ${sha} has a diff against its parent unless it is the first`).toBe(root.parent === null);
    if (diff) expectConforms(`diff ${sha}/${root.parent}`, 'Diff', diff.toString('utf8'));
  }
  return checked;
}

describe('wire schemas', () => {
  it('accept every body of the demo catalog\'s whole history', async () => {
    const dir = await temporaryDirectory();
    await makeDemoCatalog(join(dir, 'catalog'));
    await build(join(dir, 'catalog'), join(dir, 'out'));
    expect(await checkOutput(join(dir, 'out'))).toBeGreaterThan(400);
  });

  it('accept every body of the gateway fixture, and the gateway\'s error bodies', async () => {
    const fx = await buildFixture();
    try {
      expect(await checkOutput(fx.out)).toBeGreaterThan(200);
      const gw = await startGateway(fx.out, fx.dir);
      try {
        for (const path of ['/api/pkgs/nope.json', '/nothing', `/api/pkgs/bundle/${fx.tip}.json`, `/api/pkgs/bundle/${unusedPrefix(fx.shas)}.json`]) {
          const reply = await send(gw.url, path);
          expect(reply.status).toBeGreaterThanOrEqual(400);
          expect(wireProblems('ErrorBody', reply.json())).toBeNull();
        }
      } finally {
        await gw.close();
      }
    } finally {
      await fx.cleanup();
    }
  });

  it('reject a body that breaks the contract, naming each field', () => {
    expect(wireProblems('RecentCommits', [{ sha: 'abc', message: null, pushedAt: '2026-01-01T00:00:00Z', extra: 1 }])).toBe(
      '0.sha: Invalid string: must match pattern /^[0-9a-f]{40}$/; 0: Unrecognized key: "extra"',
    );
  });

  it.each(Object.keys(WIRE))('%s converts to JSON Schema draft 2020-12', (name) => {
    const schema = z.toJSONSchema(WIRE[name as WireName], { target: 'draft-2020-12' }) as Record<string, unknown>;
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  });
});
