/**
 * The sign-in flows of CLI.md "Signing in" as a non-browser client uses them, and the session
 * replayed on every sha-pinned route (SPEC.md Authentication): exact bytes, the build's bodies.
 */
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { AUTH_REQUIRED_MESSAGE } from '../../gateway/auth/index.ts';
import { composeDiff } from '../../src/compose/diff.ts';
import { serialize } from '../../src/serialize.ts';
import { paths, readListing } from '../../src/store/layout.ts';
import { AT, type Fixture } from './fixtures.ts';
import { expected, send, withSignedInGateway, USER, type Gateway } from './harness.ts';
import { CACHE_CONTROL } from '../helpers/spec.ts';

let fx: Fixture;
let gw: Gateway;
let cookie: string;

withSignedInGateway((context) => ({ fx, gw, cookie } = context));

const get = (path: string, headers: Record<string, string> = {}) => send(gw.url, path, { headers });
const sha = (index: number) => fx.shas[index];
const composedDiff = async (head: string, base: string) => Buffer.from(serialize(composeDiff((await readListing(fx.out, base))!, (await readListing(fx.out, head))!)));
const bodyEtag = (bytes: Buffer) => `W/"${createHash('sha256').update(bytes).digest('hex').slice(0, 32)}"`;

describe('CLI.md Signing in', () => {
  it('GET /auth/login is the HTML sign-in form', async () => {
    const reply = await get('/auth/login');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/html; charset=utf-8/);
  });

  it('POST /auth/login with JSON: 200 and a session cookie; wrong password: 401 invalid_credentials, no cookie', async () => {
    expect(cookie).toMatch(/^pkgcat\.sid=/);
    const wrong = await fetch(`${gw.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: USER.username, password: 'wrong' }),
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect(((await wrong.json()) as { error: string }).error).toBe('invalid_credentials');
  });

  it('POST /auth/login as a form: 303 with the cookie, which opens the sha-pinned routes', async () => {
    const reply = await fetch(`${gw.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...USER, next: `/api/pkgs/bundle/${fx.tip}.json` }).toString(),
      redirect: 'manual',
    });
    expect(reply.status).toBe(303);
    expect(reply.headers.get('location')).toBe(`/api/pkgs/bundle/${fx.tip}.json`);
    const formCookie = reply.headers.get('set-cookie')!.split(';')[0];
    expect((await get(reply.headers.get('location')!, { cookie: formCookie })).status).toBe(200);
  });

  it('POST /auth/logout ends the session: the cookie no longer opens anything', async () => {
    const own = await gw.signIn();
    expect((await get(`/api/pkgs/bundle/${fx.tip}.json`, { cookie: own })).status).toBe(200);
    const out = await fetch(`${gw.url}/auth/logout`, { method: 'POST', headers: { cookie: own } });
    expect(out.status).toBe(204);
    const after = await get(`/api/pkgs/bundle/${fx.tip}.json`, { cookie: own });
    expect(after.status).toBe(401);
    expect(after.body.toString()).toBe(serialize({ error: 'auth_required', message: AUTH_REQUIRED_MESSAGE }));
  });

  it('a forged or unknown session cookie is no session: 401', async () => {
    for (const forged of ['pkgcat.sid=s%3Anope.nope', 'pkgcat.sid=', 'other=1']) {
      const reply = await get(`/api/pkgs/bundle/${fx.tip}/full.json`, { cookie: forged });
      expect(reply.status).toBe(401);
      expect(reply.headers.get('cache-control')).toBe(CACHE_CONTROL.pinned);
    }
  });
});

describe('SPEC.md Authentication 1-2: the cookie replayed on each sha-pinned route', () => {
  it.each([
    ['GET /api/pkgs/bundle/{sha}.json at the tip', () => `/api/pkgs/bundle/${fx.tip}.json`, () => expected.listing(fx.out, fx.tip)],
    ['GET /api/pkgs/bundle/{sha}.json at the import', () => `/api/pkgs/bundle/${sha(AT.import)}.json`, () => expected.listing(fx.out, sha(AT.import))],
    ['GET /api/pkgs/bundle/{sha}/full.json at the tip', () => `/api/pkgs/bundle/${fx.tip}/full.json`, () => expected.full(fx.out, fx.tip)],
    ['GET /api/pkgs/bundle/{sha}/full.json while the advisory is active', () => `/api/pkgs/bundle/${sha(AT.advisory)}/full.json`, () => expected.full(fx.out, sha(AT.advisory))],
    ['GET .../{name}/deps.json (curl, whose zlib carries the advisory)', () => `/api/pkgs/bundle/${sha(AT.advisory)}/curl/deps.json`, () => expected.packageObject(fx.out, sha(AT.advisory), 'curl', 'deps')],
    ['GET .../{name}/deps.json (a mixed-case name, another spelling)', () => `/api/pkgs/bundle/${fx.tip}/sqlite/deps.json`, () => expected.packageObject(fx.out, fx.tip, 'sqlite', 'deps')],
    ['GET .../{name}/deps.json (a dotted name)', () => `/api/pkgs/bundle/${fx.tip}/llama.cpp/deps.json`, () => expected.packageObject(fx.out, fx.tip, 'llama.cpp', 'deps')],
    ['GET .../{name}/versions.json (zlib)', () => `/api/pkgs/bundle/${fx.tip}/zlib/versions.json`, () => expected.packageObject(fx.out, fx.tip, 'zlib', 'versions')],
    ['GET .../{name}/versions.json (leftpad while present)', () => `/api/pkgs/bundle/${sha(AT.leftpadAdded)}/leftpad/versions.json`, () => expected.packageObject(fx.out, sha(AT.leftpadAdded), 'leftpad', 'versions')],
    ['GET .../{name}/versions.json (ticker, precompressed)', () => `/api/pkgs/bundle/${fx.tip}/ticker/versions.json`, () => expected.packageObject(fx.out, fx.tip, 'ticker', 'versions')],
  ])('%s: 200, the stored bytes, their ETag, private, no Set-Cookie', async (_label, path, want) => {
    const body = (await want())!;
    const reply = await get(path(), { cookie });
    expect(reply.status).toBe(200);
    expect(reply.body.equals(body.bytes)).toBe(true);
    expect(reply.headers.get('etag')).toBe(body.etag);
    expect(reply.headers.get('cache-control')).toBe(CACHE_CONTROL.pinned);
    expect(reply.headers.get('set-cookie')).toBeNull();
  });

  it('GET .../diff/{base}.json of each commit against its parent is the diff the build stored, written nowhere under cache/', async () => {
    for (const index of [AT.advisory, AT.leftpadRemoved, AT.zlibFixed, AT.tip]) {
      const file = await expected.diff(fx.out, sha(index), sha(index - 1));
      const reply = await get(`/api/pkgs/bundle/${sha(index)}/diff/${sha(index - 1)}.json`, { cookie });
      expect(reply.status).toBe(200);
      expect(reply.body.equals(file)).toBe(true);
      expect(reply.headers.get('etag')).toBe(bodyEtag(file));
      expect(existsSync(paths.composedDiff(fx.out, sha(index), sha(index - 1)))).toBe(false);
    }
  });

  it('GET .../diff/{base}.json of any other pair is composed on first request and written once, under cache/', async () => {
    const [head, base] = [fx.tip, sha(AT.import)];
    const file = paths.composedDiff(fx.out, head, base);
    expect(existsSync(file)).toBe(false);
    const first = await get(`/api/pkgs/bundle/${head}/diff/${base}.json`, { cookie });
    expect(first.status).toBe(200);
    expect(first.body.equals(await composedDiff(head, base))).toBe(true);
    expect(first.headers.get('etag')).toBe(bodyEtag(first.body));
    expect((await readFile(file)).equals(first.body)).toBe(true);
    const again = await get(`/api/pkgs/bundle/${head}/diff/${base}.json`, { cookie });
    expect(again.body.equals(first.body)).toBe(true);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
  });

  it('DECISIONS.md 5: a diff against a newer base (a downgrade) and against itself (empty)', async () => {
    const backwards = await get(`/api/pkgs/bundle/${sha(AT.advisory)}/diff/${sha(AT.zlibFixed)}.json`, { cookie });
    expect(backwards.body.equals(await composedDiff(sha(AT.advisory), sha(AT.zlibFixed)))).toBe(true);
    const changes = backwards.json<{ versionChanges: { name: string; direction: string }[] }>().versionChanges;
    expect(changes.find((change) => change.name === 'zlib')?.direction).toBe('downgrade');
    const same = (await get(`/api/pkgs/bundle/${fx.tip}/diff/${fx.tip}.json`, { cookie })).json<Record<string, unknown[]>>();
    expect([same.added, same.removed, same.versionChanges, same.advisoryChanges]).toEqual([[], [], [], []]);
  });

  it('a diff the gateway cannot write back is still served, from memory', async () => {
    const [head, base] = [sha(AT.zlibFixed), sha(AT.import)];
    // A file where the diff's directory would go: every write under it fails, whoever runs the test.
    const blocked = dirname(paths.composedDiff(fx.out, head, base));
    await rm(blocked, { recursive: true, force: true });
    await mkdir(dirname(blocked), { recursive: true });
    await writeFile(blocked, 'not a directory');
    for (let round = 0; round < 2; round++) {
      const reply = await get(`/api/pkgs/bundle/${head}/diff/${base}.json`, { cookie });
      expect(reply.status).toBe(200);
      expect(reply.body.equals(await composedDiff(head, base))).toBe(true);
    }
  });
});

describe('SPEC.md Authentication 3 and 6: the session changes nothing but the payload', () => {
  it.each([
    ['a floats-latest record', () => '/api/pkgs/llama.cpp.json'],
    ['recent commits', () => '/api/pkgs/recent-commits.json?limit=4'],
    ['the latest alias', () => '/api/pkgs/bundle/latest.json'],
    ['an unknown name', () => '/api/pkgs/nosuch.json'],
    ['a unique sha prefix (301)', () => `/api/pkgs/bundle/${fx.tip.slice(0, 10)}/full.json?q=1`],
    ['an unknown sha (404)', () => `/api/pkgs/bundle/${'f'.repeat(40)}.json`],
    ['a malformed sha (404)', () => '/api/pkgs/bundle/tip.json'],
    ['an unknown base (404)', () => `/api/pkgs/bundle/${fx.tip}/diff/${'e'.repeat(40)}.json`],
  ])('%s: the same status, headers and bytes with and without the cookie', async (_label, path) => {
    const anonymous = await get(path());
    const signedIn = await get(path(), { cookie });
    expect(signedIn.status).toBe(anonymous.status);
    expect(signedIn.body.equals(anonymous.body)).toBe(true);
    for (const name of ['content-type', 'content-length', 'cache-control', 'etag', 'vary', 'location']) {
      expect(signedIn.headers.get(name), name).toBe(anonymous.headers.get(name));
    }
    expect(signedIn.headers.get('set-cookie')).toBeNull();
    expect(anonymous.headers.get('set-cookie')).toBeNull();
  });
});
