/** `get_sbom`: a package's SBOM, the raw document of GET /api/pkgs/{name}/sbom.json, byte for byte (SPEC.md "Tool server"). */
import { z } from 'zod';
import { floatingSbom } from '../../answers/sbom.ts';
import { failureOf, pinnedUrl } from '../failures.ts';
import { answerBytes, latest, packageAtTip, refuseSha } from '../reads.ts';
import { bytesResult, defineTool } from '../tool.ts';
import { nameArgument, shaArgument } from './arguments.ts';

export default defineTool({
  name: 'get_sbom',
  title: 'Get a package\'s SBOM',
  description:
    'The software bill of materials of a package at the latest commit: the package and everything it reaches through build and ' +
    'runtime dependencies, with licenses, source archives and hashes, package URLs, the dependency graph, and a vulnerabilities ' +
    'block listing every active advisory on any of them. `format`: "cyclonedx" (CycloneDX 1.5 JSON, the default) or "spdx" ' +
    '(SPDX 2.3 JSON). The raw document, byte for byte the body of GET /api/pkgs/{name}/sbom.json. Large closures give large ' +
    'documents: for advisories alone call get_advisories. Names are case-insensitive; an unknown name is answered with the closest names.',
  input: z.strictObject({
    name: nameArgument,
    sha: shaArgument,
    format: z.enum(['cyclonedx', 'spdx']).default('cyclonedx').describe('"cyclonedx" (CycloneDX 1.5, default) or "spdx" (SPDX 2.3).'),
  }),
  async call({ name, sha, format }, context) {
    const state = await latest(context);
    if (sha !== undefined) {
      const query = format === 'spdx' ? '?format=spdx' : '';
      return refuseSha(context, state, 'get_sbom', sha, name, (full, canonical) => pinnedUrl(state.release, 'pinned-sbom', { sha: full, name: canonical }, query));
    }
    const canonical = packageAtTip(state.release, name);
    // A document the release holds no file for (a name shadowed by a fixed route, DECISIONS.md 4) is composed by the resolver: the same bytes.
    const result = await floatingSbom({ catalog: context.catalog, release: async () => state.release, params: { name: canonical }, packageKey: null, query: { format } });
    if (result.kind === 'failure') throw failureOf(result, state.release);
    return bytesResult(await answerBytes(context, result));
  },
});
