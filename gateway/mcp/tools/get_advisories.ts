/** `get_advisories`: a package's active advisories, direct and through its dependencies (SPEC.md "Tool server", DECISIONS.md 2). */
import { z } from 'zod';
import { nameKey } from '../../../src/grammar.ts';
import { AdvisoriesResult, SCHEMA_VERSION } from '../../../src/schemas/wire.ts';
import { latest, packageAtTip } from '../reads.ts';
import { defineTool, valueResult } from '../tool.ts';
import { nameArgument } from './arguments.ts';

export default defineTool({
  name: 'get_advisories',
  title: 'Get a package\'s security advisories',
  description:
    'The security advisories active on a package at the latest commit. `advisories`: the package\'s own (OSV details: id, aliases, ' +
    'severity, CVSS, summary, affected package, fixed versions, references). `transitiveAdvisories`: one entry per advisory active on a ' +
    'package it reaches through build and runtime dependencies, `{advisoryId, culpritPath}`, the path running from this package to ' +
    'the vulnerable one (a shortest path); call get_advisories on the last name of the path for that advisory\'s details. ' +
    'Set `include_transitive` to false for the direct ones only. Names are case-insensitive; an unknown name is answered with the closest names.',
  input: z.strictObject({
    name: nameArgument,
    include_transitive: z.boolean().default(true).describe('Also list the advisories reached through dependencies (default true).'),
  }),
  output: AdvisoriesResult,
  async call({ name, include_transitive }, context) {
    const state = await latest(context);
    const key = nameKey(packageAtTip(state.release, name));
    const record = await context.catalog.record(state.root, key);
    if (!record) throw new Error(`${key} is in the release's names but has no record at ${state.tip.sha}`);
    return valueResult({
      schemaVersion: SCHEMA_VERSION,
      commitSha: state.tip.sha,
      pushedAt: state.tip.pushedAt,
      name: record.name,
      advisories: record.advisories,
      transitiveAdvisories: include_transitive ? await context.catalog.transitive(state.root, key) : undefined,
    } satisfies AdvisoriesResult);
  },
});
