/**
 * The protocol revisions the tool server speaks (docs/mcp.md "Protocol revisions"): a client of
 * the current revision, 2026-07-28 (the v2 SDK's `Client`, pinned: `server/discover`, no
 * `initialize`), a client of 2025-11-25 (the 1.x SDK's `Client`) and one of 2025-06-18 (plain
 * JSON-RPC over HTTP) list the same eight tools and get the same result from each, over real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixture, type Fixture } from '../gateway/fixtures.ts';
import { startGateway, type Gateway } from '../gateway/harness.ts';
import { JSON_CONTENT_TYPE } from '../helpers/spec.ts';
import { connect, connectModern, post, rpc } from './client.ts';

/** SPEC.md's eight tools, and a call of each on the fixture (diff_catalog always answers an error result: SPEC.md tool rule 3). */
const CALLS: readonly [string, Record<string, unknown>][] = [
  ['search_packages', { query: 'curl', limit: 3 }],
  ['get_package', { name: 'curl' }],
  ['get_package_versions', { name: 'curl' }],
  ['get_advisories', { name: 'curl' }],
  ['get_dependencies', { name: 'curl' }],
  ['get_sbom', { name: 'curl', format: 'spdx' }],
  ['list_catalog_commits', { limit: 2 }],
  ['diff_catalog', { sha: 'a'.repeat(40), base: 'b'.repeat(40) }],
];

/** What a client is shown of a result: the parts every revision has. */
const shown = (result: { content?: unknown; structuredContent?: unknown; isError?: unknown }) => ({
  content: result.content,
  structuredContent: result.structuredContent,
  isError: result.isError ?? false,
});

let fx: Fixture;
let gw: Gateway;

beforeAll(async () => {
  fx = await buildFixture();
  gw = await startGateway(fx.out, fx.dir);
}, 120_000);

afterAll(async () => {
  await gw?.close();
  await fx?.cleanup();
});

/** tools/list and a call of every tool, with the 1.x SDK's client (2025-11-25). */
async function legacyClient() {
  const session = await connect(gw.url);
  try {
    const tools = (await session.client.listTools()).tools;
    const results = [];
    for (const [name, args] of CALLS) results.push(shown(await session.call(name, args)));
    return { version: session.client.getServerVersion(), tools, results };
  } finally {
    await session.close();
  }
}

/** The same over plain HTTP, as a 2025-06-18 client: `initialize`, then each request with its `MCP-Protocol-Version`. */
async function plain20250618() {
  const initialize = await post(gw.url, JSON.stringify(rpc(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'plain', version: '1' } })));
  const header = { 'mcp-protocol-version': '2025-06-18' };
  const tools = (await post(gw.url, JSON.stringify(rpc(2, 'tools/list')), header)).json<{ result: { tools: unknown[] } }>().result.tools;
  const results = [];
  for (const [index, [name, args]] of CALLS.entries()) {
    const answer = await post(gw.url, JSON.stringify(rpc(3 + index, 'tools/call', { name, arguments: args })), header);
    results.push(shown(answer.json<{ result: Record<string, unknown> }>().result));
  }
  return { initialize: initialize.json<{ result: { protocolVersion: string } }>().result, tools, results };
}

describe('the tool server at each protocol revision', () => {
  it('serves a 2026-07-28 client (v2 SDK) and 2025 clients the same eight tools and the same results', async () => {
    const modern = await connectModern(gw.url);
    let current;
    try {
      expect(modern.client.getProtocolEra()).toBe('modern');
      expect(modern.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect(modern.client.getServerVersion()).toMatchObject({ name: 'pkgcat', version: '1.0.0' });
      const listed = await modern.client.listTools();
      const results = [];
      for (const [name, args] of CALLS) results.push(shown(await modern.client.callTool({ name, arguments: args })));
      current = { tools: listed.tools, results };
    } finally {
      await modern.close();
    }
    // No initialize on the current revision; every answer one JSON body, no session.
    for (const answer of modern.answers) {
      expect(answer.headers.get('content-type'), `${answer.method} ${answer.status}`).toBe(JSON_CONTENT_TYPE);
      expect(answer.headers.get('mcp-session-id')).toBeNull();
    }

    const older = await legacyClient();
    const oldest = await plain20250618();
    expect(oldest.initialize.protocolVersion).toBe('2025-06-18');
    expect(current.tools.map((tool) => tool.name)).toEqual(CALLS.map(([name]) => name));
    expect(older.tools).toEqual(current.tools);
    expect(oldest.tools).toEqual(current.tools);
    expect(older.results).toEqual(current.results);
    expect(oldest.results).toEqual(current.results);
    // The calls succeed (but diff_catalog, whose every call is an error result), with content.
    expect(current.results.map((result) => result.isError)).toEqual(CALLS.map(([name]) => name === 'diff_catalog'));
  });

  it('speaks 2026-07-28 over plain HTTP: server/discover, cache hints on the lists, Mcp-Method checked against the body', async () => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'plain', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const current = (method: string, id: number, params: Record<string, unknown> = {}, headers: Record<string, string> = { 'mcp-method': method }) =>
      post(gw.url, JSON.stringify(rpc(id, method, { ...params, _meta: meta })), { 'mcp-protocol-version': '2026-07-28', ...headers });

    const discover = await current('server/discover', 1);
    expect(discover.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
    expect(discover.json()).toMatchObject({
      id: 1,
      result: {
        supportedVersions: ['2026-07-28'],
        capabilities: { tools: {} },
        ttlMs: 3_600_000,
        cacheScope: 'public',
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'pkgcat', version: '1.0.0' } },
      },
    });
    const list = (await current('tools/list', 2)).json<{ result: { tools: unknown[]; ttlMs: number; cacheScope: string } }>().result;
    expect({ tools: list.tools.length, ttlMs: list.ttlMs, cacheScope: list.cacheScope }).toEqual({ tools: 8, ttlMs: 3_600_000, cacheScope: 'public' });
    // The 2025 revisions have no cache fields.
    const older = (await post(gw.url, JSON.stringify(rpc(3, 'tools/list')), { 'mcp-protocol-version': '2025-11-25' })).json<{ result: Record<string, unknown> }>().result;
    expect(Object.keys(older)).toEqual(['tools']);

    // A proxy may route on Mcp-Method and Mcp-Name without reading the body: they must agree with it.
    const call = await current('tools/call', 4, { name: 'get_package', arguments: { name: 'curl' } }, { 'mcp-method': 'tools/call', 'mcp-name': 'get_package' });
    expect(call.json<{ result: { isError?: boolean } }>().result.isError ?? false).toBe(false);
    const mismatch = await current('tools/call', 5, { name: 'get_package', arguments: { name: 'curl' } }, { 'mcp-method': 'tools/list' });
    expect({ status: mismatch.status, code: mismatch.json<{ error: { code: number } }>().error.code }).toEqual({ status: 400, code: -32020 });
    // No event stream, ever (SPEC.md "Tool server" 1): nothing to listen for.
    const listen = await current('subscriptions/listen', 7, { notifications: { toolsListChanged: true } });
    expect({ status: listen.status, type: listen.headers.get('content-type'), body: listen.json() }).toEqual({
      status: 404,
      type: JSON_CONTENT_TYPE,
      body: { jsonrpc: '2.0', id: 7, error: { code: -32601, message: expect.stringContaining('nothing to listen for') } },
    });
    // Protocol errors are the same as on the 2025 revisions.
    const unknown = await current('tools/call', 6, { name: 'no_such_tool', arguments: {} }, { 'mcp-method': 'tools/call', 'mcp-name': 'no_such_tool' });
    expect(unknown.json<{ error: { code: number; message: string } }>().error).toMatchObject({ code: -32602, message: expect.stringMatching(/^Unknown tool: no_such_tool\. The tools are search_packages, /) });
  });
});
