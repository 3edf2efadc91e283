/** `get_package_versions`: the sha-pinned versions.json at the latest commit (SPEC.md "Tool server"). */
import { z } from 'zod';
import { VersionHistory } from '../../../src/schemas/wire.ts';
import { packageVersions } from '../../answers/pinned.ts';
import { pinnedUrl } from '../failures.ts';
import { latest, pinnedAtTip, refuseSha } from '../reads.ts';
import { bytesResult, defineTool } from '../tool.ts';
import { nameArgument, shaArgument } from './arguments.ts';

export default defineTool({
  name: 'get_package_versions',
  title: 'Get a package\'s version history',
  description:
    'Every version a package has shipped up to the latest commit, newest first, each with the commit that shipped it (`sha`, `pushedAt`), ' +
    'the files and lines that commit changed in the package, and its build and runtime dependency names. The same body as ' +
    'GET /api/pkgs/bundle/{sha}/{name}/versions.json at the latest commit. A package that was removed keeps its history here. ' +
    'Names are case-insensitive; an unknown name is answered with the closest names.',
  input: z.strictObject({ name: nameArgument, sha: shaArgument }),
  output: VersionHistory,
  async call({ name, sha }, context) {
    const state = await latest(context);
    if (sha !== undefined) {
      return refuseSha(context, state, 'get_package_versions', sha, name, (full, canonical) => pinnedUrl(state.release, 'pinned-versions', { sha: full, name: canonical }), 'versions');
    }
    return bytesResult(await pinnedAtTip(context, state, packageVersions, name));
  },
});
