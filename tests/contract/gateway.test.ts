/**
 * Contract tests: the gateway answers what its OpenAPI document says. For every route of the
 * document and every catalog (catalogs.ts), real requests go through the gateway, anonymous and
 * signed in, for the success and for each error the document lists; every answer's status must
 * be one the document lists for the route, each header the document names must be there with a
 * value its schema accepts, and the body must validate (ajv, JSON Schema 2020-12) against the
 * document's schema for that status and Content-Type. Then every status the document lists must
 * have been seen.
 *
 * A route whose registry row is not served yet is skipped, saying so, until its row says
 * `served: true`: from then on it is held to the document like every other.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mediaTypeOf } from '../../src/http/content-types.ts';
import { SURFACES, fillTemplate, templateParams, type SurfaceRow } from '../../src/surfaces/registry.ts';
import type { OpenApiDocument } from '../../src/compose/openapi.ts';
import { send, uniquePrefix, unusedPrefix } from '../gateway/harness.ts';
import { CACHE_CONTROL, JSON_CONTENT_TYPE } from '../helpers/spec.ts';
import { demoCatalog, gatewayFixture, nothingPublished, type ServedCatalog } from './catalogs.ts';
import { DocumentValidator } from './document.ts';

/** One request and the status it must get. */
interface Case {
  readonly what: string;
  /** `empty`: the gateway with nothing published. */
  readonly on: 'catalog' | 'empty';
  readonly path: string;
  readonly signedIn: boolean;
  readonly status: number;
}

const ROUTES = SURFACES.filter((row) => row.openapi);

/** Each value of each query parameter the row knows, and values it does not understand (never an error). */
function queryStrings(row: SurfaceRow): string[] {
  const strings = [''];
  for (const parameter of row.query ?? []) {
    const values =
      parameter.kind === 'enum'
        ? [...parameter.values, 'no-such-value']
        : [parameter.min, parameter.max, parameter.max + 1, parameter.min - 1, 'abc'].map(String);
    strings.push(...values.map((value) => `?${parameter.name}=${encodeURIComponent(value)}`));
  }
  return strings;
}

/** The requests that give `row` each status the document lists (SPEC.md Errors; the demo has no ambiguous prefix). */
function casesOf(row: SurfaceRow, c: ServedCatalog): Case[] {
  const tip = c.shas.at(-1)!;
  const params = { name: c.name, sha: tip, base: c.shas.at(-2) ?? tip, id: '' };
  const path = (overrides: Partial<typeof params> = {}) => fillTemplate(row.path, { ...params, ...overrides });
  const hasName = templateParams(row.path).includes('name');
  const cases: Case[] = [];
  const add = (what: string, status: number, casePath: string, signedIn = false, on: Case['on'] = 'catalog') => cases.push({ what, status, path: casePath, signedIn, on });

  if (row.family === 'alias') {
    add('anonymous', 302, path());
    add('signed in', 302, path(), true);
    add('nothing published', 404, path(), false, 'empty');
    return cases;
  }
  if (row.family === 'floating') {
    for (const query of queryStrings(row)) add(`anonymous${query}`, 200, path() + query);
    add('signed in', 200, path(), true);
    if (hasName) {
      add('a name not in the catalog', 404, path({ name: 'no-such-package' }));
      add('a name outside the grammar', 404, path({ name: '-dash-first' }));
      add('nothing published', 404, path(), false, 'empty');
    } else {
      add('nothing published', row.id === 'recent-commits' ? 200 : 404, path(), false, 'empty');
    }
    return cases;
  }
  for (const query of queryStrings(row)) add(`signed in${query}`, 200, path() + query, true);
  add('anonymous', 401, path());
  add('a 7-hex prefix, anonymous', 301, path({ sha: uniquePrefix(c.shas, tip, 7) }));
  add('a 12-hex prefix, signed in, with a query string', 301, `${path({ sha: uniquePrefix(c.shas, tip, 12) })}?kept=1`, true);
  if (c.ambiguous) add('an ambiguous prefix', 400, path({ sha: c.ambiguous }));
  add('an unknown sha', 404, path({ sha: '0'.repeat(40) }));
  add('an unknown prefix', 404, path({ sha: unusedPrefix(c.shas) }));
  add('a malformed sha', 404, path({ sha: 'ABCDEF1' }));
  add('nothing published', 404, path(), false, 'empty');
  if (hasName) {
    add('a name the commit does not have, signed in', 404, path({ name: 'no-such-package' }), true);
    add('a name outside the grammar', 404, path({ name: '-dash-first' }));
  }
  return cases;
}

const CATALOGS = [
  ['the gateway fixture', gatewayFixture],
  ['the demo catalog', demoCatalog],
] as const;

describe.each(CATALOGS)('the gateway answers as its OpenAPI document says, on %s', (_label, open) => {
  let c: ServedCatalog;
  let empty: Awaited<ReturnType<typeof nothingPublished>>;
  let doc: DocumentValidator;
  /** Statuses seen per route. */
  const seen = new Map<string, Set<string>>();

  beforeAll(async () => {
    c = await open();
    empty = await nothingPublished();
    const reply = await send(c.gw.url, '/api/pkgs/openapi.json');
    expect(reply.status).toBe(200);
    doc = new DocumentValidator(reply.json<OpenApiDocument>());
  }, 180_000);

  afterAll(async () => {
    await c?.close();
    await empty?.close();
  });

  /** Every way `reply` departs from the document (status, headers, body), as lines. */
  async function problemsOf(row: SurfaceRow, kase: Case): Promise<string[]> {
    const gateway = kase.on === 'empty' ? empty.gw : c.gw;
    const reply = await send(gateway.url, kase.path, { headers: kase.signedIn ? { cookie: c.cookie } : {} });
    const label = `${kase.what} (${kase.path})`;
    if (reply.status !== kase.status) return [`${label}: ${reply.status}, not ${kase.status}: ${reply.body.toString().slice(0, 200)}`];
    const status = String(reply.status);
    const response = doc.response(row.path, reply.status);
    if (!response) return [`${label}: the document lists no ${status}`];
    seen.set(row.path, (seen.get(row.path) ?? new Set()).add(status));
    const problems: string[] = [];
    const at = [row.path, 'get', 'responses', status];
    for (const [name, header] of Object.entries(response.headers)) {
      const value = reply.headers.get(name);
      if (value === null) {
        if (header.required) problems.push(`${label}: no ${name} header`);
        continue;
      }
      const problem = doc.problems([...at, 'headers', name, 'schema'], value);
      if (problem) problems.push(`${label}: ${name}: ${value}: ${problem}`);
    }
    if (!response.content) {
      if (reply.body.length > 0) problems.push(`${label}: a body where the document shows none`);
      return problems;
    }
    const type = mediaTypeOf(reply.headers.get('content-type') ?? '');
    if (!response.content[type]) return [...problems, `${label}: the document has no ${type} body for ${status}`];
    const text = reply.body.toString('utf8');
    const body = type.endsWith('json') ? JSON.parse(text) : text;
    const problem = doc.problems([...at, 'content', type, 'schema'], body);
    if (problem) problems.push(`${label}: body: ${problem}`);
    return problems;
  }

  it('serves the document with SPEC.md\'s Cache-Control, the same for everyone', async () => {
    const anonymous = await send(c.gw.url, '/api/pkgs/openapi.json');
    const signedIn = await send(c.gw.url, '/api/pkgs/openapi.json', { headers: { cookie: c.cookie } });
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers.get('cache-control')).toBe(CACHE_CONTROL.openapi);
    expect(anonymous.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
    expect(signedIn.headers.get('set-cookie')).toBeNull();
    expect(signedIn.body.equals(anonymous.body)).toBe(true);
  });

  for (const row of ROUTES) {
    const title = `${row.path}: every answer is one the document lists, with its headers and body`;
    if (!row.served) {
      it.skip(`${title} (skipped: its registry row says served: false; it is checked as soon as it is served)`, () => {});
      continue;
    }
    it(title, async () => {
      const problems: string[] = [];
      for (const kase of casesOf(row, c)) problems.push(...(await problemsOf(row, kase)));
      expect(problems).toEqual([]);
    });
  }

  it('has fetched every status the document lists for each served route', () => {
    const missing: string[] = [];
    for (const row of ROUTES.filter((route) => route.served)) {
      for (const status of Object.keys(doc.operation(row.path).responses)) {
        // An ambiguous prefix needs two commits sharing 7 hex characters: the gateway fixture has a pair, the demo none.
        if (status === '400' && c.ambiguous === null) continue;
        if (!seen.get(row.path)?.has(status)) missing.push(`${status} on ${row.path}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
