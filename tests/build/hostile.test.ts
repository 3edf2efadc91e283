/**
 * The hostile catalog (hostile-catalog.ts) through the real `pkgcat build` and the real gateway:
 * nothing a catalog holds stops a build. Each bad case is a diagnostic at its commit and path, the
 * commits after it build, every URL the sitemap and llms.txt list answers, and a build from
 * scratch gives the same bodies.
 */
import { mkdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendCommits, git } from '../../demo/catalog-writer.ts';
import { buildCatalog } from '../../build/build.ts';
import { readStateRoot } from '../../src/store/layout.ts';
import { pkgcat, type Run } from '../cli/run.ts';
import { startGateway, type Gateway } from '../gateway/harness.ts';
import { pinnedBodies, pinnedJson, publicFiles, releaseFile, temporaryDirectory } from '../helpers/catalog.ts';
import { BAD_IDS, COLON_ID, HOSTILE_CATALOG, LONG_NAME } from './hostile-catalog.ts';

const SITE = 'https://catalog.example.org';

let repo: string;
let out: string;
let shas: string[];
let run: Run;
let gateway: Gateway;
let cookie: string;

/** The commit whose message starts with `words`. */
function commitOf(words: string): string {
  const index = HOSTILE_CATALOG.findIndex((commit) => typeof commit.message === 'string' && commit.message.startsWith(words));
  if (index < 0) throw new Error(`no commit "${words}"`);
  return shas[index]!;
}

beforeAll(async () => {
  // Bare: a directory named with 300 characters cannot be checked out (file names stop at 255 bytes).
  repo = `${await temporaryDirectory()}/catalog.git`;
  await mkdir(repo);
  await git(repo, ['init', '-q', '--bare', '--template=', '-b', 'main', repo]);
  shas = await appendCommits(repo, HOSTILE_CATALOG);
  out = `${await temporaryDirectory()}/out`;
  run = await pkgcat(['build', '--repo', repo, '--out', out, '--site-url', SITE, '--quiet']);
  const dir = await temporaryDirectory();
  gateway = await startGateway(out, dir);
  cookie = await gateway.signIn();
}, 900_000);

afterAll(async () => {
  await gateway?.close();
});

describe('a build of the hostile catalog', () => {
  it('exits 0 and ends with its one summary line, no stack trace', () => {
    expect(run.code).toBe(0);
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(new RegExp(`^pkgcat: built 17 new of 17 commits in [0-9.]+ s; published ${shas.at(-1)!.slice(0, 12)}, 10 diagnostics \\(see ${out}/current/diagnostics.json\\)$`));
    expect(lines.every((line) => line.startsWith('diagnostic ') || line.startsWith('pkgcat: '))).toBe(true);
  });

  it('reports each bad case once, at the commit that brought it, with its path and reason', async () => {
    const leftOut = '; the package is left out of this commit';
    const advisoryLeftOut = '; the advisory is left out of this commit';
    const idRule = 'must be an advisory id (a letter or digit, then letters, digits, ".", "_", "-" or ":"; at most 128 characters)';
    const expected = [
      {
        commit: commitOf('Add a package whose name has 300 characters'),
        path: `packages/${LONG_NAME}/manifest.json`,
        level: 'error',
        message: `manifest.json: "name" must be a package name (a letter or digit, then letters, digits, ".", "_" or "-"; at most 128 characters), not "L${'x'.repeat(99)}"... (300 characters)${leftOut}`,
      },
      {
        commit: commitOf('Add an advisory nested 100,000 levels deep'),
        path: 'advisories/ADV-DEEP.json',
        level: 'error',
        message: `advisory nests objects and arrays more than 32 levels deep${advisoryLeftOut}`,
      },
      {
        commit: commitOf('Add a package with a 20 MB description'),
        path: 'packages/huge/manifest.json',
        level: 'error',
        message: `manifest.json is larger than 4 MiB (20000279 bytes)${leftOut}`,
      },
      {
        commit: commitOf('Add a package whose description has 100,000 characters'),
        path: 'packages/wordy/manifest.json',
        level: 'error',
        message: `manifest.json: "description" must be at most 65536 characters long, not 100000${leftOut}`,
      },
      {
        commit: commitOf('Add a package in 50,001 categories'),
        path: 'packages/sprawl/manifest.json',
        level: 'error',
        message: `manifest.json: "categories" must have at most 50000 entries, not 50001${leftOut}`,
      },
      ...[...BAD_IDS].sort().map((id) => ({
        commit: commitOf('Add advisories whose ids are not URL-safe'),
        path: `advisories/${id}.json`,
        level: 'error',
        message: `advisory: "id" ${idRule}, not "${id}"${advisoryLeftOut}`,
      })),
      {
        // A symbolic link is read as its link text, never followed.
        commit: commitOf('Add a package whose manifest is a symbolic link'),
        path: 'packages/linked/manifest.json',
        level: 'error',
        message: `manifest.json is not valid JSON (Unexpected token '.', "../zlib/ma"... is not valid JSON)${leftOut}`,
      },
      {
        commit: commitOf('Add a package with a script for a homepage'),
        path: 'packages/markup/manifest.json',
        level: 'warning',
        message: 'manifest.json: "homepage" is not an http(s) URL: "javascript:alert(1)"; the field is left out',
      },
    ];
    expect(await releaseFile(out, 'diagnostics.json')).toEqual(expected);
    for (const diagnostic of expected) {
      expect(run.stderr).toContain(`diagnostic ${diagnostic.level}: commit ${diagnostic.commit.slice(0, 12)} ${diagnostic.path}: ${diagnostic.message}\n`);
    }
  });

  it('builds every commit, and the tip holds every good package and advisory', async () => {
    for (const sha of shas) expect(await readStateRoot(out, sha), sha).not.toBeNull();
    const tip = shas.at(-1)!;
    const full = await pinnedJson(out, tip, 'full');
    expect(full.packages.map((pkg: { name: string; version: string }) => `${pkg.name} ${pkg.version}`)).toEqual(['curl 8.0.0', 'hub 1.0.0', 'markup 1.0.0', 'zlib 1.0.1']);
    expect(Object.keys(full.advisories).sort()).toEqual(['ADV-2026-0001', COLON_ID]);
    const hub = full.packages.find((pkg: { name: string }) => pkg.name === 'hub');
    expect(hub.dependencies.runtime).toHaveLength(20_000);
    const markup = full.packages.find((pkg: { name: string }) => pkg.name === 'markup');
    expect(markup.homepage).toBeNull();
    // The commit messages that are 1 MB long or not UTF-8 are published as the rules say.
    const commits = JSON.parse((await gatewayGet('/api/pkgs/recent-commits.json')).body) as { sha: string; message: string | null }[];
    const byCommit = new Map(commits.map((commit) => [commit.sha, commit.message]));
    expect(byCommit.get(commitOf('A commit message of 1 MB'))).toHaveLength('A commit message of 1 MB: '.length + 1_000_000);
    expect(byCommit.get(shas[HOSTILE_CATALOG.findIndex((commit) => Buffer.isBuffer(commit.message))]!)).toBeNull();
  });

  it('answers 200 for every URL the sitemap and llms.txt list, through the gateway', async () => {
    const sitemap = await gatewayGet('/sitemap.xml');
    const llms = await gatewayGet('/llms.txt');
    expect([sitemap.status, llms.status]).toEqual([200, 200]);
    const urls = new Set([
      ...[...sitemap.body.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]!),
      ...[...llms.body.matchAll(/\]\((https?:[^)\s]+)\)/g)].map((match) => match[1]!),
    ]);
    expect(urls).toContain(`${SITE}/advisories/${encodeURIComponent(COLON_ID)}`);
    expect(urls).toContain(`${SITE}/advisories/${encodeURIComponent(COLON_ID)}.md`);
    const statuses = new Map<string, number>();
    for (const url of urls) {
      expect(url.startsWith(`${SITE}/`), url).toBe(true);
      const path = url.slice(SITE.length);
      // The tool server is listed for agents to POST to; a GET is 405 by the specification.
      if (path === '/api/mcp') continue;
      statuses.set(path, (await gatewayGet(path)).status);
    }
    expect([...statuses].filter(([, status]) => status !== 200)).toEqual([]);
    expect(statuses.size).toBeGreaterThan(15);
  });

  it('gives the same bodies when built again from scratch', async () => {
    const again = `${await temporaryDirectory()}/again`;
    await buildCatalog({ repo, out: again, siteUrl: SITE, progress: false, log: () => {} });
    expect(await publicFiles(again)).toEqual(await publicFiles(out));
    for (const sha of shas) expect(await pinnedBodies(again, sha), sha).toEqual(await pinnedBodies(out, sha));
  }, 900_000);
});

async function gatewayGet(path: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${gateway.url}${path}`, { headers: { cookie } });
  return { status: response.status, body: await response.text() };
}
