/**
 * docs/decisions.md "Where a body is served": no JSON body depends on the address it is served
 * from. Four deployments of one catalog, each the way an operator makes one (`pkgcat serve --repo`,
 * its own process, port and output directory): two without `--site-url`, two with the same
 * `--site-url`. Every sha-pinned URL gives the same bytes and ETag on all four, and so do the
 * floating JSON bodies, the SBOMs and the OpenAPI document; only the documents that must carry
 * absolute URLs carry the configured site URL (the default one when none is set, never the
 * listen address). A restart on another port republishes nothing.
 */
import { readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalogRepo } from '../../demo/catalog-writer.ts';
import { addUser } from '../../gateway/auth/users.ts';
import { startServeProcess, type ServeProcess } from '../../bench/helpers/serve-process.ts';
import { advisory, hoursLater, manifest, temporaryDirectory } from '../helpers/catalog.ts';
import { signIn, USER } from '../gateway/harness.ts';
import { cleanEnv } from './run.ts';
import { pinnedPaths, type Fetched, fetchAll } from '../helpers/pinned-paths.ts';

const SITE = 'https://pkgs.example.com';
/** docs/decisions.md: the site URL when none is configured, whatever address serve listens on. */
const DEFAULT_SITE = 'http://127.0.0.1:8080';

interface Deployment {
  serve: ServeProcess;
  out: string;
  cookie: string;
}

let dir: string;
let repo: string;
let shas: string[];
const deployments: Deployment[] = [];

async function deploy(name: string, siteUrl?: string): Promise<Deployment> {
  const out = join(dir, `out-${name}`);
  const serve = await startServeProcess(
    ['--repo', repo, '--out', out, '--users', join(dir, 'users.json'), '--session-dir', join(dir, `sessions-${name}`), ...(siteUrl ? ['--site-url', siteUrl] : [])],
    cleanEnv(),
    { timeoutMs: 60_000 },
  );
  await serve.waitForLog(/published [0-9a-f]{12}/);
  return { serve, out, cookie: await signIn(serve.url) };
}

beforeAll(async () => {
  dir = await temporaryDirectory();
  repo = join(dir, 'catalog');
  shas = await createCatalogRepo(repo, [
    { message: 'zlib', time: hoursLater(0), files: { 'packages/zlib/manifest.json': manifest('zlib', { version: '1.3.1' }) } },
    {
      message: 'openssl and curl',
      time: hoursLater(1),
      files: {
        'packages/openssl/manifest.json': manifest('openssl', { dependencies: { runtime: ['zlib'] } }),
        'packages/curl/manifest.json': manifest('curl', { dependencies: { build: ['cmake'], runtime: ['openssl'] } }),
      },
    },
    { message: 'an advisory on zlib', time: hoursLater(2), files: { 'advisories/PKGCAT-0001.json': advisory('PKGCAT-0001', { package: 'zlib', fixed: '1.3.2', severity: 'HIGH' }) } },
    { message: 'zlib 1.3.2', time: hoursLater(3), files: { 'packages/zlib/manifest.json': manifest('zlib', { version: '1.3.2' }) } },
  ]);
  await addUser(join(dir, 'users.json'), USER.username, USER.password);
  // One at a time: the machine is shared, and each builds the whole catalog.
  for (const [name, site] of [['a', undefined], ['b', undefined], ['c', SITE], ['d', SITE]] as const) deployments.push(await deploy(name, site));
}, 300_000);

afterAll(async () => {
  await Promise.all(deployments.map(({ serve }) => serve.stop()));
});

describe('four deployments of one catalog: different ports, output directories and processes', () => {
  let paths: string[];
  let answers: Map<string, Fetched>[];

  beforeAll(async () => {
    const [a] = deployments;
    paths = await pinnedPaths(a!.serve.url, a!.cookie, shas);
    answers = await Promise.all(deployments.map(({ serve, cookie }) => fetchAll(serve.url, cookie, paths)));
  }, 120_000);

  it('are four processes on four ports over four output directories', () => {
    expect(new Set(deployments.map(({ serve }) => serve.pid)).size).toBe(4);
    expect(new Set(deployments.map(({ serve }) => serve.url)).size).toBe(4);
    expect(new Set(deployments.map(({ out }) => out)).size).toBe(4);
  });

  it('every sha-pinned URL (bundles, diffs of every pair, deps, versions, both SBOMs of every package) has one body and one ETag on all four', () => {
    // 4 commits: 2 bundles each, 16 diffs, and deps, versions and 2 SBOMs of each package present.
    expect(paths.filter((path) => path.startsWith('/api/pkgs/bundle/')).length).toBeGreaterThan(40);
    for (const path of paths) {
      const first = answers[0]!.get(path)!;
      if (path.startsWith('/api/pkgs/bundle/')) {
        expect(first.status, path).toBe(200);
        expect(first.etag, path).toMatch(/^(W\/)?"/);
      }
      for (const [index, answer] of answers.entries()) {
        expect({ path, deployment: index, status: answer.get(path)!.status, etag: answer.get(path)!.etag }).toEqual({ path, deployment: index, status: first.status, etag: first.etag });
        expect(answer.get(path)!.body.equals(first.body), `${path} on deployment ${index}`).toBe(true);
      }
    }
  });

  it('the floating JSON, the SBOMs and the OpenAPI document are the same bytes on all four', () => {
    for (const path of paths.filter((path) => !path.startsWith('/api/pkgs/bundle/'))) {
      for (const answer of answers) expect(answer.get(path)!.body.equals(answers[0]!.get(path)!.body), path).toBe(true);
    }
    const openapi = JSON.parse(answers[0]!.get('/api/pkgs/openapi.json')!.body.toString('utf8')) as { servers: { url: string }[] };
    expect(openapi.servers.map((server) => server.url)).toEqual(['/']);
  });

  it('an SPDX SBOM names itself by a urn:uuid:, with no address in it', () => {
    const spdx = answers[0]!.get(`/api/pkgs/bundle/${shas[3]}/curl/sbom.json?format=spdx`)!.body.toString('utf8');
    expect(JSON.parse(spdx).documentNamespace).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    for (const { serve } of deployments) expect(spdx).not.toContain(new URL(serve.url).host);
  });

  it('the sitemap carries the configured site URL, or the default one, never the listen address', async () => {
    const sitemaps = await Promise.all(deployments.map(({ serve }) => fetch(`${serve.url}/sitemap.xml`).then((response) => response.text())));
    expect(sitemaps[0]).toContain(`<loc>${DEFAULT_SITE}/pkgs/curl</loc>`);
    expect(sitemaps[1]).toBe(sitemaps[0]);
    expect(sitemaps[2]).toContain(`<loc>${SITE}/pkgs/curl</loc>`);
    expect(sitemaps[3]).toBe(sitemaps[2]);
  });
});

describe('a restart on another address', () => {
  it('republishes nothing: the release stays the one published before', async () => {
    const a = deployments[0]!;
    const before = await readlink(join(a.out, 'current'));
    const port = new URL(a.serve.url).port;
    await a.serve.stop();
    const again = await startServeProcess(['--repo', repo, '--out', a.out, '--session-dir', join(dir, 'sessions-a')], cleanEnv(), { timeoutMs: 60_000 });
    deployments[0] = { ...a, serve: again };
    expect(new URL(again.url).port).not.toBe(port);
    await again.waitForLog(/is already built and published/);
    expect(await readlink(join(a.out, 'current'))).toBe(before);
  }, 120_000);
});
