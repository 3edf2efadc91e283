/**
 * `POST /api/mcp`: the tool server's HTTP side (SPEC.md "Tool server", transport rules 1 to 5).
 * Stateless streamable HTTP: every request gets a fresh server of the MCP SDK (v2,
 * `@modelcontextprotocol/server`), no session id is ever issued, and every answer is one
 * `application/json` body, never an event stream, whatever `Accept` offers. Two revisions of
 * the protocol arrive here, told apart by the SDK's own classification (`isLegacyRequest`):
 * - 2026-07-28 (a request carrying the per-request `_meta` envelope: `server/discover`, no
 *   `initialize`): the SDK's handler (`createMcpHandler`), which answers with one JSON body;
 * - 2025-06-18 and 2025-11-25 (`initialize`, then calls): the SDK's stateless streamable HTTP
 *   transport in JSON response mode (the SDK's own stateless fallback would answer with event
 *   streams).
 * Both are served by the same server factory, so both eras get the same tools and results.
 *
 * Before the SDK sees a request, this module settles what the SDK alone would answer otherwise:
 * - any method but POST: 405, `Allow: POST` (the SDK would open an event stream on GET, end a
 *   session on DELETE);
 * - a `Host`, or an `Origin` when there is one, whose hostname is not on the allow-list
 *   (allowed-hosts.ts: DNS rebinding): 403, before the body is read;
 * - `Content-Type` other than JSON: 415, before the body is read;
 * - `Accept`: a client that accepts JSON but not `text/event-stream` (or sends no `Accept`) is
 *   answered like any other (the SDK alone answers 406): the SDK is shown an `Accept` offering
 *   both, since the answer is JSON anyway;
 * - the body is read here, counting bytes as they arrive (chunked bodies too), and a body over
 *   256 KiB is refused with 413 before any of it is parsed (KB read as KiB: docs/decisions.md);
 * - a body that is not JSON: the JSON-RPC parse error (-32700); JSON that is no JSON-RPC message,
 *   or an empty batch: the JSON-RPC invalid request (-32600);
 * - `subscriptions/listen` (2026-07-28): method not found (-32601, 404, as the SDK answers any
 *   method a server lacks). It is the one request the SDK answers with an event stream, and no
 *   list of this server ever changes while it runs: there is nothing to listen for.
 * Every answer, errors included, is JSON-RPC-shaped JSON with `Cache-Control: private, no-store`;
 * none is HTML, and no client mistake gets a 5xx.
 */
import type { IncomingMessage } from 'node:http';
import type { RequestHandler, Response } from 'express';
import {
  createMcpHandler, isJsonContentType, isLegacyRequest, parseJSONRPCMessage, ProtocolErrorCode,
  validateHostHeader, validateOriginHeader, WebStandardStreamableHTTPServerTransport, type McpServerFactory,
} from '@modelcontextprotocol/server';
import type { SurfaceRow } from '../../src/surfaces/registry.ts';
import type { Catalog } from '../catalog.ts';
import type { Release } from '../release.ts';
import type { RowHandlerOptions } from '../routes.ts';
import { SearchIndexes } from './search-index.ts';
import { createToolServer } from './server.ts';

/** SPEC.md Limits: "tool request body: 256 KB maximum", KB read as 1024 bytes (the larger reading: no client is refused by the ambiguity). */
export const MAX_BODY_BYTES = 256 * 1024;

/** The 2026-07-28 request for change notifications, which the SDK would answer with an event stream. */
const LISTEN = 'subscriptions/listen';

/** JSON-RPC's implementation-defined server error: what the SDK's transport answers its HTTP-level refusals with. */
const TRANSPORT_ERROR = -32000;

/** The JSON-RPC error of a request the server could not take (no request id to answer to). */
function sendRpcError(res: Response, row: SurfaceRow, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  send(res, row, status, JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), headers);
}

function send(res: Response, row: SurfaceRow, status: number, body: string, headers: Record<string, string> = {}): void {
  res.status(status);
  res.setHeader('Cache-Control', row.cacheControl);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  if (body === '') {
    res.setHeader('Content-Length', '0');
    res.end();
    return;
  }
  const bytes = Buffer.from(body, 'utf8');
  res.setHeader('Content-Type', row.contentType);
  res.setHeader('Content-Length', String(bytes.length));
  res.end(bytes);
}

/** Whether `accept` lets the answer be JSON: absent, or naming JSON, a wildcard, or an event stream (MCP clients offer both). */
export function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept
    .split(',')
    .map((range) => range.split(';')[0].trim().toLowerCase())
    .some((type) => type === 'application/json' || type === 'application/*' || type === '*/*' || type === 'text/event-stream');
}

/** The body, or null once more than `limit` bytes have arrived (declared or counted); the rest is left to drain. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  if (Number(req.headers['content-length']) > limit) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      // Stop keeping it; Node discards the rest as it arrives and the connection stays usable.
      stop();
      req.resume();
      resolve(null);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** The parsed body, or why it is no JSON-RPC message: SPEC.md rule "never HTML, never a 5xx". */
function parseMessages(bytes: Buffer): { body: unknown } | { code: number; message: string } {
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch {
    return { code: ProtocolErrorCode.ParseError, message: 'Parse error: the request body is not valid JSON.' };
  }
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0) return { code: ProtocolErrorCode.InvalidRequest, message: 'Invalid Request: an empty batch.' };
  if (!messages.every(isJsonRpcMessage)) {
    return { code: ProtocolErrorCode.InvalidRequest, message: 'Invalid Request: the body is not a JSON-RPC 2.0 message or a batch of them.' };
  }
  return { body };
}

function isJsonRpcMessage(value: unknown): boolean {
  try {
    parseJSONRPCMessage(value);
    return true;
  } catch {
    return false;
  }
}

/** Headers the SDK reads: the media type, and the MCP ones (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`). */
const FORWARDED_HEADER = /^(?:content-type|mcp-.*)$/;

/** The web Request the SDK reads (the body is handed over parsed): its headers, with an `Accept` it is content with. */
function sdkRequest(req: IncomingMessage): Request {
  const headers = new Headers({ accept: 'application/json, text/event-stream' });
  for (const [name, value] of Object.entries(req.headers)) {
    if (FORWARDED_HEADER.test(name) && typeof value === 'string') headers.set(name, value);
  }
  return new Request(`http://pkgcat.invalid${req.url ?? '/'}`, { method: 'POST', headers });
}

/** Serves one 2025-era request (`initialize`, or a call after it) statelessly, as one JSON body. */
async function serveLegacy(factory: () => ReturnType<McpServerFactory>, request: Request, body: unknown): Promise<globalThis.Response> {
  const server = await factory();
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  return transport.handleRequest(request, { parsedBody: body });
}

/** Why a request's `Host` or `Origin` is refused (allowed-hosts.ts), or null when both may be served. */
export function hostRefusal(host: string | undefined, origin: string | undefined, allowed: readonly string[]): string | null {
  const list = [...allowed];
  const hostCheck = validateHostHeader(host, list);
  if (!hostCheck.ok) return `Forbidden: ${hostCheck.message}. This tool server answers the hosts ${allowed.join(', ')} (serve --mcp-allowed-hosts adds others).`;
  const originCheck = validateOriginHeader(origin, list);
  if (!originCheck.ok) return `Forbidden: ${originCheck.message}. This tool server answers pages of the hosts ${allowed.join(', ')} (serve --mcp-allowed-hosts adds others).`;
  return null;
}

/** The Express handler of the tool server's registry row, for every method on its path. */
export function toolServerHandler(catalog: Catalog, row: SurfaceRow, { toolServerHosts }: RowHandlerOptions): RequestHandler {
  const searchIndexes = new SearchIndexes(catalog);
  // One server per HTTP request, and one release for everything its calls read (DECISIONS.md 12).
  const factory = () => {
    let release: Promise<Release | null> | null = null;
    return createToolServer({ catalog, release: () => (release ??= catalog.releases.current()), searchIndexes }, catalog.log);
  };
  // `auto` answers one JSON body unless a handler sends a message before its result, which no
  // tool does (`json` would say so on stderr at every start).
  const modern = createMcpHandler(factory, { legacy: 'reject', responseMode: 'auto', maxRequestBodySize: MAX_BODY_BYTES });
  return async (req, res) => {
    if (req.method !== 'POST') {
      return sendRpcError(res, row, 405, TRANSPORT_ERROR, `Method not allowed: ${row.path} answers POST only (stateless JSON-RPC, no event stream).`, { Allow: 'POST' });
    }
    const refusal = hostRefusal(req.get('host'), req.get('origin'), toolServerHosts);
    if (refusal) return sendRpcError(res, row, 403, TRANSPORT_ERROR, refusal);
    if (!acceptsJson(req.get('accept'))) {
      return sendRpcError(res, row, 406, TRANSPORT_ERROR, 'Not Acceptable: every answer of this server is application/json; send an Accept header that allows it.');
    }
    if (!isJsonContentType(req.get('content-type'))) {
      return sendRpcError(res, row, 415, TRANSPORT_ERROR, 'Unsupported Media Type: send the JSON-RPC message with Content-Type: application/json.');
    }
    const bytes = await readBody(req, MAX_BODY_BYTES).catch(() => undefined);
    // The client went away mid-body: nobody to answer.
    if (bytes === undefined) return void res.destroy();
    if (bytes === null) {
      return sendRpcError(res, row, 413, TRANSPORT_ERROR, `Payload Too Large: a request body must not exceed ${MAX_BODY_BYTES} bytes (256 KiB).`);
    }
    const parsed = parseMessages(bytes);
    if ('code' in parsed) return sendRpcError(res, row, 400, parsed.code, parsed.message);
    const { method, id = null } = parsed.body as { method?: unknown; id?: unknown };
    if (method === LISTEN) {
      const message = `Method not found: ${LISTEN}. This server's tools never change while it runs: there is nothing to listen for.`;
      return send(res, row, 404, JSON.stringify({ jsonrpc: '2.0', id, error: { code: ProtocolErrorCode.MethodNotFound, message } }));
    }

    const request = sdkRequest(req);
    const response = (await isLegacyRequest(request, parsed.body))
      ? await serveLegacy(factory, request, parsed.body)
      : await modern.fetch(request, { parsedBody: parsed.body });
    // The SDK's own headers (its Content-Type without charset) give way to the row's.
    send(res, row, response.status, await response.text());
    // Not closed: in JSON response mode the answer comes once every call of the request has
    // finished, so server and transport hold nothing (no stream, no timer) and are simply dropped.
    // Closing would only build an Error for handlers that no longer exist, a tenth of a call's time.
  };
}
