/**
 * The MCP server of one HTTP request (transport.ts makes a fresh one per request, whatever the
 * protocol revision): tools/list and tools/call over the tools of tools/, through the v2 SDK
 * (`@modelcontextprotocol/server`), which speaks 2026-07-28 (`server/discover`, no handshake) and
 * the 2025 revisions (`initialize`) from the same instance. It is the SDK's low-level `Server`
 * rather than `McpServer`, because `McpServer` answers an unknown tool and arguments that break
 * the input schema with an `isError` result, where this server gives the protocol error (-32602,
 * docs/decisions.md), and because the tools' JSON Schemas are made here from the wire schemas, in
 * draft 2020-12.
 */
import { ProtocolError, ProtocolErrorCode, Server, type CallToolRequest, type CallToolResult, type Tool as ToolDefinition } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { z } from 'zod';
import { SCHEMA_VERSION } from '../../src/schemas/wire.ts';
import { errorResult, ToolFailure, type Tool, type ToolContext } from './tool.ts';
import { TOOLS } from './tools/index.ts';

/** SPEC.md Versioning 3: the tool server reports its version as `<schemaVersion>.0.0`. */
export const TOOL_SERVER_INFO = { name: 'pkgcat', title: 'pkgcat package catalog', version: `${SCHEMA_VERSION}.0.0` } as const;

const INSTRUCTIONS =
  'pkgcat is a read-only catalog of third-party software packages kept in a git repository; every tool answers for the latest ' +
  'commit of its main branch. Start with search_packages (by words, category or advisory severity), then get_package for a ' +
  'full record, get_advisories for security advisories (direct and through dependencies), get_dependencies and ' +
  'get_package_versions. list_catalog_commits gives the newest commits. Errors say what to call instead.';

type JsonSchemaObject = ToolDefinition['inputSchema'];

/** `z.int()`'s safe-integer bounds say nothing to an agent: left out of the JSON Schema. */
function dropSafeIntegerBounds({ jsonSchema }: { jsonSchema: Record<string, unknown> }): void {
  if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
  if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
}

/**
 * A zod object as the JSON Schema (draft 2020-12) of a tool's input or output. A wire schema with
 * an id converts to a `$ref` into `$defs`; MCP wants an object at the root, so the root's
 * definition is moved up and the other definitions stay.
 */
export function toolJsonSchema(schema: z.ZodObject, io: 'input' | 'output'): JsonSchemaObject {
  const { $ref, $defs, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, override: dropSafeIntegerBounds }) as Record<string, unknown> & {
    $ref?: string;
    $defs?: Record<string, Record<string, unknown>>;
  };
  if ($ref === undefined) return { ...rest, ...($defs ? { $defs } : {}) } as JsonSchemaObject;
  const id = $ref.replace('#/$defs/', '');
  const { [id]: root, ...others } = $defs ?? {};
  if (!root || JSON.stringify(others).includes(`"#/$defs/${id}"`)) throw new Error(`${id}: cannot move a recursive root definition up`);
  return { ...rest, ...root, ...(Object.keys(others).length > 0 ? { $defs: others } : {}) } as JsonSchemaObject;
}

function definitionOf(tool: Tool): ToolDefinition {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: toolJsonSchema(tool.input, 'input'),
    ...(tool.output ? { outputSchema: toolJsonSchema(tool.output, 'output') } : {}),
    annotations: { title: tool.title, readOnlyHint: true, openWorldHint: false },
  };
}

/**
 * The validator a Server keeps for elicitation (which this server never asks for), made once: the
 * SDK would otherwise compile a fresh Ajv for every request, a sixth of a call's time.
 */
const SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

/** tools/list's answer, made once. */
const DEFINITIONS: readonly ToolDefinition[] = TOOLS.map(definitionOf);
const BY_NAME: ReadonlyMap<string, Tool> = new Map(TOOLS.map((tool) => [tool.name, tool]));

/** One tools/call: an unknown tool or arguments that break the schema are protocol errors; a ToolFailure is an `isError` result. */
async function callTool({ name, arguments: args }: CallToolRequest['params'], context: ToolContext, log: (line: string) => void): Promise<CallToolResult> {
  const tool = BY_NAME.get(name);
  if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}. The tools are ${TOOLS.map((known) => known.name).join(', ')}.`);
  const parsed = tool.input.safeParse(args ?? {});
  if (!parsed.success) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid arguments for tool ${name}: ${z.prettifyError(parsed.error)}`);
  try {
    return await tool.call(parsed.data, context);
  } catch (error) {
    if (error instanceof ToolFailure) return errorResult(error.message);
    // Arguments only by name: a value may be private.
    log(`tool ${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    throw new ProtocolError(ProtocolErrorCode.InternalError, 'The tool server could not answer this call; the error is in its log.');
  }
}

/**
 * How long a client (or a shared cache) may keep tools/list's answer and `server/discover`'s, on
 * the 2026-07-28 revision (`ttlMs`): the tools change only with a new pkgcat, which a client
 * meets within the hour. Earlier revisions carry no cache fields.
 */
const LIST_CACHE_HINT = { ttlMs: 60 * 60 * 1000, cacheScope: 'public' } as const;

/** callTool, counted in the metrics by tool (an unknown name as `unknown`: the label set stays bounded) and result. */
async function countedCall(params: CallToolRequest['params'], context: ToolContext, log: (line: string) => void): Promise<CallToolResult> {
  const tool = BY_NAME.has(params.name) ? params.name : 'unknown';
  try {
    const result = await callTool(params, context, log);
    context.catalog.metrics.toolCall(tool, result.isError ? 'error' : 'success');
    return result;
  } catch (error) {
    context.catalog.metrics.toolCall(tool, 'protocol_error');
    throw error;
  }
}

export function createToolServer(context: ToolContext, log: (line: string) => void): Server {
  const server = new Server(TOOL_SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: SCHEMA_VALIDATOR,
    cacheHints: { 'tools/list': LIST_CACHE_HINT, 'server/discover': LIST_CACHE_HINT },
  });
  server.setRequestHandler('tools/list', () => ({ tools: [...DEFINITIONS] }));
  server.setRequestHandler('tools/call', (request) => countedCall(request.params, context, log));
  return server;
}
