/**
 * Validation of the catalog's files (CATALOG-FORMAT.md). Pure: bytes in, a value or the reason
 * it is unusable out. The build turns reasons into diagnostics and leaves the record out.
 */
import { isPackageName, nameKey } from '../grammar.ts';
import type { Manifest, OsvRecord, Scorecard } from '../compose/types.ts';

export type Parsed<T> = { ok: true; value: T; warnings: string[] } | { ok: false; reason: string };

const SHA256 = /^[0-9a-f]{64}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

function parseJsonObject(bytes: Buffer): Record<string, unknown> | string {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return 'is not valid UTF-8';
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `is not valid JSON (${(error as Error).message})`;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'is not a JSON object';
  return value as Record<string, unknown>;
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isStringArray = (value: unknown): value is string[] => Array.isArray(value) && value.every(isString);

function isAbsoluteUrl(value: string): boolean {
  try {
    return Boolean(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** Validates `packages/<dirName>/manifest.json`. */
export function parseManifest(bytes: Buffer, dirName: string): Parsed<Manifest> {
  const json = parseJsonObject(bytes);
  if (typeof json === 'string') return { ok: false, reason: `manifest ${json}` };
  const fail = (reason: string): Parsed<Manifest> => ({ ok: false, reason });
  for (const field of ['name', 'version', 'description', 'license'] as const) {
    if (!isString(json[field])) return fail(`manifest field "${field}" is required and must be a string`);
  }
  const name = json.name as string;
  if (!isPackageName(name)) return fail(`manifest name "${name}" does not match ^[A-Za-z0-9][A-Za-z0-9._-]*$`);
  if (name !== dirName) return fail(`manifest name "${name}" does not equal its directory name "${dirName}"`);
  if ((json.version as string).trim() === '') return fail('manifest field "version" is empty');
  if ((json.license as string).trim() === '') return fail('manifest field "license" is empty');
  for (const field of ['homepage', 'repository'] as const) {
    if (json[field] !== undefined && !isString(json[field])) return fail(`manifest field "${field}" must be a string`);
  }
  if (json.categories !== undefined && !isStringArray(json.categories)) return fail('manifest field "categories" must be an array of strings');
  if (json.stars !== undefined && !(Number.isInteger(json.stars) && (json.stars as number) >= 0)) {
    return fail('manifest field "stars" must be an integer >= 0');
  }
  const archive = json.archive as Record<string, unknown> | undefined;
  if (!archive || typeof archive !== 'object' || Array.isArray(archive)) return fail('manifest field "archive" is required and must be an object {url, sha256}');
  if (!isString(archive.url) || archive.url === '') return fail('manifest field "archive.url" is required and must be a string');
  if (!isString(archive.sha256) || !SHA256.test(archive.sha256)) return fail('manifest field "archive.sha256" must be 64 lowercase hex characters');
  const deps = json.dependencies as Record<string, unknown> | undefined;
  if (deps !== undefined && (deps === null || typeof deps !== 'object' || Array.isArray(deps))) {
    return fail('manifest field "dependencies" must be an object {build?, runtime?}');
  }
  const dependencies = { build: [] as string[], runtime: [] as string[] };
  for (const kind of ['build', 'runtime'] as const) {
    const list = deps?.[kind];
    if (list === undefined) continue;
    if (!isStringArray(list)) return fail(`manifest field "dependencies.${kind}" must be an array of package names`);
    const bad = list.find((dep) => !isPackageName(dep));
    if (bad !== undefined) return fail(`dependency "${bad}" in "dependencies.${kind}" is not a valid package name`);
    // Names are case-insensitive: `zlib` and `ZLIB` in one list are one dependency (the first spelling is kept).
    const seen = new Set<string>();
    dependencies[kind] = list.filter((dep) => !seen.has(nameKey(dep)) && Boolean(seen.add(nameKey(dep))));
  }
  const warnings: string[] = [];
  for (const field of ['homepage', 'repository'] as const) {
    const value = json[field] as string | undefined;
    if (value !== undefined && !isAbsoluteUrl(value)) warnings.push(`manifest field "${field}" is not an absolute URL: "${value}"`);
  }
  const manifest: Manifest = {
    name,
    version: json.version as string,
    description: json.description as string,
    license: json.license as string,
    homepage: json.homepage as string | undefined,
    repository: json.repository as string | undefined,
    categories: [...new Set((json.categories as string[] | undefined) ?? [])],
    stars: (json.stars as number | undefined) ?? 0,
    archive: { url: archive.url, sha256: archive.sha256 },
    dependencies,
  };
  return { ok: true, value: manifest, warnings };
}

/** Validates `advisories/<fileId>.json` as an OSV record. */
export function parseAdvisory(bytes: Buffer, fileId: string): Parsed<OsvRecord> {
  const json = parseJsonObject(bytes);
  if (typeof json === 'string') return { ok: false, reason: `advisory ${json}` };
  if (!isString(json.id) || json.id === '') return { ok: false, reason: 'advisory field "id" is required and must be a string' };
  if (json.id !== fileId) return { ok: false, reason: `advisory id "${json.id}" does not match its file name "${fileId}.json"` };
  if (!isString(json.modified)) return { ok: false, reason: 'advisory field "modified" is required and must be a string' };
  if (json.affected !== undefined && !Array.isArray(json.affected)) return { ok: false, reason: 'advisory field "affected" must be an array' };
  if (json.withdrawn !== undefined && !isString(json.withdrawn)) return { ok: false, reason: 'advisory field "withdrawn" must be a timestamp string' };
  return { ok: true, value: json as OsvRecord, warnings: [] };
}

/** Validates `packages/<name>/scorecard.json`. */
export function parseScorecard(bytes: Buffer): Parsed<Scorecard> {
  const json = parseJsonObject(bytes);
  if (typeof json === 'string') return { ok: false, reason: `scorecard ${json}` };
  const score = json.score;
  if (typeof score !== 'number' || !(score === -1 || (score >= 0 && score <= 10))) {
    return { ok: false, reason: 'scorecard field "score" must be a number from 0 to 10, or -1' };
  }
  if (!Array.isArray(json.checks)) return { ok: false, reason: 'scorecard field "checks" must be an array' };
  const badCheck = (json.checks as unknown[]).find(
    (check) => !check || typeof check !== 'object' || !isString((check as Record<string, unknown>).name) || typeof (check as Record<string, unknown>).score !== 'number',
  );
  if (badCheck !== undefined) return { ok: false, reason: 'scorecard checks must each have a string "name" and a numeric "score"' };
  return { ok: true, value: json as Scorecard, warnings: [] };
}
