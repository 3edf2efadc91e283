/**
 * Query parameters, resolved by the rules of their registry row: a value the row does not
 * understand falls back (clamped, or the default), never an error (SPEC.md Limits, Endpoints).
 */
import { clampLimit } from '../compose/commits.ts';
import type { SurfaceRow } from './registry.ts';

export type QueryValues = Readonly<Record<string, string | number>>;

/** The first value of a raw query parameter (`?a=1&a=2` gives `1`). */
function first(raw: unknown): unknown {
  return Array.isArray(raw) ? raw[0] : raw;
}

/** Every query parameter of `row`, from the raw query (Express's `req.query`, or a tool's arguments). */
export function resolveQuery(row: SurfaceRow, raw: Readonly<Record<string, unknown>>): QueryValues {
  const values: Record<string, string | number> = {};
  for (const parameter of row.query ?? []) {
    const value = first(raw[parameter.name]);
    if (parameter.kind === 'integer') values[parameter.name] = clampLimit(value, parameter);
    else values[parameter.name] = typeof value === 'string' && parameter.values.includes(value) ? value : parameter.default;
  }
  return values;
}
