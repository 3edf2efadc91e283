/**
 * `diff_catalog`: always an error result (SPEC.md "Tool server" rule 3: a diff is sha-pinned, and
 * the tool server cannot present a session). The shas are still checked, so the message names a
 * bad one, or gives the URL of the diff a signed-in HTTP client can fetch.
 */
import { z } from 'zod';
import { Diff } from '../../../src/schemas/wire.ts';
import { diffFailure, noCommitsFailure, noReleaseFailure, pinnedUrl, resolveShaArgument } from '../failures.ts';
import { defineTool } from '../tool.ts';

const commit = (which: string) => z.string().describe(`The ${which} commit of main: 7 to 40 hex characters.`);

export default defineTool({
  name: 'diff_catalog',
  title: 'Diff two catalog commits (needs a session)',
  description:
    'What changed between two commits of main (packages added and removed, version changes, advisory changes), as ' +
    'GET /api/pkgs/bundle/{sha}/diff/{base}.json answers it. That body needs a signed-in session, which this tool server cannot ' +
    'present: every call is answered with an error giving the HTTP URL to fetch with a session. Without a session, ' +
    'list_catalog_commits and get_package_versions tell what was committed and shipped.',
  input: z.strictObject({ sha: commit('newer'), base: commit('older') }),
  output: Diff,
  async call({ sha, base }, context) {
    const release = await context.release();
    if (!release) throw noReleaseFailure();
    if (!release.info.tip) throw noCommitsFailure();
    const params = { sha: resolveShaArgument(release, sha, 'sha'), base: resolveShaArgument(release, base, 'base') };
    return diffFailure(release, pinnedUrl(release, 'diff', params));
  },
});
