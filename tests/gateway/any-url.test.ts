/**
 * Every URL answers without a 5xx (issue 17): each served registry row with a path parameter, fed
 * long, odd and percent-encoded values in each parameter in turn (the others valid), signed in on
 * the sha-pinned rows, over real HTTP with the path sent byte for byte (no URL normalization: `..`
 * stays a segment). Each answer is the exact status, Cache-Control and error body that SPEC.md's
 * Errors table and the project's messages give (docs/decisions.md "Errors").
 *
 * The catalog: zlib, then openssl depending on it with advisory FIX-2026-0001 active on openssl.
 */
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalogRepo } from '../../demo/catalog-writer.ts';
import { SERVED, templateParams, type SurfaceRow } from '../../src/surfaces/registry.ts';
import { advisory, build, hoursLater, manifest, temporaryDirectory } from '../helpers/catalog.ts';
import { CACHE_CONTROL, JSON_CONTENT_TYPE } from '../helpers/spec.ts';
import { startGateway, type Gateway } from './harness.ts';

let gw: Gateway;
let cookie: string;
let tip: string;
let parent: string;
const logged: string[] = [];

beforeAll(async () => {
  const dir = await temporaryDirectory();
  const repo = join(dir, 'catalog');
  const out = join(dir, 'out');
  [parent, tip] = await createCatalogRepo(repo, [
    { message: 'zlib', time: hoursLater(0), files: { 'packages/zlib/manifest.json': manifest('zlib') } },
    {
      message: 'openssl, with an advisory',
      time: hoursLater(1),
      files: {
        'packages/openssl/manifest.json': manifest('openssl', { dependencies: { runtime: ['zlib'] } }),
        'advisories/FIX-2026-0001.json': advisory('FIX-2026-0001', { package: 'openssl', severity: 'HIGH' }),
      },
    },
  ]);
  await build(repo, out);
  gw = await startGateway(out, dir, { log: (line) => logged.push(line) });
  cookie = await gw.signIn();
});

afterAll(async () => {
  await gw?.close();
});

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** GET with the path exactly as given: fetch and `new URL` would resolve `.` and `..` segments and re-encode. */
function getExactly(path: string, headers: Record<string, string> = {}): Promise<Reply> {
  const { hostname, port } = new URL(gw.url);
  return new Promise((resolve, reject) => {
    const sent = request({ host: hostname, port, path, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end();
  });
}

/** docs/decisions.md "Errors": a requested value is quoted whole up to 100 characters, else cut and its length said. */
function quote(value: string): string {
  const characters = Array.from(value);
  return characters.length <= 100 ? JSON.stringify(value) : `${JSON.stringify(characters.slice(0, 100).join(''))}... (${characters.length} characters)`;
}

/** A value of a path parameter: the segment as sent, and what it decodes to (null: not valid percent-encoded UTF-8). */
interface Value {
  label: string;
  raw: string;
  decoded: string | null;
}

const exact = (label: string, decoded: string): Value => ({ label, raw: encodeURIComponent(decoded), decoded });
const raw = (label: string, segment: string): Value => ({ label, raw: segment, decoded: decodeURIComponent(segment) });
const broken = (label: string, segment: string): Value => ({ label, raw: segment, decoded: null });

/** Names and advisory ids: long, odd, and encoded in odd ways. */
const NAMES_AND_IDS: Value[] = [
  exact('301 characters (the fuzzer\'s case)', `L${'x'.repeat(300)}`),
  exact('251 characters: with `.json`, one more than a file name may have', 'n'.repeat(251)),
  exact('5,000 characters', 'a'.repeat(5000)),
  exact('a leading dash', '-zlib'),
  exact('a leading dot', '.zlib'),
  raw('a dot segment', '.'),
  raw('a dot-dot segment', '..'),
  raw('%2e%2e', '%2e%2e'),
  raw('..%252e (a double-encoded dot)', '..%252e'),
  exact('spaces', 'ADV with spaces'),
  exact('an encoded slash', '../../etc/passwd'),
  exact('a backslash', 'a\\b'),
  exact('a NUL character', 'zlib\u0000'),
  exact('a control character', 'zlib\u001b[31m'),
  exact('markup', '<script>alert(1)</script>'),
  exact('quotes', `"zlib'`),
  exact('an accented letter', 'café'),
  exact('an emoji', 'pkg\u{1F4A9}'),
  exact('a lone surrogate, as UTF-8 would not allow', 'pkg\u{FFFD}'),
  exact('a Windows device name', 'CON'),
  broken('a truncated percent-encoding', '%E0%A4%A'),
  broken('a byte that is not UTF-8', '%FF'),
  broken('a lone percent sign', 'a%'),
];

/** Commit parameters: long, odd, well-formed but unknown. */
const SHAS: Value[] = [
  exact('5,000 hex characters', 'a'.repeat(5000)),
  exact('41 hex characters', `${'0'.repeat(41)}`),
  exact('6 hex characters', 'abcdef'),
  exact('40 characters, not hex', 'g'.repeat(40)),
  exact('upper case', 'ABCDEF0123'),
  raw('a dot-dot segment', '..'),
  raw('%2e%2e', '%2e%2e'),
  exact('a NUL character after 7 hex', 'abcdef0\u0000'),
  exact('markup', '<b>'),
  exact('40 hex on no commit', '0'.repeat(40)),
  exact('7 hex that start no commit', 'fffffff'),
  broken('a byte that is not UTF-8', '%FF'),
];

const VALUES: Record<string, Value[]> = { name: NAMES_AND_IDS, id: NAMES_AND_IDS, sha: SHAS, base: SHAS, part: [...NAMES_AND_IDS, exact('a part past the last', '999999'), exact('part 0', '0')] };

/** A valid value of each parameter, for the parameters not under test. */
const valid = (param: string): string => ({ name: 'zlib', id: 'FIX-2026-0001', sha: tip, base: parent, part: '1' })[param]!;

const WITH_PARAMETERS = SERVED.filter((row) => row.method === 'GET' && templateParams(row.path).length > 0);

interface Expected {
  status: number;
  cache: string;
  body: { error: string; message: string };
}

const NOT_UTF8 = 'The path is not valid percent-encoded UTF-8.';
const MALFORMED_SHA = 'A commit is named by 40 lowercase hex characters, or a unique prefix of 7 or more.';

/** What SPEC.md's Errors table (and the project's messages) give for `value` in `param` of `row`. */
function expectation(row: SurfaceRow, param: string, value: Value): Expected {
  const pinned = row.family === 'pinned';
  if (value.decoded === null) return { status: 404, cache: CACHE_CONTROL.error, body: { error: 'not_found', message: NOT_UTF8 } };
  const decoded = value.decoded;
  switch (param) {
    case 'sha':
    case 'base':
      // SPEC.md Errors: `{sha}` or `{base}` unknown or malformed: 404 (DECISIONS.md 8: a well-formed unknown one takes the negative cache).
      if (/^[0-9a-f]{7,40}$/.test(decoded)) return { status: 404, cache: CACHE_CONTROL.negative, body: { error: 'not_found', message: `No commit ${decoded} on the main branch.` } };
      return { status: 404, cache: CACHE_CONTROL.pinned, body: { error: 'not_found', message: MALFORMED_SHA } };
    case 'name':
      // SPEC.md Errors: unknown or violating the charset: 404; on a sha-pinned route, `private, no-store`.
      return { status: 404, cache: pinned ? CACHE_CONTROL.pinned : CACHE_CONTROL.negative, body: { error: 'not_found', message: `No package named ${quote(decoded)} in the catalog.` } };
    case 'id':
      return { status: 404, cache: CACHE_CONTROL.negative, body: { error: 'not_found', message: `No advisory ${quote(decoded)} is active at the latest commit.` } };
    case 'part':
      // A part past the last may come with the next commit (the count follows the catalog): the negative cache.
      return { status: 404, cache: CACHE_CONTROL.negative, body: { error: 'not_found', message: `No part ${quote(decoded)} of llms-full.txt at the latest commit; /llms.txt lists every part.` } };
    default:
      throw new Error(`${row.id}: no values for parameter {${param}}; add them to VALUES`);
  }
}

/** The row's path with `param` set to `value` (as sent) and every other parameter valid. */
function pathOf(row: SurfaceRow, param: string, value: string): string {
  return row.path.replace(/\{(\w+)\}/g, (_match, key: string) => (key === param ? value : encodeURIComponent(valid(key))));
}

const CASES = WITH_PARAMETERS.flatMap((row) => templateParams(row.path).flatMap((param) => (VALUES[param] ?? [{ label: 'none', raw: '', decoded: '' }]).map((value) => ({ row, param, value }))));

describe('every URL answers without a 5xx: each registry row with a parameter, each odd value', () => {
  it('covers every served GET row with a path parameter, and every parameter kind has values', () => {
    expect(WITH_PARAMETERS.map((row) => row.id).sort()).toEqual(
      ['advisory-markdown', 'advisory-page', 'commit-digest', 'diff', 'full-bundle', 'listing-bundle', 'llms-full-part', 'package', 'package-badge', 'package-markdown', 'package-page', 'package-sbom', 'pinned-deps', 'pinned-sbom', 'pinned-versions'].sort(),
    );
    for (const row of WITH_PARAMETERS) for (const param of templateParams(row.path)) expect(Object.keys(VALUES)).toContain(param);
  });

  it('the valid values answer 200 on every row (the control)', async () => {
    for (const row of WITH_PARAMETERS) {
      const path = row.path.replace(/\{(\w+)\}/g, (_match, key: string) => encodeURIComponent(valid(key)));
      expect({ path, status: (await getExactly(path, row.family === 'pinned' ? { cookie } : {})).status }).toEqual({ path, status: 200 });
    }
  });

  it.each(CASES.map(({ row, param, value }) => [`${row.path} with {${param}} = ${value.label}`, row, param, value] as const))(
    '%s',
    async (_label, row, param, value) => {
      const path = pathOf(row, param, value.raw);
      const reply = await getExactly(path, row.family === 'pinned' ? { cookie } : {});
      const want = expectation(row, param, value);
      expect({ status: reply.status, cache: reply.headers['cache-control'], type: reply.headers['content-type'], body: JSON.parse(reply.body) as unknown }).toEqual({
        status: want.status,
        cache: want.cache,
        type: JSON_CONTENT_TYPE,
        body: want.body,
      });
      // An error never grows with the request that caused it.
      expect(reply.body.length).toBeLessThan(400);
    },
  );

  it('a sha-pinned row without a session: a name that breaks the charset is 404 before the gate, the same for everyone', async () => {
    for (const id of ['pinned-deps', 'pinned-versions', 'pinned-sbom']) {
      const row = WITH_PARAMETERS.find((candidate) => candidate.id === id)!;
      const reply = await getExactly(pathOf(row, 'name', encodeURIComponent('<script>')));
      expect({ id, status: reply.status, body: JSON.parse(reply.body) as unknown }).toEqual({
        id,
        status: 404,
        body: { error: 'not_found', message: 'No package named "<script>" in the catalog.' },
      });
    }
  });

  it('a request line longer than the server reads (20,000 characters) is 431, not a 5xx', async () => {
    const reply = await getExactly(`/api/pkgs/bundle/${tip}/${'a'.repeat(20_000)}/deps.json`, { cookie });
    expect(reply.status).toBe(431);
  });

  it('logged no failure: nothing above reached the 500 path', () => {
    expect(logged.filter((line) => / failed: /.test(line))).toEqual([]);
  });
});
