/**
 * The X-Accel-Redirect mode (gateway/accel.ts), over real HTTP against the app itself: for every
 * body, the accel gateway sends exactly the status and headers the default gateway sends, plus
 * `X-Accel-Redirect: <prefix>/<path in out>` and no body, and the file it names holds exactly the
 * bytes the default gateway sends. What is no file is sent as in the default mode.
 * tests/gateway/nginx.test.ts runs the same answers through a real nginx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AccelBodies, accelPrefix, etagKey } from '../../gateway/accel.ts';
import { DiskCache } from '../../gateway/disk-cache.ts';
import { currentReleaseId, paths, readJson, readStateRoot } from '../../src/store/layout.ts';
import { openObjects } from '../../src/store/objects.ts';
import { AT, buildFixture, type Fixture } from './fixtures.ts';
import { expected, rawGet, startGateway, type Gateway } from './harness.ts';

const PREFIX = '/_pkgcat';

let fx: Fixture;
let plain: Gateway;
let accel: Gateway;
let cookie: string;
let plainCookie: string;
let release: string;

beforeAll(async () => {
  fx = await buildFixture();
  plain = await startGateway(fx.out, join(fx.dir, 'plain'));
  accel = await startGateway(fx.out, join(fx.dir, 'accel'), { accelRedirect: `${PREFIX}/` });
  // Each gateway has its own session store: a cookie for each.
  cookie = await accel.signIn();
  plainCookie = await plain.signIn();
  release = (await currentReleaseId(fx.out))!;
});

afterAll(async () => {
  await plain?.close();
  await accel?.close();
  await fx?.cleanup();
});

type Raw = Awaited<ReturnType<typeof rawGet>>;

/** Headers of an answer, without the ones that are per connection or per body transfer. */
function comparable(reply: Raw): Record<string, string | string[] | undefined> {
  const { date: _date, connection: _connection, 'keep-alive': _keepAlive, 'content-length': _length, 'x-accel-redirect': _accel, ...rest } = reply.headers;
  return rest;
}

/** The same request to the default gateway (`base`) and to the accel one (`fast`). */
async function both(path: string, headers: Record<string, string>, method = 'GET'): Promise<{ base: Raw; fast: Raw }> {
  const request = (url: string, extra: Record<string, string>) =>
    method === 'HEAD' ? headOnly(url, path, { ...headers, ...extra }) : rawGet(url, path, { ...headers, ...extra });
  const [fastUrl, fastCookie] = [accel.url, cookie];
  const [base, fast] = await Promise.all([
    request(plain.url, headers.cookie ? { cookie: plainCookie } : {}),
    request(fastUrl, headers.cookie ? { cookie: fastCookie } : {}),
  ]);
  return { base, fast };
}

async function headOnly(base: string, path: string, headers: Record<string, string>): Promise<Raw> {
  const response = await fetch(`${base}${path}`, { method: 'HEAD', headers, redirect: 'manual' });
  return { status: response.status, headers: Object.fromEntries(response.headers), body: Buffer.alloc(0) };
}

/** Checks the accel answer against the default one, and returns the redirect target (a path under out). */
async function expectRedirected(path: string, encoding: string, options: { signedIn?: boolean; method?: string } = {}): Promise<string> {
  const headers: Record<string, string> = { 'accept-encoding': encoding, ...(options.signedIn === false ? {} : { cookie: 'yes' }) };
  const { base, fast } = await both(path, headers, options.method);
  expect(fast.status).toBe(base.status);
  expect(comparable(fast)).toEqual(comparable(base));
  expect(fast.headers['content-length']).toBe('0');
  expect(fast.body.length).toBe(0);
  const target = fast.headers['x-accel-redirect'];
  expect(typeof target).toBe('string');
  expect((target as string).startsWith(`${PREFIX}/`)).toBe(true);
  const file = join(fx.out, (target as string).slice(PREFIX.length + 1));
  expect(existsSync(file)).toBe(true);
  if (options.method !== 'HEAD') expect((await readFile(file)).equals(base.body)).toBe(true);
  else expect((await readFile(file)).length).toBe(Number(base.headers['content-length']));
  return (target as string).slice(PREFIX.length + 1);
}

async function expectSentByGateway(path: string, encoding: string, signedIn = true): Promise<Raw> {
  const headers: Record<string, string> = { 'accept-encoding': encoding, ...(signedIn ? { cookie: 'yes' } : {}) };
  const { base, fast } = await both(path, headers);
  expect(fast.headers['x-accel-redirect']).toBeUndefined();
  expect(fast.status).toBe(base.status);
  expect(comparable(fast)).toEqual(comparable(base));
  expect(fast.headers['content-length']).toBe(base.headers['content-length']);
  expect(fast.body.equals(base.body)).toBe(true);
  return fast;
}

describe('X-Accel-Redirect mode: floats-latest', () => {
  it('redirects a floats-latest document to a file of its very bytes, written once under cache/bodies, whatever the spelling and the encoding', async () => {
    const curl = await expectRedirected('/api/pkgs/curl.json', 'identity', { signedIn: false });
    expect(curl).toMatch(/^cache\/bodies\/[0-9a-f]{32}\.json$/);
    expect(await expectRedirected('/api/pkgs/curl.json', 'identity', { signedIn: false })).toBe(curl);
    const sqlite = await expectRedirected('/api/pkgs/sqlite.json', 'identity', { signedIn: false });
    expect(await expectRedirected('/api/pkgs/SQLite.json', 'identity', { signedIn: false })).toBe(sqlite);
    expect(sqlite).not.toBe(curl);
    expect(await expectRedirected('/api/pkgs/curl.json', 'br', { signedIn: false })).toBe(`${curl}.br`);
    expect(await expectRedirected('/api/pkgs/recent-commits.json', 'identity', { signedIn: false })).toMatch(/^cache\/bodies\/[0-9a-f]{32}\.json$/);
    expect(await expectRedirected('/pkgs/curl.md', 'identity', { signedIn: false })).toMatch(/^cache\/bodies\/[0-9a-f]{32}\.json$/);
  });

  it('sends what has no name of its own itself: recent commits with another limit', async () => {
    await expectSentByGateway('/api/pkgs/recent-commits.json?limit=5', 'identity', false);
  });

  it('never sends Set-Cookie, and answers errors and redirects itself', async () => {
    const record = await both('/api/pkgs/curl.json', { 'accept-encoding': 'identity' });
    expect(record.fast.headers['set-cookie']).toBeUndefined();
    await expectSentByGateway('/api/pkgs/no-such-package.json', 'identity', false);
    await expectSentByGateway('/api/pkgs/bundle/latest.json', 'identity', false);
  });
});

describe('X-Accel-Redirect mode: sha-pinned', () => {
  const tip = () => fx.tip;

  it('writes an assembled bundle once under cache/bodies, named by its ETag, in each encoding', async () => {
    const full = await expected.full(fx.out, tip());
    const key = etagKey(full.etag);
    expect(await expectRedirected(`/api/pkgs/bundle/${tip()}/full.json`, 'identity')).toBe(`cache/bodies/${key}.json`);
    expect(await expectRedirected(`/api/pkgs/bundle/${tip()}/full.json`, 'br')).toBe(`cache/bodies/${key}.json.br`);
    expect(await expectRedirected(`/api/pkgs/bundle/${tip()}/full.json`, 'gzip')).toBe(`cache/bodies/${key}.json.gz`);
    expect((await readFile(join(paths.bodyCache(fx.out), `${key}.json`))).equals(full.bytes)).toBe(true);
    expect(await expectRedirected(`/api/pkgs/bundle/${tip()}/full.json`, 'br', { method: 'HEAD' })).toBe(`cache/bodies/${key}.json.br`);
    const listing = await expected.listing(fx.out, fx.shas[AT.import]);
    expect(await expectRedirected(`/api/pkgs/bundle/${fx.shas[AT.import]}.json`, 'identity')).toBe(`cache/bodies/${etagKey(listing.etag)}.json`);
  });

  it('writes deps.json and versions.json once under cache/bodies (objects live in packs), the build\'s precompressed copy for br and gzip', async () => {
    const deps = (await expected.packageObject(fx.out, tip(), 'curl', 'deps'))!;
    expect(await expectRedirected(`/api/pkgs/bundle/${tip()}/curl/deps.json`, 'identity')).toBe(`cache/bodies/${deps.hash}.json`);
    const ticker = (await expected.packageObject(fx.out, tip(), 'ticker', 'versions'))!;
    expect(ticker.bytes.length).toBeGreaterThanOrEqual(4096);
    expect(await expectRedirected(`/api/pkgs/bundle/${tip()}/ticker/versions.json`, 'br')).toBe(`cache/bodies/${ticker.hash}.json.br`);
    expect((await readFile(join(paths.bodyCache(fx.out), `${ticker.hash}.json.br`))).equals((await openObjects(fx.out).get(ticker.hash, 'br'))!)).toBe(true);
    expect(await expectRedirected(`/api/pkgs/bundle/${tip()}/ticker/versions.json`, 'gzip')).toBe(`cache/bodies/${ticker.hash}.json.gz`);
    expect(await expectRedirected(`/api/pkgs/bundle/${tip()}/ticker/versions.json`, 'identity')).toBe(`cache/bodies/${ticker.hash}.json`);
  });

  it('writes a compressed copy of an object the build did not precompress (1 to 4 KiB)', async () => {
    const root = await readStateRoot(fx.out, tip());
    expect(root?.packages).toBeDefined();
    const names = Object.values(await readJson<Record<string, string>>(paths.names(paths.release(fx.out, release))));
    let found: { name: string; member: 'deps' | 'versions'; hash: string } | null = null;
    for (const name of names) {
      for (const member of ['deps', 'versions'] as const) {
        const body = await expected.packageObject(fx.out, tip(), name.toLowerCase(), member);
        if (!found && body && body.bytes.length >= 1024 && body.bytes.length < 4096) found = { name, member, hash: body.hash };
      }
    }
    expect(found, 'the fixture has a deps.json or versions.json between 1 and 4 KiB').not.toBeNull();
    const { name, member, hash } = found!;
    expect(await openObjects(fx.out).has(hash, 'br')).toBe(false);
    expect(await expectRedirected(`/api/pkgs/bundle/${tip()}/${name}/${member}.json`, 'br')).toBe(`cache/bodies/${hash}.json.br`);
  });

  it('writes the diff of each commit against its parent once under cache/bodies, named by its content hash: the output holds no diffs/ folder', async () => {
    expect(existsSync(join(fx.out, 'diffs'))).toBe(false);
    for (const index of [AT.advisory, AT.leftpadRemoved, AT.zlibFixed, AT.tip]) {
      const [head, parent] = [fx.shas[index], fx.shas[index - 1]];
      const want = await expected.diff(fx.out, head, parent);
      const hash = createHash('sha256').update(want).digest('hex').slice(0, 32);
      const path = `/api/pkgs/bundle/${head}/diff/${parent}.json`;
      const { base } = await both(path, { 'accept-encoding': 'identity', cookie: 'yes' });
      expect(base.status).toBe(200);
      expect(base.body.equals(want)).toBe(true);
      expect(base.headers.etag).toBe(`W/"${hash}"`);
      expect(await expectRedirected(path, 'identity')).toBe(`cache/bodies/${hash}.json`);
      expect((await readFile(join(paths.bodyCache(fx.out), `${hash}.json`))).equals(want)).toBe(true);
      // Compressed when large enough, as the default mode sends it.
      expect(await expectRedirected(path, 'br')).toMatch(new RegExp(`^cache/bodies/${hash}\\.json(\\.br)?$`));
    }
    expect(existsSync(join(fx.out, 'diffs'))).toBe(false);
  });

  it('redirects a diff of another pair to its file under cache/diffs, and writes its compressed copies by ETag', async () => {
    // A pair the build did not store: composed on this request, written under cache/, then sent from its file.
    const old = fx.shas[AT.import];
    expect(existsSync(paths.composedDiff(fx.out, tip(), old))).toBe(false);
    expect(await expectRedirected(`/api/pkgs/bundle/${tip()}/diff/${old}.json`, 'identity')).toBe(`cache/diffs/${tip()}/${old}.json`);
    const body = await readFile(paths.composedDiff(fx.out, tip(), old));
    expect(body.length).toBeGreaterThanOrEqual(1024);
    expect(await expectRedirected(`/api/pkgs/bundle/${tip()}/diff/${old}.json`, 'br')).toMatch(/^cache\/bodies\/[0-9a-f]{32}\.json\.br$/);
  });

  it('answers the gate, sha errors and prefix redirects itself', async () => {
    const denied = await expectSentByGateway(`/api/pkgs/bundle/${tip()}/full.json`, 'br', false);
    expect(denied.status).toBe(401);
    expect((await expectSentByGateway(`/api/pkgs/bundle/${tip().slice(0, 12)}/full.json`, 'identity')).status).toBe(301);
    expect((await expectSentByGateway(`/api/pkgs/bundle/${'0'.repeat(40)}/full.json`, 'identity')).status).toBe(404);
    expect((await expectSentByGateway(`/api/pkgs/bundle/${tip()}/nosuchpackage/deps.json`, 'identity')).status).toBe(404);
  });
});

describe('AccelBodies', () => {
  it('takes an absolute prefix only, and names ETags by their hex', () => {
    expect(accelPrefix('/_pkgcat/')).toBe('/_pkgcat');
    expect(accelPrefix('/internal/out')).toBe('/internal/out');
    for (const bad of ['_pkgcat', '/', '/a b', '/x?y', 'http://x/y']) expect(() => accelPrefix(bad)).toThrow(/absolute path/);
    expect(etagKey('W/"0123456789abcdef0123456789abcdef"')).toBe('0123456789abcdef0123456789abcdef');
    expect(etagKey('"weird etag"')).toMatch(/^[0-9a-f]{32}$/);
  });

  it('gives the body back to the gateway when the cache cannot be written', async () => {
    const out = await mkdtemp(join(tmpdir(), 'pkgcat-accel-'));
    try {
      // `cache` is a file: no directory can be made under it, even by root.
      await writeFile(join(out, 'cache'), 'not a directory');
      const logged: string[] = [];
      const bodies = new AccelBodies(out, '/_pkgcat', new DiskCache(paths.cache(out), 1 << 20, (line) => logged.push(line)));
      expect(await bodies.materialize('ab'.repeat(16), 'identity', async () => Buffer.from('{}'))).toBeNull();
      expect(await bodies.materialize('cd'.repeat(16), 'identity', async () => Buffer.from('{}'))).toBeNull();
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatch(/cannot write under .*\/cache \(ENOTDIR\); bodies composed or assembled on request are served from memory/);
      await expect(bodies.materialize('ef'.repeat(16), 'br', async () => Promise.reject(new Error('object missing')))).rejects.toThrow('object missing');
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });

  it('sends every body itself when the cache cannot be written, with the default headers', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pkgcat-accel-ro-'));
    const out = join(dir, 'out');
    try {
      // A copy of the output whose cache/ is a file.
      const { cp } = await import('node:fs/promises');
      await cp(fx.out, out, { recursive: true, verbatimSymlinks: true, filter: (source) => !source.startsWith(join(fx.out, 'cache')) });
      await writeFile(join(out, 'cache'), 'not a directory');
      const readOnly = await startGateway(out, join(dir, 'sessions'), { accelRedirect: PREFIX });
      try {
        const own = await readOnly.signIn();
        const full = await rawGet(readOnly.url, `/api/pkgs/bundle/${fx.tip}/full.json`, { 'accept-encoding': 'br', cookie: own });
        expect(full.status).toBe(200);
        expect(full.headers['x-accel-redirect']).toBeUndefined();
        expect(full.headers['content-encoding']).toBe('br');
        const base = await rawGet(plain.url, `/api/pkgs/bundle/${fx.tip}/full.json`, { 'accept-encoding': 'br', cookie: plainCookie });
        expect(full.body.equals(base.body)).toBe(true);
      } finally {
        await readOnly.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
