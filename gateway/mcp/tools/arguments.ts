/**
 * Arguments several tools share (SPEC.md "Tool server", Tools), and the range rule of numeric
 * ones: a value of the wrong type breaks the input schema (a protocol error); a number out of its
 * range is the tool's to refuse, with an `isError` result that states the range.
 */
import { z } from 'zod';
import { ToolFailure } from '../tool.ts';

export const nameArgument = z
  .string()
  .min(1)
  .describe('A package name as the catalog spells it, in any letter case (e.g. "zlib", "llama.cpp").');

export const shaArgument = z
  .string()
  .optional()
  .describe(
    'Leave it out: the tool answers for the latest commit of main. Any commit given here (7 to 40 hex characters) is answered with an error ' +
      'giving the HTTP URL of that commit\'s body, which needs a signed-in session this tool server cannot present.',
  );

/** An integer within `bounds`, for a `limit` or `offset`; a ToolFailure stating the range otherwise. */
export function inRange(argument: string, value: number, bounds: { readonly min: number; readonly max?: number; readonly default?: number }): number {
  const max = bounds.max ?? Infinity;
  if (value >= bounds.min && value <= max) return value;
  const range = Number.isFinite(max) ? `from ${bounds.min} to ${max}` : `${bounds.min} or more`;
  const fallback = bounds.default === undefined ? '' : ` (default ${bounds.default})`;
  throw new ToolFailure(`\`${argument}\` must be an integer ${range}${fallback}; got ${value}.`);
}
