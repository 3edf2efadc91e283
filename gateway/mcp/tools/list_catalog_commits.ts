/** `list_catalog_commits`: the newest commits of main, floating with the tip (SPEC.md "Tool server" rule 4). */
import { z } from 'zod';
import { COMMITS_LIMIT } from '../../../src/compose/commits.ts';
import { CommitsResult, SCHEMA_VERSION, type CommitInfo } from '../../../src/schemas/wire.ts';
import { recentCommits } from '../../answers/floating.ts';
import { noReleaseFailure } from '../failures.ts';
import { answerBytes } from '../reads.ts';
import { defineTool, valueResult } from '../tool.ts';
import { inRange } from './arguments.ts';

export default defineTool({
  name: 'list_catalog_commits',
  title: 'List recent catalog commits',
  description:
    `The newest commits of the catalog's main branch, newest first: each with its \`sha\`, \`pushedAt\` and the first line of its message ` +
    `(null when it cannot be read). The same list as GET /api/pkgs/recent-commits.json. \`limit\`: ${COMMITS_LIMIT.min} to ${COMMITS_LIMIT.max}, ` +
    `default ${COMMITS_LIMIT.default}. Every other tool answers for the first of these commits.`,
  input: z.strictObject({
    limit: z.number().int().default(COMMITS_LIMIT.default).describe(`How many commits, ${COMMITS_LIMIT.min} to ${COMMITS_LIMIT.max} (default ${COMMITS_LIMIT.default}).`),
  }),
  output: CommitsResult,
  async call({ limit }, context) {
    inRange('limit', limit, COMMITS_LIMIT);
    const release = await context.release();
    if (!release) throw noReleaseFailure();
    const answer = await recentCommits({ catalog: context.catalog, release: async () => release, params: {}, packageKey: null, query: { limit } });
    const commits = JSON.parse((await answerBytes(context, answer)).toString('utf8')) as CommitInfo[];
    return valueResult({ schemaVersion: SCHEMA_VERSION, commits } satisfies CommitsResult);
  },
});
