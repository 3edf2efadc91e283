/**
 * Talking to the tool server as agents do: the MCP SDK's own `Client` over its streamable HTTP
 * transport (every HTTP answer it received is kept, to check headers), and raw JSON-RPC POSTs for
 * the transport rules a client library would never break.
 */
import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from '@modelcontextprotocol/client';

export const MCP_PATH = '/api/mcp';

/** Both media types, as MCP's streamable HTTP asks clients to send. */
export const MCP_ACCEPT = 'application/json, text/event-stream';

export interface HttpAnswer {
  readonly method: string;
  readonly status: number;
  readonly headers: Headers;
}

export interface Connected {
  readonly client: Client;
  /** Every HTTP answer the client's transport received, in order. */
  readonly answers: HttpAnswer[];
  /** tools/call, the result typed as a tool result. */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** An SDK client, initialized against the gateway at `base`. */
export async function connect(base: string): Promise<Connected> {
  const answers: HttpAnswer[] = [];
  const recording: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    answers.push({ method: init?.method ?? 'GET', status: response.status, headers: response.headers });
    return response;
  };
  const client = new Client({ name: 'pkgcat-tests', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}${MCP_PATH}`), { fetch: recording }));
  return {
    client,
    answers,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: () => client.close(),
  };
}

/** The one text block of a tool result. */
export function textOf(result: CallToolResult): string {
  if (result.content.length !== 1 || result.content[0].type !== 'text') throw new Error(`expected one text block, got ${JSON.stringify(result.content)}`);
  return result.content[0].text;
}

export interface RawAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  json<T = unknown>(): T;
}

/** A POST to the tool server with fetch (`Content-Type: application/json` and MCP's Accept unless given). */
export async function post(base: string, body: string | Buffer, headers: Record<string, string> = {}, method = 'POST'): Promise<RawAnswer> {
  const response = await fetch(`${base}${MCP_PATH}`, {
    method,
    headers: { 'content-type': 'application/json', accept: MCP_ACCEPT, ...headers },
    body: method === 'GET' || method === 'HEAD' ? undefined : body,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: <T>() => JSON.parse(text) as T };
}

/** A POST whose body is sent with `Transfer-Encoding: chunked` (no Content-Length), in chunks of `chunk` bytes. */
export function postChunked(base: string, body: Buffer, chunk = 16 * 1024): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${base}${MCP_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: MCP_ACCEPT } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (data: Buffer) => chunks.push(data));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    // The server may answer before it has read everything (a 413): that is the point, not a failure.
    request.on('error', reject);
    for (let at = 0; at < body.length; at += chunk) request.write(body.subarray(at, at + chunk));
    request.end();
  });
}

/** A JSON-RPC request. */
export const rpc = (id: number | string, method: string, params?: unknown) => ({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });

/** A client of the current revision (v2 SDK, `@modelcontextprotocol/client`), pinned to `revision`: `server/discover`, no `initialize`. */
export async function connectModern(base: string, revision = '2026-07-28'): Promise<{ client: ModernClient; answers: HttpAnswer[]; close(): Promise<void> }> {
  const answers: HttpAnswer[] = [];
  const recording: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    answers.push({ method: init?.method ?? 'GET', status: response.status, headers: response.headers });
    return response;
  };
  const client = new ModernClient({ name: 'pkgcat-tests', version: '1.0.0' }, { versionNegotiation: { mode: { pin: revision } } });
  await client.connect(new ModernHttpTransport(new URL(`${base}${MCP_PATH}`), { fetch: recording }));
  return { client, answers, close: () => client.close() };
}
