/**
 * SPEC.md's Endpoints, Errors and Cache-Control tables, one test row per table row (each row
 * names the row it checks), over real HTTP against the fixture catalog (fixtures.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { readFile } from 'node:fs/promises';
import { composeRecentCommits } from '../../src/compose/commits.ts';
import { serialize } from '../../src/serialize.ts';
import { paths, readJson, currentReleaseId } from '../../src/store/layout.ts';
import { openObjects } from '../../src/store/objects.ts';
import type { CommitInfo } from '../../src/compose/types.ts';
import { AT, buildFixture, sharedPrefixes, type Fixture } from './fixtures.ts';
import { expected, rawGet, send, startGateway, uniquePrefix, unusedPrefix, type Gateway, type Reply } from './harness.ts';
import { CACHE_CONTROL, JSON_CONTENT_TYPE } from '../helpers/spec.ts';

interface Shas {
  tip: string;
  parent: string;
  import: string;
  /** A 7-hex prefix of two commits (the fixture's collision pair). */
  ambiguous: string;
  /** Unique prefixes of the tip: 7, 12 and 39 characters. */
  short: string;
  long: string;
  longest: string;
  unknownFull: string;
  unknownPrefix: string;
}

let fx: Fixture;
let gw: Gateway;
let cookie: string;
const s = {} as Shas;

beforeAll(async () => {
  fx = await buildFixture();
  gw = await startGateway(fx.out, fx.dir);
  cookie = await gw.signIn();
  const { shas, tip } = fx;
  const pairs = sharedPrefixes(shas);
  if (pairs.length === 0) throw new Error('the fixture lost its 7-hex collision: run tests/gateway/find-sha-collision.ts and update COLLISION_NONCE');
  Object.assign(s, {
    tip,
    parent: shas[shas.length - 2],
    import: shas[AT.import],
    ambiguous: pairs[0][0].slice(0, 7),
    short: uniquePrefix(shas, tip, 7),
    long: uniquePrefix(shas, tip, 12),
    longest: uniquePrefix(shas, tip, 39),
    unknownFull: '0'.repeat(40),
    unknownPrefix: unusedPrefix(shas),
  } satisfies Shas);
});

afterAll(async () => {
  await gw?.close();
  await fx?.cleanup();
});

const get = (path: string, headers: Record<string, string> = {}) => send(gw.url, path, { headers });
const signedIn = (path: string) => get(path, { cookie });

/** Checks every header rule shared by all answers; `reply` came from `path`. */
function expectCommonHeaders(reply: Reply): void {
  expect(reply.headers.get('x-powered-by')).toBeNull();
  expect(reply.headers.get('set-cookie')).toBeNull();
  expect(reply.headers.get('www-authenticate')).toBeNull();
  expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
}

function expectJsonError(reply: Reply, error: string): void {
  expect(reply.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
  const body = reply.json<Record<string, unknown>>();
  expect(Object.keys(body).sort()).toEqual(['error', 'message']);
  expect(body.error).toBe(error);
  expect(typeof body.message).toBe('string');
  expect(reply.body.toString()).not.toMatch(/at .*\.ts:\d+|<html/i);
}

interface Row {
  /** The SPEC.md (or DECISIONS.md) table row this checks. */
  row: string;
  path: (s: Shas) => string;
  status: number;
  cache: string;
  /** Expected `error` of a JSON error body. */
  error?: string;
  location?: (s: Shas) => string;
}

/** Runs a row anonymously and, where `both`, signed in too: the outcome must not depend on the session. */
async function checkRow(row: Row, withSession: boolean): Promise<void> {
  const reply = await get(row.path(s), withSession ? { cookie } : {});
  expect(reply.status).toBe(row.status);
  expect(reply.headers.get('cache-control')).toBe(row.cache);
  expectCommonHeaders(reply);
  if (row.location) {
    expect(reply.headers.get('location')).toBe(row.location(s));
    expect(reply.body.length).toBe(0);
  } else {
    expect(reply.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
  }
  if (row.error) expectJsonError(reply, row.error);
}

const PINNED: [string, (s: Shas) => string][] = [
  ['GET /api/pkgs/bundle/{sha}.json', (x) => `/api/pkgs/bundle/${x.tip}.json`],
  ['GET /api/pkgs/bundle/{sha}/full.json', (x) => `/api/pkgs/bundle/${x.tip}/full.json`],
  ['GET /api/pkgs/bundle/{sha}/diff/{base}.json', (x) => `/api/pkgs/bundle/${x.tip}/diff/${x.parent}.json`],
  ['GET /api/pkgs/bundle/{sha}/{name}/deps.json', (x) => `/api/pkgs/bundle/${x.tip}/zlib/deps.json`],
  ['GET /api/pkgs/bundle/{sha}/{name}/versions.json', (x) => `/api/pkgs/bundle/${x.tip}/zlib/versions.json`],
];

describe('SPEC.md Endpoints table (with the Cache-Control per surface table)', () => {
  const rows: Row[] = [
    { row: 'Endpoints: GET /api/pkgs/{name}.json | Cache-Control: /api/pkgs/{name}.json', path: () => '/api/pkgs/zlib.json', status: 200, cache: CACHE_CONTROL.floating },
    { row: 'Endpoints: GET /api/pkgs/recent-commits.json | Cache-Control: recent-commits (non-empty success)', path: () => '/api/pkgs/recent-commits.json', status: 200, cache: CACHE_CONTROL.floating },
    {
      row: 'Endpoints: GET /api/pkgs/bundle/latest.json (302) | Cache-Control: bundle/latest.json',
      path: () => '/api/pkgs/bundle/latest.json',
      status: 302,
      cache: CACHE_CONTROL.alias,
      location: (x) => `/api/pkgs/bundle/${x.tip}.json`,
    },
    ...PINNED.map(([row, path]): Row => ({
      row: `Endpoints: ${row}, no session (401) | Authentication 4 | Cache-Control: the six sha-pinned endpoints (401)`,
      path,
      status: 401,
      cache: CACHE_CONTROL.pinned,
      error: 'auth_required',
    })),
  ];
  it.each(rows.map((row) => [row.row, row] as const))('%s', async (_label, row) => {
    await checkRow(row, false);
  });

  it.each(PINNED)('Endpoints: %s with a session (200) | Cache-Control: the six sha-pinned endpoints (200)', async (_label, path) => {
    const reply = await signedIn(path(s));
    expect(reply.status).toBe(200);
    expect(reply.headers.get('cache-control')).toBe(CACHE_CONTROL.pinned);
    expect(reply.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
    expect(reply.headers.get('etag')).toMatch(/^W\/"[0-9a-f]{32}"$/);
    expect(reply.headers.get('vary')).toBe('Accept-Encoding');
    expectCommonHeaders(reply);
    expect(reply.json<{ schemaVersion?: number }>().schemaVersion).toBeTypeOf('number');
  });

  it('Authentication 4: the 401 body is exactly auth_required with its message, and no WWW-Authenticate', async () => {
    const reply = await get(`/api/pkgs/bundle/${s.tip}.json`);
    const { AUTH_REQUIRED_MESSAGE } = await import('../../gateway/auth/index.ts');
    expect(reply.body.toString()).toBe(serialize({ error: 'auth_required', message: AUTH_REQUIRED_MESSAGE }));
    expect(reply.headers.get('www-authenticate')).toBeNull();
  });

  it('Authentication 5: following latest.json without a session gives 401; with one, the tip listing', async () => {
    const alias = await get('/api/pkgs/bundle/latest.json');
    const target = alias.headers.get('location')!;
    expect((await get(target)).status).toBe(401);
    const reply = await signedIn(target);
    expect(reply.status).toBe(200);
    expect(reply.body.equals((await expected.listing(fx.out, s.tip)).bytes)).toBe(true);
  });
});

describe('Endpoints: byte-identical bodies', () => {
  it.each([
    ['GET /api/pkgs/{name}.json', '/api/pkgs/zlib.json', 'zlib'],
    ['{name} case-insensitive (DECISIONS.md 4)', '/api/pkgs/ZLIB.json', 'zlib'],
    ['{name} with dots', '/api/pkgs/llama.cpp.json', 'llama.cpp'],
    ['{name} with dots, any spelling', '/api/pkgs/LLaMA.CPP.json', 'llama.cpp'],
    ['{name} whose canonical spelling is mixed case', '/api/pkgs/sqlite.json', 'SQLite'],
    ['{name} canonical spelling', '/api/pkgs/SQLite.json', 'SQLite'],
    ['{name} that is also a path segment of the diff route', '/api/pkgs/diff.json', 'diff'],
  ])('Endpoints: %s: %s is the envelope the build wrote for %s', async (_row, path, canonical) => {
    const reply = await get(path);
    expect(reply.status).toBe(200);
    expect(reply.body.equals(await expected.packageRecord(fx.out, canonical))).toBe(true);
    const envelope = reply.json<{ commitSha: string; package: { name: string } }>();
    expect(envelope.commitSha).toBe(s.tip);
    expect(envelope.package.name).toBe(canonical);
  });

  it('Endpoints: GET /api/pkgs/recent-commits.json is the file the build wrote, newest first', async () => {
    const reply = await get('/api/pkgs/recent-commits.json');
    expect(reply.body.equals(await expected.publicFile(fx.out, 'api/pkgs/recent-commits.json'))).toBe(true);
    const commits = reply.json<CommitInfo[]>();
    expect(commits).toHaveLength(30);
    expect(commits[0].sha).toBe(s.tip);
    expect(commits.map((commit) => commit.sha)).toEqual([...fx.shas].reverse().slice(0, 30));
  });

  it.each([
    ['GET /api/pkgs/bundle/{sha}.json', (x: Shas) => `/api/pkgs/bundle/${x.tip}.json`, () => expected.listing(fx.out, s.tip)],
    ['GET /api/pkgs/bundle/{sha}/full.json', (x: Shas) => `/api/pkgs/bundle/${x.tip}/full.json`, () => expected.full(fx.out, s.tip)],
    ['GET .../{name}/deps.json', (x: Shas) => `/api/pkgs/bundle/${x.tip}/curl/deps.json`, () => expected.packageObject(fx.out, s.tip, 'curl', 'deps')],
    ['GET .../{name}/deps.json, any spelling', (x: Shas) => `/api/pkgs/bundle/${x.tip}/CURL/deps.json`, () => expected.packageObject(fx.out, s.tip, 'curl', 'deps')],
    ['GET .../{name}/versions.json', (x: Shas) => `/api/pkgs/bundle/${x.tip}/ticker/versions.json`, () => expected.packageObject(fx.out, s.tip, 'ticker', 'versions')],
    ['GET .../{name}/versions.json of a removed package (history stays)', (x: Shas) => `/api/pkgs/bundle/${x.tip}/leftpad/versions.json`, () => expected.packageObject(fx.out, s.tip, 'leftpad', 'versions')],
    ['GET .../{name}/deps.json of the package `diff`', (x: Shas) => `/api/pkgs/bundle/${x.tip}/diff/deps.json`, () => expected.packageObject(fx.out, s.tip, 'diff', 'deps')],
    ['GET .../{name}/deps.json of the reserved name `bundle` (DECISIONS.md 4: reachable through the bundles)', (x: Shas) => `/api/pkgs/bundle/${x.tip}/bundle/deps.json`, () => expected.packageObject(fx.out, s.tip, 'bundle', 'deps')],
  ])('Endpoints: %s, signed in, is the stored body with its ETag', async (_row, path, want) => {
    const body = (await want())!;
    const reply = await signedIn(path(s));
    expect(reply.status).toBe(200);
    expect(reply.body.equals(body.bytes)).toBe(true);
    expect(reply.headers.get('etag')).toBe(body.etag);
    expect(reply.headers.get('content-length')).toBe(String(body.bytes.length));
  });

  it('Endpoints: GET .../diff/{base}.json against the parent is the diff of the two listings', async () => {
    const reply = await signedIn(`/api/pkgs/bundle/${s.tip}/diff/${s.parent}.json`);
    expect(reply.body.equals(await expected.diff(fx.out, s.tip, s.parent))).toBe(true);
    const diff = reply.json<{ sha: string; base: string; versionChanges: { name: string }[]; advisoryChanges: { name: string; added: string[] }[] }>();
    expect([diff.sha, diff.base]).toEqual([s.tip, s.parent]);
    expect(diff.versionChanges).toEqual([]);
    expect(diff.advisoryChanges.map((change) => [change.name, change.added])).toEqual([['openssl', ['PKGCAT-TEST-0002']]]);
  });
});

describe('SPEC.md Errors table', () => {
  const errorRows: Row[] = [
    { row: 'Errors: {name} unknown on a floats-latest endpoint', path: () => '/api/pkgs/nosuch.json', status: 404, cache: CACHE_CONTROL.negative, error: 'not_found' },
    { row: 'Errors: {name} unknown: a package removed before the tip', path: () => '/api/pkgs/leftpad.json', status: 404, cache: CACHE_CONTROL.negative, error: 'not_found' },
    { row: 'Errors: {name} violating the charset (leading -)', path: () => '/api/pkgs/-zlib.json', status: 404, cache: CACHE_CONTROL.negative, error: 'not_found' },
    { row: 'Errors: {name} violating the charset (space)', path: () => '/api/pkgs/zl%20ib.json', status: 404, cache: CACHE_CONTROL.negative, error: 'not_found' },
    { row: 'Errors: {name} violating the charset (encoded slash)', path: () => '/api/pkgs/zlib%2F..%2Fx.json', status: 404, cache: CACHE_CONTROL.negative, error: 'not_found' },
    { row: 'Errors: {name} violating the charset (not UTF-8 percent-encoding)', path: () => '/api/pkgs/%E0%A4%A.json', status: 404, cache: CACHE_CONTROL.error, error: 'not_found' },
    { row: 'DECISIONS.md 4: fixed routes win; a reserved name is not served under /api/pkgs/', path: () => '/api/pkgs/bundle.json', status: 404, cache: CACHE_CONTROL.negative, error: 'not_found' },
    { row: 'Errors: {sha} unknown (40-hex) | Cache-Control of errors: well-formed unknown sha (DECISIONS.md 8)', path: (x) => `/api/pkgs/bundle/${x.unknownFull}.json`, status: 404, cache: CACHE_CONTROL.negative, error: 'not_found' },
    { row: 'Errors: {sha} unknown (7-hex prefix of nothing) | DECISIONS.md 8', path: (x) => `/api/pkgs/bundle/${x.unknownPrefix}/full.json`, status: 404, cache: CACHE_CONTROL.negative, error: 'not_found' },
    { row: 'Errors: {sha} unknown on deps.json', path: (x) => `/api/pkgs/bundle/${x.unknownFull}/zlib/deps.json`, status: 404, cache: CACHE_CONTROL.negative, error: 'not_found' },
    { row: 'Errors: {sha} unknown on versions.json', path: (x) => `/api/pkgs/bundle/${x.unknownPrefix}/zlib/versions.json`, status: 404, cache: CACHE_CONTROL.negative, error: 'not_found' },
    { row: 'Errors: {base} unknown', path: (x) => `/api/pkgs/bundle/${x.tip}/diff/${x.unknownFull}.json`, status: 404, cache: CACHE_CONTROL.negative, error: 'not_found' },
    { row: 'Errors: {sha} malformed (not hex) | Cache-Control of errors: other 4xx', path: () => '/api/pkgs/bundle/main.json', status: 404, cache: CACHE_CONTROL.pinned, error: 'not_found' },
    { row: 'Errors: {sha} malformed (upper case)', path: (x) => `/api/pkgs/bundle/${x.tip.toUpperCase()}.json`, status: 404, cache: CACHE_CONTROL.pinned, error: 'not_found' },
    { row: 'Errors: {sha} malformed (6 hex: shorter than a prefix)', path: (x) => `/api/pkgs/bundle/${x.tip.slice(0, 6)}.json`, status: 404, cache: CACHE_CONTROL.pinned, error: 'not_found' },
    { row: 'Errors: {sha} malformed (41 hex)', path: (x) => `/api/pkgs/bundle/${x.tip}0/full.json`, status: 404, cache: CACHE_CONTROL.pinned, error: 'not_found' },
    { row: 'Errors: {base} malformed', path: (x) => `/api/pkgs/bundle/${x.tip}/diff/HEAD~1.json`, status: 404, cache: CACHE_CONTROL.pinned, error: 'not_found' },
    { row: 'Errors: deps.json name charset violation', path: (x) => `/api/pkgs/bundle/${x.tip}/-zlib/deps.json`, status: 404, cache: CACHE_CONTROL.pinned, error: 'not_found' },
    { row: 'Errors: versions.json name charset violation', path: (x) => `/api/pkgs/bundle/${x.tip}/zl%20ib/versions.json`, status: 404, cache: CACHE_CONTROL.pinned, error: 'not_found' },
    {
      row: 'Errors: sha prefix (7 to 39 hex) unique: 301, query kept | Cache-Control of errors: 301 from a prefix under 12',
      path: (x) => `/api/pkgs/bundle/${x.short}.json?a=1&b=%20x`,
      status: 301,
      cache: CACHE_CONTROL.pinned,
      location: (x) => `/api/pkgs/bundle/${x.tip}.json?a=1&b=%20x`,
    },
    {
      row: 'Errors: sha prefix unique, 12 hex | Cache-Control of errors: 301 from a prefix of 12 or more',
      path: (x) => `/api/pkgs/bundle/${x.long}/full.json`,
      status: 301,
      cache: CACHE_CONTROL.longPrefixRedirect,
      location: (x) => `/api/pkgs/bundle/${x.tip}/full.json`,
    },
    {
      row: 'Errors: sha prefix unique, 39 hex',
      path: (x) => `/api/pkgs/bundle/${x.longest}/zlib/deps.json?x`,
      status: 301,
      cache: CACHE_CONTROL.longPrefixRedirect,
      location: (x) => `/api/pkgs/bundle/${x.tip}/zlib/deps.json?x`,
    },
    {
      row: 'Errors: sha prefix unique, on versions.json, the name kept as given',
      path: (x) => `/api/pkgs/bundle/${x.short}/TICKER/versions.json`,
      status: 301,
      cache: CACHE_CONTROL.pinned,
      location: (x) => `/api/pkgs/bundle/${x.tip}/TICKER/versions.json`,
    },
    {
      row: 'Errors: {sha} and {base} prefixes, one redirect; the shorter prefix sets Cache-Control',
      path: (x) => `/api/pkgs/bundle/${x.long}/diff/${x.parent.slice(0, 8)}.json`,
      status: 301,
      cache: CACHE_CONTROL.pinned,
      location: (x) => `/api/pkgs/bundle/${x.tip}/diff/${x.parent}.json`,
    },
    { row: 'Errors: sha prefix ambiguous: 400 ambiguous sha', path: (x) => `/api/pkgs/bundle/${x.ambiguous}.json`, status: 400, cache: CACHE_CONTROL.pinned, error: 'ambiguous sha' },
    { row: 'Errors: sha prefix ambiguous on full.json', path: (x) => `/api/pkgs/bundle/${x.ambiguous}/full.json`, status: 400, cache: CACHE_CONTROL.pinned, error: 'ambiguous sha' },
    { row: 'Errors: {base} prefix ambiguous', path: (x) => `/api/pkgs/bundle/${x.tip}/diff/${x.ambiguous}.json`, status: 400, cache: CACHE_CONTROL.pinned, error: 'ambiguous sha' },
  ];
  it.each(errorRows.map((row) => [row.row, row] as const))('%s (anonymous)', async (_label, row) => {
    await checkRow(row, false);
  });
  it.each(errorRows.map((row) => [row.row, row] as const))('%s (signed in: Authentication 3, the same outcome)', async (_label, row) => {
    await checkRow(row, true);
  });

  it('Errors: an ambiguous prefix really is ambiguous, and one more character resolves it', async () => {
    const [a, b] = sharedPrefixes(fx.shas)[0];
    const common = [...a].findIndex((char, index) => b[index] !== char);
    const reply = await get(`/api/pkgs/bundle/${a.slice(0, common + 1)}.json`);
    expect(reply.status).toBe(301);
    expect(reply.headers.get('location')).toBe(`/api/pkgs/bundle/${a}.json`);
  });

  it.each([
    ['Errors: deps.json with no lock-state row at that sha (a removed package)', (x: Shas) => `/api/pkgs/bundle/${x.tip}/leftpad/deps.json`],
    ['Errors: deps.json of a name the catalog never had', (x: Shas) => `/api/pkgs/bundle/${x.tip}/nosuch/deps.json`],
    ['Errors: versions.json with no history at that sha (not yet added)', (x: Shas) => `/api/pkgs/bundle/${x.import}/leftpad/versions.json`],
    ['Errors: versions.json of a name the catalog never had', (x: Shas) => `/api/pkgs/bundle/${x.tip}/nosuch/versions.json`],
  ])('%s: 404 after the gate, private', async (_row, path) => {
    const reply = await signedIn(path(s));
    expect(reply.status).toBe(404);
    expect(reply.headers.get('cache-control')).toBe(CACHE_CONTROL.pinned);
    expectJsonError(reply, 'not_found');
    expect((await get(path(s))).status).toBe(401);
  });

  it.each([
    ['an unknown path', '/nope'],
    ['a path under /api/pkgs/ that no row serves', '/api/pkgs/zlib/unknown.json'],
    ['a trailing slash (strict routing)', '/api/pkgs/zlib.json/'],
    ['fixed segments are case-sensitive', '/API/PKGS/zlib.json'],
  ])('404 JSON for %s', async (_label, path) => {
    const reply = await get(path);
    expect(reply.status).toBe(404);
    expect(reply.headers.get('cache-control')).toBe(CACHE_CONTROL.error);
    expectJsonError(reply, 'not_found');
    expectCommonHeaders(reply);
  });

  it.each([
    ['a floating record', (name: string) => `/api/pkgs/${name}.json`, 'x'],
    ['a pinned deps.json (charset violation)', (name: string) => `/api/pkgs/bundle/${s.tip}/${name}/deps.json`, '-'],
  ])('an error body quotes at most 100 characters of a 10 KB name: %s', async (_label, path, first) => {
    const name = `${first}${'a'.repeat(10_239)}`;
    const reply = await signedIn(path(name));
    expect(reply.status).toBe(404);
    expect(reply.json()).toEqual({ error: 'not_found', message: `No package named "${first}${'a'.repeat(99)}"... (10240 characters) in the catalog.` });
    expect(reply.body.length).toBeLessThan(200);
  });

  it('a name of exactly 100 characters is quoted whole', async () => {
    const name = `q${'z'.repeat(99)}`;
    expect((await get(`/api/pkgs/${name}.json`)).json()).toEqual({ error: 'not_found', message: `No package named "${name}" in the catalog.` });
  });
});

describe('SPEC.md Limits: recent commits `limit`', () => {
  it.each([
    ['absent', '', 30],
    ['default', '?limit=30', 30],
    ['0 clamps to 1', '?limit=0', 1],
    ['negative clamps to 1', '?limit=-5', 1],
    ['in range', '?limit=7', 7],
    ['50', '?limit=50', 50],
    ['51 clamps to 50', '?limit=51', 50],
    ['huge clamps to 50', '?limit=99999999999', 50],
    ['non-numeric falls back to 30', '?limit=abc', 30],
    ['partly numeric falls back to 30', '?limit=12abc', 30],
    ['empty falls back to 30', '?limit=', 30],
  ])('Limits: limit %s (%s) gives %i commits', async (_label, query, count) => {
    const reply = await get(`/api/pkgs/recent-commits.json${query}`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('cache-control')).toBe(CACHE_CONTROL.floating);
    const chain = await readJson<CommitInfo[]>(paths.chain(paths.release(fx.out, (await currentReleaseId(fx.out))!)));
    expect(reply.body.toString()).toBe(serialize(composeRecentCommits(chain, count)));
    const commits = reply.json<CommitInfo[]>();
    expect(commits).toHaveLength(count);
    expect(commits[0]).toEqual({ sha: s.tip, message: 'Publish PKGCAT-TEST-0002 for openssl', pushedAt: expect.any(String) });
  });
});

describe('HEAD, other methods, conditional requests', () => {
  const heads: [string, (x: Shas) => string, boolean][] = [
    ['GET /api/pkgs/{name}.json', () => '/api/pkgs/zlib.json', false],
    ['GET /api/pkgs/recent-commits.json', () => '/api/pkgs/recent-commits.json?limit=3', false],
    ['GET /api/pkgs/bundle/latest.json', () => '/api/pkgs/bundle/latest.json', false],
    ['a 404', () => '/api/pkgs/nosuch.json', false],
    ['a 401', (x) => `/api/pkgs/bundle/${x.tip}.json`, false],
    ['a 301', (x) => `/api/pkgs/bundle/${x.short}.json`, false],
    ...PINNED.map(([row, path]): [string, (x: Shas) => string, boolean] => [row, path, true]),
  ];
  it.each(heads)('HEAD answers as GET does, without a body: %s', async (_label, path, session) => {
    const headers: Record<string, string> = session ? { cookie } : {};
    const full = await send(gw.url, path(s), { headers });
    const head = await send(gw.url, path(s), { method: 'HEAD', headers });
    expect(head.status).toBe(full.status);
    expect(head.body.length).toBe(0);
    for (const name of ['content-type', 'content-length', 'cache-control', 'etag', 'vary', 'location']) {
      expect(head.headers.get(name), name).toBe(full.headers.get(name));
    }
    expect(Number(full.headers.get('content-length'))).toBe(full.body.length);
  });

  it.each([
    ['POST', '/api/pkgs/zlib.json'],
    ['PUT', '/api/pkgs/recent-commits.json'],
    ['DELETE', '/api/pkgs/bundle/latest.json'],
    ['PATCH', `/api/pkgs/bundle/${'a'.repeat(40)}.json`],
    ['POST', '/api/pkgs/bundle/abcdef1/full.json'],
    ['OPTIONS', '/api/pkgs/bundle/x/zlib/deps.json'],
    ['POST', '/api/pkgs/bundle/x/diff/y.json'],
    ['POST', '/api/pkgs/nosuch.json'],
  ])('%s %s: 405 with Allow, before any parameter is looked at', async (method, path) => {
    const reply = await send(gw.url, path, { method });
    expect(reply.status).toBe(405);
    expect(reply.headers.get('allow')).toBe('GET, HEAD');
    expect(reply.headers.get('cache-control')).toBe(CACHE_CONTROL.error);
    expectJsonError(reply, 'method_not_allowed');
  });

  it('POST to an unknown path is a 404, not a 405', async () => {
    expect((await send(gw.url, '/nope', { method: 'POST' })).status).toBe(404);
  });

  it.each(PINNED)('Endpoints rule 3: %s never answers 304, even with If-None-Match; its ETag is stable', async (_label, path) => {
    const first = await signedIn(path(s));
    const etag = first.headers.get('etag')!;
    const again = await get(path(s), { cookie, 'if-none-match': etag });
    expect(again.status).toBe(200);
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.body.equals(first.body)).toBe(true);
    const star = await get(path(s), { cookie, 'if-none-match': '*', 'if-modified-since': new Date().toUTCString() });
    expect(star.status).toBe(200);
  });

  it('Endpoints rule 3: the ETag identifies the body: other bodies, other ETags', async () => {
    const etags = await Promise.all(
      [`/api/pkgs/bundle/${s.tip}.json`, `/api/pkgs/bundle/${s.parent}.json`, `/api/pkgs/bundle/${s.tip}/full.json`, `/api/pkgs/bundle/${s.tip}/zlib/deps.json`, `/api/pkgs/bundle/${s.tip}/curl/deps.json`].map(
        async (path) => (await signedIn(path)).headers.get('etag'),
      ),
    );
    expect(new Set(etags).size).toBe(etags.length);
  });

  it('floating routes never answer 304 either', async () => {
    const reply = await get('/api/pkgs/zlib.json', { 'if-none-match': '*', 'if-modified-since': new Date().toUTCString() });
    expect(reply.status).toBe(200);
  });
});

describe('Precompressed and compressed bodies (Accept-Encoding)', () => {
  const decode = (encoding: string | undefined, body: Buffer) =>
    encoding === 'br' ? brotliDecompressSync(body) : encoding === 'gzip' ? gunzipSync(body) : body;

  const bodies: [string, (x: Shas) => string, boolean][] = [
    ['the full bundle (assembled, compressed once and kept)', (x) => `/api/pkgs/bundle/${x.tip}/full.json`, true],
    ['the listing bundle', (x) => `/api/pkgs/bundle/${x.tip}.json`, true],
    ['a versions.json with precompressed siblings', (x) => `/api/pkgs/bundle/${x.tip}/ticker/versions.json`, true],
    ['a diff', (x) => `/api/pkgs/bundle/${x.tip}/diff/${x.import}.json`, true],
    ['a package record', () => '/api/pkgs/curl.json', false],
    ['recent commits', () => '/api/pkgs/recent-commits.json', false],
  ];
  it.each(bodies)('%s: br and gzip decode to the identity bytes, same ETag, Vary: Accept-Encoding', async (_label, path, session) => {
    const headers: Record<string, string> = session ? { cookie } : {};
    const plain = await rawGet(gw.url, path(s), headers);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThanOrEqual(1024);
    for (const [accept, encoding] of [
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['gzip, deflate, br', 'br'],
      ['br;q=0.5, gzip', 'gzip'],
      ['gzip;q=0, br;q=0', undefined],
      ['identity', undefined],
      ['*', 'br'],
    ] as const) {
      const reply = await rawGet(gw.url, path(s), { ...headers, 'accept-encoding': accept });
      expect(reply.status).toBe(200);
      expect(reply.headers['content-encoding'], accept).toBe(encoding);
      expect(reply.headers.vary).toBe('Accept-Encoding');
      expect(reply.headers.etag).toBe(plain.headers.etag);
      expect(Number(reply.headers['content-length'])).toBe(reply.body.length);
      expect(decode(encoding, reply.body).equals(plain.body)).toBe(true);
    }
  });

  it('Content-Encoding br serves the copy the build stored', async () => {
    const object = (await expected.packageObject(fx.out, s.tip, 'ticker', 'versions'))!;
    const sibling = (await openObjects(fx.out).get(object.hash, 'br'))!;
    const reply = await rawGet(gw.url, `/api/pkgs/bundle/${s.tip}/ticker/versions.json`, { cookie, 'accept-encoding': 'br' });
    expect(reply.body.equals(sibling)).toBe(true);
  });

  it('a small body stays identity whatever is accepted, and still says Vary', async () => {
    const reply = await rawGet(gw.url, `/api/pkgs/bundle/${s.tip}/zlib/deps.json`, { cookie, 'accept-encoding': 'br, gzip' });
    expect(reply.headers['content-encoding']).toBeUndefined();
    expect(reply.headers.vary).toBe('Accept-Encoding');
  });
});

describe('Anonymous surfaces are the same for every caller (Authentication 6)', () => {
  it.each([['/api/pkgs/zlib.json'], ['/api/pkgs/recent-commits.json'], ['/api/pkgs/recent-commits.json?limit=5'], ['/api/pkgs/bundle/latest.json'], ['/api/pkgs/nosuch.json']])(
    '%s: same status, headers and bytes with and without a session cookie, and no Set-Cookie',
    async (path) => {
      const anonymous = await get(path);
      const withCookie = await get(path, { cookie });
      expect(withCookie.status).toBe(anonymous.status);
      expect(withCookie.body.equals(anonymous.body)).toBe(true);
      for (const name of ['content-type', 'cache-control', 'etag', 'vary', 'location', 'content-length']) {
        expect(withCookie.headers.get(name), name).toBe(anonymous.headers.get(name));
      }
      expect(withCookie.headers.get('set-cookie')).toBeNull();
      expect(anonymous.headers.get('set-cookie')).toBeNull();
    },
  );
});

describe('A catalog with no published commit, and one whose release cannot be read', () => {
  let dir: string;
  let empty: Gateway;
  let broken: Gateway;

  beforeAll(async () => {
    const { mkdtemp, mkdir, symlink } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    dir = await mkdtemp(join(tmpdir(), 'pkgcat-gateway-empty-'));
    await mkdir(join(dir, 'empty'));
    await mkdir(join(dir, 'broken'));
    // `current` names a release whose files are gone: every read of it fails.
    await symlink(join('releases', '000009-0123456789ab'), join(dir, 'broken', 'current'));
    empty = await startGateway(join(dir, 'empty'), join(dir, 'empty-sessions'));
    broken = await startGateway(join(dir, 'broken'), join(dir, 'broken-sessions'));
  });

  afterAll(async () => {
    await empty?.close();
    await broken?.close();
    const { rm } = await import('node:fs/promises');
    await rm(dir, { recursive: true, force: true });
  });

  it('Errors: bundle/latest.json when the catalog has no commits: 404 | Cache-Control: bundle/latest.json', async () => {
    const reply = await send(empty.url, '/api/pkgs/bundle/latest.json');
    expect(reply.status).toBe(404);
    expect(reply.headers.get('cache-control')).toBe(CACHE_CONTROL.alias);
    expectJsonError(reply, 'not_found');
  });

  it.each([
    ['empty history', () => empty, '/api/pkgs/recent-commits.json'],
    ['empty history, with a limit', () => empty, '/api/pkgs/recent-commits.json?limit=5'],
    ['upstream failure', () => broken, '/api/pkgs/recent-commits.json'],
    ['upstream failure, with a limit', () => broken, '/api/pkgs/recent-commits.json?limit=abc'],
  ])('Errors: recent-commits.json on %s: 200 [] | Cache-Control: recent-commits empty or failed: no-store', async (_label, gateway, path) => {
    for (const method of ['GET', 'HEAD']) {
      const reply = await send(gateway().url, path, { method });
      expect(reply.status).toBe(200);
      expect(reply.headers.get('cache-control')).toBe(CACHE_CONTROL.noStore);
      expect(reply.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
      expect(reply.headers.get('content-length')).toBe('2');
      if (method === 'GET') expect(reply.body.toString()).toBe('[]');
    }
  });

  it.each([
    ['{name} on a catalog with nothing published', '/api/pkgs/zlib.json', 404, CACHE_CONTROL.negative],
    ['{sha} on a catalog with nothing published', `/api/pkgs/bundle/${'a'.repeat(40)}.json`, 404, CACHE_CONTROL.negative],
    ['{sha} prefix on a catalog with nothing published', '/api/pkgs/bundle/abcdef1/full.json', 404, CACHE_CONTROL.negative],
  ])('%s: 404', async (_label, path, status, cache) => {
    const reply = await send(empty.url, path);
    expect(reply.status).toBe(status);
    expect(reply.headers.get('cache-control')).toBe(cache);
    expectJsonError(reply, 'not_found');
  });

  it.each([['/api/pkgs/zlib.json'], [`/api/pkgs/bundle/${'a'.repeat(40)}.json`], ['/api/pkgs/bundle/latest.json']])(
    'an unreadable release: %s is a JSON 500 without a stack trace',
    async (path) => {
      const reply = await send(broken.url, path);
      expect(reply.status).toBe(500);
      expect(reply.headers.get('cache-control')).toBe(CACHE_CONTROL.error);
      expectJsonError(reply, 'internal');
      expect(reply.body.toString()).not.toMatch(/ENOENT|releases\//);
    },
  );
});
