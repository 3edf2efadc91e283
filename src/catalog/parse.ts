/**
 * Validation of the catalog's files (CATALOG-FORMAT.md), through the schemas of
 * src/schemas/catalog.ts. Pure: bytes in, a value or the reason it is unusable out. A reason
 * names every bad field of the file at once. The build turns reasons into diagnostics and leaves
 * the record out.
 */
import type { z } from 'zod';
import type { Manifest, OsvRecord, Scorecard } from '../compose/types.ts';
import {
  AdvisorySchema, ManifestSchema, ScorecardSchema, WEB_URL_RULE, WEB_URL_SCHEMES, describeIssues, fieldIssues, isUrlWithScheme, type FieldIssue,
} from '../schemas/catalog.ts';
import { quoted } from '../quote.ts';
import { MAX_DEPTH, MAX_FILE_BYTES, lengthIssues, nestsDeeperThan } from './limits.ts';

export type Parsed<T> = { ok: true; value: T; warnings: string[] } | { ok: false; reason: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

type Json = { ok: true; json: Record<string, unknown> } | { ok: false; reason: string };

const MIB = 1024 * 1024;

/**
 * The file's JSON object, or why it has none (`manifest.json is not valid JSON (...)`, or a
 * limit of src/catalog/limits.ts it breaks: each is checked before anything walks the value).
 */
function parseJsonObject(bytes: Buffer, file: string): Json {
  if (bytes.length > MAX_FILE_BYTES) return { ok: false, reason: `${file} is larger than ${MAX_FILE_BYTES / MIB} MiB (${bytes.length} bytes)` };
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, reason: `${file} is not valid UTF-8` };
  }
  if (nestsDeeperThan(text, MAX_DEPTH)) return { ok: false, reason: `${file} nests objects and arrays more than ${MAX_DEPTH} levels deep` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `${file} is not valid JSON (${(error as Error).message})` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, reason: `${file} is not a JSON object` };
  // Strings and lists over their limits (MAX_STRING_LENGTH, MAX_LIST_LENGTH) are named as bad fields.
  const tooLong = lengthIssues(value);
  if (tooLong.length > 0) return { ok: false, reason: describeIssues(file, tooLong) };
  return { ok: true, json: value as Record<string, unknown> };
}

/**
 * Runs a schema over a file's object and lists every problem. `extra` is a problem the schema
 * cannot see (a name that differs from where the file lives); it is listed after the problems of
 * its field, which is the schema's first field.
 */
function check<S extends z.ZodType>(
  schema: S,
  json: Record<string, unknown>,
  extra?: FieldIssue,
): { ok: true; value: z.output<S> } | { ok: false; issues: FieldIssue[] } {
  const result = schema.safeParse(json);
  const issues = result.success ? [] : fieldIssues(result.error);
  if (extra) issues.splice(issues.filter((issue) => issue.path === extra.path).length, 0, extra);
  return result.success && issues.length === 0 ? { ok: true, value: result.data } : { ok: false, issues };
}

const isWebUrl = (value: string) => isUrlWithScheme(value, WEB_URL_SCHEMES);

/** The warning for a link that is not a web URL: `"homepage" is not an http(s) URL: "javascript:..."`. */
const notWebUrl = (file: string, path: string, value: string) => `${file}: "${path}" is not ${WEB_URL_RULE}: ${quoted(value)}`;

/** Validates `packages/<dirName>/manifest.json`. */
export function parseManifest(bytes: Buffer, dirName: string): Parsed<Manifest> {
  const file = parseJsonObject(bytes, 'manifest.json');
  if (!file.ok) return file;
  const name = file.json.name;
  const misplaced = typeof name === 'string' && name !== dirName;
  const result = check(ManifestSchema, file.json, misplaced ? { path: 'name', message: `must equal its directory name ${quoted(dirName)}, not ${quoted(name)}` } : undefined);
  if (!result.ok) return { ok: false, reason: describeIssues('manifest.json', result.issues) };
  const manifest = { ...result.value };
  const warnings: string[] = [];
  // Pages link these: a `javascript:` homepage must never reach one.
  for (const field of ['homepage', 'repository'] as const) {
    const value = manifest[field];
    if (value === undefined || isWebUrl(value)) continue;
    warnings.push(`${notWebUrl('manifest.json', field, value)}; the field is left out`);
    delete manifest[field];
  }
  return { ok: true, value: manifest, warnings };
}

/** Validates `advisories/<fileId>.json` as an OSV record; the record is kept as written. */
export function parseAdvisory(bytes: Buffer, fileId: string): Parsed<OsvRecord> {
  const file = parseJsonObject(bytes, 'advisory');
  if (!file.ok) return file;
  const id = file.json.id;
  const misplaced = typeof id === 'string' && id !== '' && id !== fileId;
  const result = check(AdvisorySchema, file.json, misplaced ? { path: 'id', message: `must equal its file name without ".json" (${quoted(fileId)}), not ${quoted(id)}` } : undefined);
  if (!result.ok) return { ok: false, reason: describeIssues('advisory', result.issues) };
  // Kept as written (composition reads the OSV fields it uses defensively), but for its links.
  const { record, warnings } = withWebReferences(file.json);
  return { ok: true, value: record as OsvRecord, warnings };
}

/**
 * The record without the `references[]` entries whose `url` is not a web URL, one warning each:
 * a reference is its link, so the entry goes with it. Entries without a `url` stay as written.
 */
function withWebReferences(record: Record<string, unknown>): { record: Record<string, unknown>; warnings: string[] } {
  const references = record.references;
  if (!Array.isArray(references)) return { record, warnings: [] };
  const warnings: string[] = [];
  const kept = references.filter((reference: unknown, index) => {
    const url = (reference as { url?: unknown } | null)?.url;
    if (url === undefined || (typeof url === 'string' && isWebUrl(url))) return true;
    const path = `references[${index}].url`;
    warnings.push(`${typeof url === 'string' ? notWebUrl('advisory', path, url) : `advisory: "${path}" must be a string`}; the reference is left out`);
    return false;
  });
  return warnings.length === 0 ? { record, warnings } : { record: { ...record, references: kept }, warnings };
}

/** Validates `packages/<name>/scorecard.json`; the scorecard is kept as written. */
export function parseScorecard(bytes: Buffer): Parsed<Scorecard> {
  const file = parseJsonObject(bytes, 'scorecard.json');
  if (!file.ok) return file;
  const result = check(ScorecardSchema, file.json);
  if (!result.ok) return { ok: false, reason: describeIssues('scorecard.json', result.issues) };
  return { ok: true, value: file.json as Scorecard, warnings: [] };
}
