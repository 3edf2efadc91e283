/**
 * The surface registry is the one list of surfaces: the gateway serves exactly its served rows,
 * the build writes exactly the public files of its rows, and the rows still to come answer 404
 * until they are built. Each row is asked for over real HTTP against the gateway fixture.
 */
import { describe, expect, it } from 'vitest';
import { SERVED, SURFACES, fillTemplate, publicFileFor, publicFileTemplates, surface, variantFile } from '../../src/surfaces/registry.ts';
import { HANDLERS, RESOLVERS } from '../../gateway/surfaces.ts';
import { WRITERS } from '../../build/writers.ts';
import { send, withSignedInGateway, type SignedInGateway } from '../gateway/harness.ts';

let context: SignedInGateway;
withSignedInGateway((received) => (context = received));

/** The gateway's answer to a path no route serves (gateway/errors.ts unknownPath). */
const NO_ROUTE = '{"error":"not_found","message":"Nothing is served at this path."}';

/** Sample path parameters from the fixture (tests/gateway/fixtures.ts): zlib at the tip and its parent, an advisory active at the tip. */
const sampleParams = () => ({
  name: 'zlib',
  sha: context.fx.tip,
  base: context.fx.shas[context.fx.shas.length - 2],
  id: 'PKGCAT-TEST-0002',
  part: '1',
});

/** A request body a POST row answers 200 to: the tool server's JSON-RPC `ping` (MCP "Ping"). */
const sampleBody = (method: string) =>
  method === 'POST' ? { body: '{"jsonrpc":"2.0","id":1,"method":"ping"}', contentType: 'application/json' } : {};

describe('the surface registry', () => {
  it('has one resolver per served GET row, one handler per served POST row, and neither without one', () => {
    expect(Object.keys(RESOLVERS).sort()).toEqual(SERVED.filter((row) => row.method === 'GET').map((row) => row.id).sort());
    expect(Object.keys(HANDLERS).sort()).toEqual(SERVED.filter((row) => row.method === 'POST').map((row) => row.id).sort());
  });

  it('has one writer per served row with a public file and no writer without one', () => {
    expect(Object.keys(WRITERS).sort()).toEqual(SERVED.filter((row) => row.publicFile).map((row) => row.id).sort());
  });

  it('has unique ids and paths, and only the parameters of the path grammar', () => {
    expect(new Set(SURFACES.map((row) => row.id)).size).toBe(SURFACES.length);
    expect(new Set(SURFACES.map((row) => `${row.method} ${row.path}`)).size).toBe(SURFACES.length);
    for (const row of SURFACES) {
      for (const [, parameter] of row.path.matchAll(/\{(\w+)\}/g)) expect(['name', 'sha', 'base', 'id', 'part']).toContain(parameter);
    }
  });

  it.each(SURFACES.filter((row) => row.served).map((row) => [row.id, row] as const))('serves %s on its path', async (_id, row) => {
    const reply = await send(context.gw.url, fillTemplate(row.path, sampleParams()), { method: row.method, headers: { cookie: context.cookie }, ...sampleBody(row.method) });
    expect(reply.body.toString()).not.toBe(NO_ROUTE);
    expect([200, 302]).toContain(reply.status);
    if (reply.status === 200) {
      expect(reply.headers.get('content-type')).toBe(row.contentType);
      expect(reply.headers.get('cache-control')).toBe(row.cacheControl);
    }
  });

  it('names a variant file by putting the query value before the extension of the row\'s file', () => {
    expect(variantFile('api/pkgs/{name}/badge.svg', 'advisories')).toBe('api/pkgs/{name}/badge.advisories.svg');
    expect(variantFile('api/pkgs/{name}/sbom.json', 'spdx')).toBe('api/pkgs/{name}/sbom.spdx.json');
    expect(() => variantFile('api/pkgs/{name}/badge', 'x')).toThrow();
    const badge = surface('package-badge');
    expect(publicFileTemplates(badge)).toEqual([
      { template: 'api/pkgs/{name}/badge.svg', query: {} },
      { template: 'api/pkgs/{name}/badge.advisories.svg', query: { metric: 'advisories' } },
    ]);
    expect(publicFileFor(badge, { metric: 'advisories', style: 'plastic', label: 'x' })).toBe('api/pkgs/{name}/badge.advisories.svg');
    expect(publicFileFor(badge, { metric: 'score', style: 'flat', label: '' })).toBe('api/pkgs/{name}/badge.svg');
  });

  it('gives every public file of every row, variants included, a path of its own', () => {
    const files = SERVED.flatMap((row) => publicFileTemplates(row).map((file) => file.template));
    expect(new Set(files).size).toBe(files.length);
    for (const row of SERVED) for (const { template } of publicFileTemplates(row)) expect(files).toContain(template);
  });

  it.each(SURFACES.filter((row) => !row.served).map((row) => [row.id, row] as const))('answers 404 on %s, which is not built yet', async (_id, row) => {
    const reply = await send(context.gw.url, fillTemplate(row.path, sampleParams()), { method: row.method, headers: { cookie: context.cookie } });
    expect(reply.status).toBe(404);
  });
});
