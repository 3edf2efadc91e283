/**
 * GET /healthz (gateway/health.ts): what a load balancer asks. Its fields, its status codes, its
 * Cache-Control, and that it is no catalog surface (no registry row, no public file, no static rule).
 * The clock is injected; the build status comes from a provider, as `serve --repo`'s follower gives it.
 */
import { lineLogger } from '../../src/log.ts';
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalogRepo } from '../../demo/catalog-writer.ts';
import { Dependencies } from '../../gateway/dependencies.ts';
import type { BuildStatus } from '../../gateway/health.ts';
import { wireProblems } from '../../src/schemas/wire.ts';
import { SURFACES } from '../../src/surfaces/registry.ts';
import { currentReleaseId, paths } from '../../src/store/layout.ts';
import { build, hoursLater, manifest, publicFiles, temporaryDirectory } from '../helpers/catalog.ts';
import { send, startGateway, type Gateway } from './harness.ts';

let out: string;
let tip: string;
let publishedMs: number;
let gateway: Gateway;
let dependencies: Dependencies;
const logged: string[] = [];
/** What the provider answers; each test sets it. */
let status: BuildStatus | null = null;
/** 90.7 seconds after the release was switched in. */
const now = () => publishedMs + 90_700;

beforeAll(async () => {
  const dir = await temporaryDirectory();
  const repo = join(dir, 'catalog');
  out = join(dir, 'out');
  [tip] = await createCatalogRepo(repo, [{ message: 'zlib', time: hoursLater(0), files: { 'packages/zlib/manifest.json': manifest('zlib') } }]);
  await build(repo, out);
  publishedMs = (await lstat(paths.current(out))).mtimeMs;
  dependencies = new Dependencies(lineLogger((line) => logged.push(line)), now);
  gateway = await startGateway(out, dir, { buildStatus: () => status, now, dependencies });
});

afterAll(async () => {
  await gateway?.close();
});

/** `2026-01-01T00:00:00Z` of a time in ms: whole seconds. */
const isoSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

describe('GET /healthz', () => {
  it('serving a release, with no build running: 200, no-store, the tip, the release and its age', async () => {
    status = { running: false, waitingFor: null, lastFailure: null };
    const reply = await send(gateway.url, '/healthz');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(reply.json()).toEqual({
      status: 'ok',
      tip: { sha: tip, pushedAt: hoursLater(0) },
      release: { id: await currentReleaseId(out), publishedAt: isoSeconds(publishedMs), ageSeconds: 90 },
      build: { running: false, waitingFor: null, lastFailure: null },
      dependencies: {
        disk: null,
        repository: null,
        sessionStore: { status: 'ok', since: isoSeconds(now()), reason: null },
        usersFile: { status: 'ok', since: isoSeconds(now()), reason: null },
      },
      composed: { bytes: 0, files: 0, evictions: 0, maxBytes: 1024 * 1024 * 1024 },
    });
    expect(wireProblems('Health', reply.json())).toBeNull();
  });

  it('says a build is running, and which other build it waits for', async () => {
    status = { running: true, waitingFor: 4242, lastFailure: null };
    expect((await send(gateway.url, '/healthz')).json()).toMatchObject({ status: 'ok', build: { running: true, waitingFor: 4242, lastFailure: null } });
  });

  it('a failed last build: still 200 (the previous release serves), status build-failed, and why in one line', async () => {
    status = { running: false, waitingFor: null, lastFailure: 'git rev-list failed in /srv/catalog: fatal: bad object' };
    const reply = await send(gateway.url, '/healthz');
    expect(reply.status).toBe(200);
    expect(reply.json()).toMatchObject({ status: 'build-failed', tip: { sha: tip }, build: { lastFailure: 'git rev-list failed in /srv/catalog: fatal: bad object' } });
    expect(wireProblems('Health', reply.json())).toBeNull();
  });

  it('a dependency that broke: still 200 (the last release serves), status degraded, the reason and since when; ok again once back', async () => {
    status = { running: false, waitingFor: null, lastFailure: 'the disk of /srv/out is full: no space left on the device' };
    const repository = dependencies.reporter('repository');
    repository.degraded('the catalog repository is unusable: /srv/catalog does not exist');
    const reply = await send(gateway.url, '/healthz');
    expect(reply.status).toBe(200);
    expect(reply.json()).toMatchObject({
      status: 'degraded',
      tip: { sha: tip },
      dependencies: { repository: { status: 'degraded', since: isoSeconds(now()), reason: 'the catalog repository is unusable: /srv/catalog does not exist' } },
    });
    expect(wireProblems('Health', reply.json())).toBeNull();
    expect(logged).toEqual(['the catalog repository is unusable: /srv/catalog does not exist; still serving the last release; following main again once the repository is back']);
    repository.ok();
    expect((await send(gateway.url, '/healthz')).json()).toMatchObject({ status: 'build-failed', dependencies: { repository: { status: 'ok', reason: null } } });
    expect(logged.slice(1)).toEqual(['the catalog repository is back; following main again']);
  });

  it('build is null when the process runs no builds (serve without --repo)', async () => {
    status = null;
    expect((await send(gateway.url, '/healthz')).json()).toMatchObject({ status: 'ok', build: null });
  });

  it('counts the bodies composed on request that are kept on disk, against their cap', async () => {
    const cookie = await gateway.signIn();
    expect((await send(gateway.url, `/api/pkgs/bundle/${tip}/zlib/sbom.json?format=spdx`, { headers: { cookie } })).status).toBe(200);
    const { composed } = (await send(gateway.url, '/healthz')).json<{ composed: Record<string, number> }>();
    expect(composed).toMatchObject({ files: 1, evictions: 0, maxBytes: 1024 * 1024 * 1024 });
    expect(composed.bytes).toBeGreaterThan(0);
    expect(composed.bytes).toBe((await lstat(paths.sbom(out, tip, 'zlib', 'spdx'))).blocks * 512);
  });

  it('answers HEAD with the headers and no body, and 405 to other methods', async () => {
    const head = await send(gateway.url, '/healthz', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('cache-control')).toBe('no-store');
    expect(head.body.length).toBe(0);
    const post = await send(gateway.url, '/healthz', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('before any release: 503, no-release, no tip', async () => {
    const dir = await temporaryDirectory();
    const empty = await startGateway(join(dir, 'out'), dir);
    try {
      const reply = await send(empty.url, '/healthz');
      expect(reply.status).toBe(503);
      expect(reply.headers.get('cache-control')).toBe('no-store');
      expect(reply.json()).toMatchObject({ status: 'no-release', tip: null, release: null, build: null, composed: { bytes: 0, files: 0, evictions: 0, maxBytes: 1024 * 1024 * 1024 } });
    } finally {
      await empty.close();
    }
  });

  it('is no catalog surface: no registry row, no public file, no static-host rule', async () => {
    expect(SURFACES.map((row) => row.path)).not.toContain('/healthz');
    expect([...(await publicFiles(out)).keys()].some((file) => file.includes('healthz'))).toBe(false);
    expect((await publicFiles(out)).get('_headers')).not.toContain('healthz');
  });
});
