/**
 * What a tool is (one per file under tools/), what it answers with, and what it reads. A tool
 * takes arguments already checked against its input schema and answers a CallToolResult: a
 * success carries `structuredContent` and one text block with the same JSON (SPEC.md "Tool
 * server" 6); a failure a user can act on is thrown as a ToolFailure, which the server turns into
 * an `isError` result (never a protocol error: SPEC.md Errors).
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { serialize } from '../../src/serialize.ts';
import type { Catalog } from '../catalog.ts';
import type { Release } from '../release.ts';
import type { SearchIndexes } from './search-index.ts';

/** What every tool of one HTTP request reads. */
export interface ToolContext {
  readonly catalog: Catalog;
  /** The release this HTTP request reads, resolved once for all its calls (DECISIONS.md 12). */
  readonly release: () => Promise<Release | null>;
  readonly searchIndexes: SearchIndexes;
}

export interface Tool<Input extends z.ZodObject = z.ZodObject> {
  readonly name: string;
  readonly title: string;
  /** For the agent: what it returns, when to call it, its limits, and what to call instead. */
  readonly description: string;
  /** Strict: an argument it does not name breaks the schema. */
  readonly input: Input;
  /** The wire schema of a success's `structuredContent` (src/schemas/wire.ts); absent for external formats. */
  readonly output?: z.ZodObject;
  call(args: z.output<Input>, context: ToolContext): Promise<CallToolResult>;
}

/** A tool, with its argument types checked against its input schema. */
export function defineTool<Input extends z.ZodObject>(tool: Tool<Input>): Tool {
  return tool as unknown as Tool;
}

/** A failure the agent can act on: the message says what was wrong and what to call instead. */
export class ToolFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolFailure';
  }
}

/** A success whose JSON text is given as is, with the same value as structuredContent. */
export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: JSON.parse(text) as Record<string, unknown> };
}

/**
 * Stored bodies already decoded, by their bytes: the catalog keeps a write-once file's bytes as
 * one Buffer while it is cached, so its decoding is kept exactly as long (and dropped with it).
 */
const decoded = new WeakMap<Buffer, CallToolResult>();

/** A success whose body is stored bytes (a file or object of the output), byte for byte. */
export function bytesResult(bytes: Buffer): CallToolResult {
  let result = decoded.get(bytes);
  if (!result) {
    result = textResult(bytes.toString('utf8'));
    decoded.set(bytes, result);
  }
  return { ...result };
}

/** A success composed here: serialized by the one serializer. */
export function valueResult(value: object): CallToolResult {
  return { content: [{ type: 'text', text: serialize(value) }], structuredContent: value as Record<string, unknown> };
}

export function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
