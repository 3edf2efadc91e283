/** `get_dependencies`: the sha-pinned deps.json at the latest commit (SPEC.md "Tool server"). */
import { z } from 'zod';
import { Dependencies } from '../../../src/schemas/wire.ts';
import { packageDeps } from '../../answers/pinned.ts';
import { pinnedUrl } from '../failures.ts';
import { latest, pinnedAtTip, refuseSha } from '../reads.ts';
import { bytesResult, defineTool } from '../tool.ts';
import { nameArgument, shaArgument } from './arguments.ts';

export default defineTool({
  name: 'get_dependencies',
  title: 'Get a package\'s direct dependencies',
  description:
    'The direct build and runtime dependencies of a package at the latest commit, each with its `scopes`, its own version and license, ' +
    'its active direct advisories and their highest severity, or `missing: true` when no such package is in the catalog. The same body as ' +
    'GET /api/pkgs/bundle/{sha}/{name}/deps.json at the latest commit. For what the package reaches further down, with the path to each ' +
    'vulnerable package, call get_advisories. Names are case-insensitive; an unknown name is answered with the closest names.',
  input: z.strictObject({ name: nameArgument, sha: shaArgument }),
  output: Dependencies,
  async call({ name, sha }, context) {
    const state = await latest(context);
    if (sha !== undefined) {
      return refuseSha(context, state, 'get_dependencies', sha, name, (full, canonical) => pinnedUrl(state.release, 'pinned-deps', { sha: full, name: canonical }));
    }
    return bytesResult(await pinnedAtTip(context, state, packageDeps, name));
  },
});
