/** `get_package`: the `/api/pkgs/{name}.json` envelope, byte for byte (SPEC.md "Tool server", DECISIONS.md 1). */
import { z } from 'zod';
import { composeEnvelope } from '../../../src/compose/package.ts';
import { isReservedName, nameKey } from '../../../src/grammar.ts';
import { PackageEnvelope } from '../../../src/schemas/wire.ts';
import { serialize } from '../../../src/serialize.ts';
import { packageRecord } from '../../answers/floating.ts';
import { pinnedUrl } from '../failures.ts';
import { answerBytes, latest, packageAtTip, refuseSha } from '../reads.ts';
import { bytesResult, defineTool, textResult } from '../tool.ts';
import { nameArgument, shaArgument } from './arguments.ts';

export default defineTool({
  name: 'get_package',
  title: 'Get a package record',
  description:
    'The full record of one package at the latest commit of the catalog, exactly the body of GET /api/pkgs/{name}.json: ' +
    '`package` holds its version, description, license, homepage, repository, categories, stars, source archive (URL and sha256), ' +
    'build and runtime dependencies, reverse dependencies, active direct security advisories in full, OpenSSF scorecard, and links ' +
    'to its other surfaces; `commitSha` and `pushedAt` name the commit answered. Names are case-insensitive. ' +
    'Advisories reached through dependencies: get_advisories. Versions, licenses and advisories of the dependencies: get_dependencies. ' +
    'An unknown name is answered with the closest names.',
  input: z.strictObject({ name: nameArgument, sha: shaArgument }),
  output: PackageEnvelope,
  async call({ name, sha }, context) {
    const state = await latest(context);
    if (sha !== undefined) {
      return refuseSha(context, state, 'get_package', sha, name, (full) => pinnedUrl(state.release, 'full-bundle', { sha: full }) + ' (the record is in its `packages`)');
    }
    const canonical = packageAtTip(state.release, name);
    // A name shadowed by a fixed route has no public file (DECISIONS.md 4); the tools still answer it, composed as the build would.
    if (isReservedName(canonical)) {
      const record = (await context.catalog.record(state.root, nameKey(canonical)))!;
      return textResult(serialize(composeEnvelope(state.tip, record)));
    }
    const answer = await packageRecord({ catalog: context.catalog, release: async () => state.release, params: { name: canonical }, packageKey: null, query: {} });
    return bytesResult(await answerBytes(context, answer));
  },
});
