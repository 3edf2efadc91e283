/**
 * The tool server's transport rules (SPEC.md "Tool server" 1 to 5, Limits, Errors; docs/mcp.md),
 * over real HTTP against the gateway: one `application/json` answer whatever `Accept` offers, no
 * session id, 405 with `Allow: POST` for other methods, 413 past 256 KiB (declared or chunked),
 * JSON-RPC errors for what is not JSON-RPC, batches and notifications as the protocol says, and
 * `Cache-Control: private, no-store` on every answer, errors included. Never HTML, never a 5xx.
 */
import { describe, expect, it } from 'vitest';
import { withSignedInGateway, type SignedInGateway } from '../gateway/harness.ts';
import { CACHE_CONTROL, JSON_CONTENT_TYPE, TOOL_BODY_LIMIT_BYTES, TOOL_SERVER_VERSION } from '../helpers/spec.ts';
import { connect, MCP_PATH, post, postChunked, rpc, type RawAnswer } from './client.ts';

let context: SignedInGateway;
withSignedInGateway((received) => (context = received));

const base = () => context.gw.url;
const PING = JSON.stringify(rpc(1, 'ping'));

/** What every answer of the tool server carries (SPEC.md "Tool server" 2 and 5), whatever its status. */
function expectToolServerHeaders(headers: Headers, what: string): void {
  expect(headers.get('cache-control'), what).toBe(CACHE_CONTROL.pinned);
  expect(headers.get('mcp-session-id'), what).toBeNull();
  expect(headers.get('content-type') ?? '', what).not.toMatch(/html|event-stream/);
}

/** A JSON-RPC error answer: the status, the code, JSON with the row's Content-Type. */
function expectRpcError(answer: RawAnswer, status: number, code: number): string {
  expect({ status: answer.status, type: answer.headers.get('content-type') }).toEqual({ status, type: JSON_CONTENT_TYPE });
  const body = answer.json<{ jsonrpc: string; id: unknown; error: { code: number; message: string } }>();
  expect({ jsonrpc: body.jsonrpc, id: body.id, code: body.error.code }).toEqual({ jsonrpc: '2.0', id: null, code });
  expectToolServerHeaders(answer.headers, `${status} ${code}`);
  return body.error.message;
}

/** `text` padded with trailing white space (still the same JSON) to exactly `bytes` bytes. */
const padded = (text: string, bytes: number) => Buffer.concat([Buffer.from(text), Buffer.alloc(bytes - Buffer.byteLength(text), ' ')]);

describe('the tool server transport', () => {
  it('serves the SDK client: version <schemaVersion>.0.0, every answer one JSON body with private, no-store, no session id', async () => {
    const session = await connect(base());
    try {
      expect(session.client.getServerVersion()).toMatchObject({ name: 'pkgcat', version: TOOL_SERVER_VERSION });
      await session.client.listTools();
      await session.call('list_catalog_commits', { limit: 1 });
      await session.client.ping();
    } finally {
      await session.close();
    }
    // initialize, notifications/initialized, tools/list, tools/call, ping; the client may also try a GET event stream (405).
    const posts = session.answers.filter((answer) => answer.method === 'POST');
    expect(posts.map((answer) => answer.status)).toEqual([200, 202, 200, 200, 200]);
    for (const answer of session.answers) expectToolServerHeaders(answer.headers, `${answer.method} ${answer.status}`);
    for (const answer of posts.filter((one) => one.status === 200)) expect(answer.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
  });

  it.each([
    ['both media types', 'application/json, text/event-stream'],
    ['an event stream first, with quality values', 'text/event-stream;q=1, application/json;q=0.5'],
    ['only JSON (the SDK alone answers 406)', 'application/json'],
    ['only an event stream', 'text/event-stream'],
    ['any type', '*/*'],
  ])('answers one JSON body when Accept offers %s', async (_what, accept) => {
    const answer = await post(base(), PING, { accept });
    expect({ status: answer.status, type: answer.headers.get('content-type'), body: answer.json() }).toEqual({
      status: 200,
      type: JSON_CONTENT_TYPE,
      body: { jsonrpc: '2.0', id: 1, result: {} },
    });
    expectToolServerHeaders(answer.headers, accept);
  });

  it('answers a request without Accept, and 406 (as JSON) to one that allows no JSON', async () => {
    const response = await fetch(`${base()}${MCP_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: '' }, body: PING });
    expect({ status: response.status, body: await response.json() }).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 1, result: {} } });
    expectRpcError(await post(base(), PING, { accept: 'text/html' }), 406, -32000);
  });

  it.each(['GET', 'DELETE', 'PUT', 'PATCH', 'OPTIONS'])('answers %s with 405, Allow: POST, a JSON-RPC error', async (method) => {
    const answer = await post(base(), PING, { accept: 'application/json, text/event-stream' }, method);
    expect(answer.headers.get('allow')).toBe('POST');
    expect(expectRpcError(answer, 405, -32000)).toMatch(/POST only/);
  });

  it('answers HEAD with 405 and no body', async () => {
    const answer = await post(base(), '', {}, 'HEAD');
    expect({ status: answer.status, allow: answer.headers.get('allow'), text: answer.text }).toEqual({ status: 405, allow: 'POST', text: '' });
    expectToolServerHeaders(answer.headers, 'HEAD');
  });

  it(`takes a body of exactly ${TOOL_BODY_LIMIT_BYTES} bytes and refuses one more with 413, before parsing it`, async () => {
    const taken = await post(base(), padded(PING, TOOL_BODY_LIMIT_BYTES));
    expect({ status: taken.status, body: taken.json() }).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 1, result: {} } });
    expect(expectRpcError(await post(base(), padded(PING, TOOL_BODY_LIMIT_BYTES + 1)), 413, -32000)).toMatch(/262144 bytes/);
    // Not JSON at all: the size is refused first, the body never parsed.
    expectRpcError(await post(base(), Buffer.alloc(TOOL_BODY_LIMIT_BYTES + 1, '{')), 413, -32000);
  });

  it('counts the bytes of a chunked body (no Content-Length) as they arrive', async () => {
    const taken = await postChunked(base(), padded(PING, TOOL_BODY_LIMIT_BYTES));
    expect({ status: taken.status, body: JSON.parse(taken.text) }).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 1, result: {} } });
    const refused = await postChunked(base(), padded(PING, TOOL_BODY_LIMIT_BYTES + 1));
    expect({ status: refused.status, type: refused.headers['content-type'], cache: refused.headers['cache-control'], code: JSON.parse(refused.text).error.code }).toEqual({
      status: 413,
      type: JSON_CONTENT_TYPE,
      cache: CACHE_CONTROL.pinned,
      code: -32000,
    });
    // Far over the limit: refused without reading it all, and the server answers the next request.
    expect((await postChunked(base(), padded(PING, 8 * TOOL_BODY_LIMIT_BYTES))).status).toBe(413);
    expect((await post(base(), PING)).status).toBe(200);
  });

  it('answers 415 (as JSON) to a body that is not sent as JSON', async () => {
    expectRpcError(await post(base(), PING, { 'content-type': 'text/plain' }), 415, -32000);
  });

  it('answers invalid JSON with the JSON-RPC parse error, and JSON that is no JSON-RPC message with invalid request', async () => {
    expect(expectRpcError(await post(base(), '{"jsonrpc": "2.0", "id": 1, "method": '), 400, -32700)).toMatch(/^Parse error/);
    expectRpcError(await post(base(), ''), 400, -32700);
    expectRpcError(await post(base(), '{"hello": "world"}'), 400, -32600);
    expectRpcError(await post(base(), '42'), 400, -32600);
    expectRpcError(await post(base(), '[]'), 400, -32600);
  });

  it('answers a batch with one response per request, and a method it does not know with -32601', async () => {
    const answer = await post(base(), JSON.stringify([rpc(1, 'ping'), { jsonrpc: '2.0', method: 'notifications/initialized' }, rpc('two', 'tools/list')]));
    expect({ status: answer.status, type: answer.headers.get('content-type') }).toEqual({ status: 200, type: JSON_CONTENT_TYPE });
    expectToolServerHeaders(answer.headers, 'batch');
    const responses = answer.json<{ id: unknown; result?: { tools?: unknown[] } }[]>();
    expect(responses.map((response) => response.id)).toEqual([1, 'two']);
    expect(responses[1].result?.tools?.length).toBe(8);

    const unknown = await post(base(), JSON.stringify(rpc(7, 'resources/list')));
    expect({ status: unknown.status, body: unknown.json() }).toMatchObject({ status: 200, body: { jsonrpc: '2.0', id: 7, error: { code: -32601 } } });
  });

  it('answers a tools/call whose arguments are no object with invalid params (-32602), as any other schema break', async () => {
    for (const params of [{ name: 'get_package', arguments: 'zlib' }, { arguments: { name: 'zlib' } }, { name: 42 }]) {
      const answer = await post(base(), JSON.stringify(rpc(3, 'tools/call', params as never)));
      expect({ status: answer.status, body: answer.json() }).toMatchObject({ status: 200, body: { jsonrpc: '2.0', id: 3, error: { code: -32602 } } });
    }
  });

  it('answers notifications alone (one, or a batch of them) with 202 and no body', async () => {
    for (const body of [{ jsonrpc: '2.0', method: 'notifications/initialized' }, [{ jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }]]) {
      const answer = await post(base(), JSON.stringify(body));
      expect({ status: answer.status, text: answer.text, type: answer.headers.get('content-type') }).toEqual({ status: 202, text: '', type: null });
      expectToolServerHeaders(answer.headers, 'notification');
    }
  });

  it('never keeps a session: an Mcp-Session-Id sent is ignored, each request stands alone', async () => {
    const answer = await post(base(), JSON.stringify(rpc(1, 'tools/list')), { 'mcp-session-id': 'made-up' });
    expect(answer.status).toBe(200);
    expectToolServerHeaders(answer.headers, 'with a session id');
  });
});
