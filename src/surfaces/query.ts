/**
 * Query parameters, resolved by the rules of their registry row: a value the row does not
 * understand falls back (clamped, the default, or cut to length), never an error (SPEC.md Limits, Endpoints).
 */
import { clampLimit } from '../compose/commits.ts';
import type { QueryParameter, SurfaceRow } from './registry.ts';

export type QueryValues = Readonly<Record<string, string | number>>;

/** The first value of a raw query parameter (`?a=1&a=2` gives `1`). */
function first(raw: unknown): unknown {
  return Array.isArray(raw) ? raw[0] : raw;
}

/**
 * Characters that are no text: controls (tabs and newlines too), lone surrogates, and the two
 * noncharacters XML 1.0 forbids. A label with one could not be written into an SVG.
 */
const NOT_TEXT = /[\p{Cc}\p{Cs}\uFFFE\uFFFF]/gu;

/** Free text: control characters dropped, trimmed, cut to `maxLength` characters (code points, so no pair is split). */
export function resolveText(value: unknown, maxLength: number): string {
  if (typeof value !== 'string') return '';
  return Array.from(value.replace(NOT_TEXT, '').trim()).slice(0, maxLength).join('').trim();
}

function resolveOne(parameter: QueryParameter, value: unknown): string | number {
  switch (parameter.kind) {
    case 'integer':
      return clampLimit(value, parameter);
    case 'enum':
      return typeof value === 'string' && parameter.values.includes(value) ? value : parameter.default;
    case 'text':
      return resolveText(value, parameter.maxLength);
  }
}

/** Every query parameter of `row`, from the raw query (Express's `req.query`, or a tool's arguments). */
export function resolveQuery(row: SurfaceRow, raw: Readonly<Record<string, unknown>>): QueryValues {
  const values: Record<string, string | number> = {};
  for (const parameter of row.query ?? []) values[parameter.name] = resolveOne(parameter, first(raw[parameter.name]));
  return values;
}
