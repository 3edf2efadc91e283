/** `search_packages`: find packages at the latest commit (SPEC.md "Tool server", DECISIONS.md 9; the rules are in src/compose/search.ts). */
import { z } from 'zod';
import { closestNames, SEARCH_LIMIT, searchPackages } from '../../../src/compose/search.ts';
import { SearchResult, Severity } from '../../../src/schemas/wire.ts';
import { latest } from '../reads.ts';
import { defineTool, ToolFailure, valueResult } from '../tool.ts';
import { inRange } from './arguments.ts';

export default defineTool({
  name: 'search_packages',
  title: 'Search packages',
  description:
    'Find packages in the catalog at its latest commit. Every argument is optional, and those given must all hold. ' +
    '`query`: words matched against package names and descriptions; EVERY word must occur (case-insensitive, anywhere in a word) ' +
    'in the name or the description. `category`: packages with that category (case-insensitive). `severity`: packages with at least ' +
    'one active direct advisory of exactly that severity. Answers `{total, offset, packages}`: `total` counts every match; `packages` ' +
    'holds at most `limit` of them from `offset` on, each with name, version, license, categories, active direct advisories and their ' +
    'highest severity. Order: names equal to a query word first, then names starting with one, then names containing one, then ' +
    'packages matched through their description only; by name within each group, and by name when there is no query. ' +
    `\`limit\` ${SEARCH_LIMIT.min} to ${SEARCH_LIMIT.max} (default ${SEARCH_LIMIT.default}); page on with \`offset\` + \`limit\` while it is below \`total\`. ` +
    'For one package\'s full record call get_package.',
  input: z.strictObject({
    query: z.string().optional().describe('Words that must all occur in the package\'s name or description (case-insensitive).'),
    category: z.string().optional().describe('Only packages with this category (case-insensitive), e.g. "compression".'),
    severity: Severity.optional().describe('Only packages with at least one active direct advisory of exactly this severity.'),
    limit: z.number().int().default(SEARCH_LIMIT.default).describe(`How many packages to return, ${SEARCH_LIMIT.min} to ${SEARCH_LIMIT.max} (default ${SEARCH_LIMIT.default}).`),
    offset: z.number().int().default(0).describe('How many matches to skip, from 0 to `total` (default 0).'),
  }),
  output: SearchResult,
  async call({ query, category, severity, limit, offset }, context) {
    inRange('limit', limit, SEARCH_LIMIT);
    inRange('offset', offset, { min: 0, default: 0 });
    const index = await context.searchIndexes.of(await latest(context));
    if (category !== undefined && !index.categories.has(category.toLowerCase())) {
      const closest = closestNames(index.categories.values(), category);
      throw new ToolFailure(
        `No package has the category ${JSON.stringify(category)} at the latest commit.` +
          (closest.length > 0 ? ` Closest categories: ${closest.join(', ')}.` : '') +
          ' search_packages without `category` shows each package\'s categories.',
      );
    }
    const result = searchPackages(index, { query, category, severity, limit, offset });
    if (offset > result.total) {
      throw new ToolFailure(`\`offset\` ${offset} is past the last match: there are ${result.total}, so \`offset\` runs from 0 to ${result.total}.`);
    }
    return valueResult(result);
  },
});
