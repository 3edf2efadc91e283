/**
 * DNS rebinding (MCP, Streamable HTTP, security; docs/mcp.md "Allowed hosts"): the tool server
 * answers a `POST /api/mcp` only when its `Host`, and its `Origin` when there is one, name the
 * site's host, a local name while the gateway listens on a loopback address, or a host the
 * operator added; anything else is 403 with a JSON-RPC error, before any tool runs. Real HTTP,
 * with the headers a browser on a rebound name would send.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixture, type Fixture } from '../gateway/fixtures.ts';
import { startGateway, type Gateway } from '../gateway/harness.ts';
import { CACHE_CONTROL, JSON_CONTENT_TYPE } from '../helpers/spec.ts';
import { MCP_ACCEPT, MCP_PATH, rpc } from './client.ts';

const PING = JSON.stringify(rpc(1, 'ping'));

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: unknown;
}

/** A ping to the tool server at `base` with these `Host` and `Origin` headers (node:http: fetch cannot set Host). */
function ping(base: string, host: string, origin?: string, method = 'POST'): Promise<Answer> {
  const headers: Record<string, string> = { host, 'content-type': 'application/json', accept: MCP_ACCEPT };
  if (origin !== undefined) headers.origin = origin;
  return new Promise((resolve, reject) => {
    const sent = request(`${base}${MCP_PATH}`, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text === '' ? null : JSON.parse(text) });
      });
    });
    sent.on('error', reject);
    sent.end(method === 'POST' ? PING : undefined);
  });
}

const PONG = { jsonrpc: '2.0', id: 1, result: {} };

/** A refusal: 403, JSON-RPC error -32000 with no id, the tool server's headers, and a message naming what was refused. */
function expectRefused(answer: Answer, named: string): void {
  expect({ status: answer.status, type: answer.headers['content-type'], cache: answer.headers['cache-control'] }).toEqual({
    status: 403,
    type: JSON_CONTENT_TYPE,
    cache: CACHE_CONTROL.pinned,
  });
  const body = answer.body as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
  expect({ jsonrpc: body.jsonrpc, id: body.id, code: body.error.code }).toEqual({ jsonrpc: '2.0', id: null, code: -32000 });
  expect(body.error.message).toContain(named);
  expect(body.error.message).toContain('--mcp-allowed-hosts');
}

let fx: Fixture;
const gateways: Gateway[] = [];

beforeAll(async () => {
  fx = await buildFixture();
}, 120_000);

afterAll(async () => {
  for (const gw of gateways) await gw.close();
  await fx?.cleanup();
});

async function gateway(options: Parameters<typeof startGateway>[2] = {}): Promise<{ url: string; port: string }> {
  const gw = await startGateway(fx.out, fx.dir, options);
  gateways.push(gw);
  return { url: gw.url.replace('0.0.0.0', '127.0.0.1'), port: new URL(gw.url).port };
}

describe('the tool server on a loopback address, site URL http://127.0.0.1:<port> (the default)', () => {
  it('answers the local names, with or without a port, and pages served from them', async () => {
    const { url, port } = await gateway();
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'LOCALHOST', 'localhost:80']) {
      expect((await ping(url, host)).body, host).toEqual(PONG);
    }
    for (const origin of [`http://localhost:${port}`, 'http://127.0.0.1:5173', 'https://localhost', 'http://[::1]:3000']) {
      expect((await ping(url, `localhost:${port}`, origin)).body, origin).toEqual(PONG);
    }
  });

  it('refuses a rebound name: Host evil.example, with or without Origin, and any Origin but a local one', async () => {
    const { url, port } = await gateway();
    expectRefused(await ping(url, 'evil.example', 'http://evil.example'), 'evil.example');
    expectRefused(await ping(url, `evil.example:${port}`), 'evil.example');
    expectRefused(await ping(url, `127.0.0.1:${port}`, 'http://evil.example'), 'evil.example');
    expectRefused(await ping(url, `127.0.0.1:${port}`, 'http://localhost.evil.example'), 'localhost.evil.example');
    // The opaque origin of a sandboxed frame or a file: no page of an allowed host.
    expectRefused(await ping(url, `127.0.0.1:${port}`, 'null'), 'null');
  });

  it('still answers other methods with 405, whatever the host: SPEC.md\'s answer to GET and DELETE comes first', async () => {
    const { url } = await gateway();
    const answer = await ping(url, 'evil.example', undefined, 'GET');
    expect({ status: answer.status, allow: answer.headers.allow }).toEqual({ status: 405, allow: 'POST' });
  });
});

describe('the tool server with a public site URL', () => {
  it('answers the site URL\'s host, the local names while listening on loopback, and the hosts added', async () => {
    const { url } = await gateway({ siteUrl: 'https://Pkgs.Example.com', mcpAllowedHosts: ['mcp.internal', '[fd00::1]'] });
    for (const host of ['pkgs.example.com', 'pkgs.example.com:443', 'localhost', 'mcp.internal:8080', '[fd00::1]:8080']) {
      expect((await ping(url, host, 'https://pkgs.example.com')).body, host).toEqual(PONG);
    }
    expect((await ping(url, 'pkgs.example.com', 'http://mcp.internal:3000')).body).toEqual(PONG);
    expectRefused(await ping(url, 'pkgs.example.org', 'https://pkgs.example.org'), 'pkgs.example.org');
    expectRefused(await ping(url, 'pkgs.example.com', 'https://evil.example'), 'evil.example');
  });

  it('refuses the local names when listening on every address: only the site\'s host and those added', async () => {
    const { url, port } = await gateway({ host: '0.0.0.0', siteUrl: 'https://pkgs.example.com' });
    expect((await ping(url, 'pkgs.example.com')).body).toEqual(PONG);
    expectRefused(await ping(url, `localhost:${port}`), 'localhost');
    expectRefused(await ping(url, `127.0.0.1:${port}`), '127.0.0.1');
  });
});
