/**
 * SBOMs (src/compose/sbom/). The floating CycloneDX document of every package is a public file
 * of the release; any other (a past commit, or SPDX) is composed on its first request from the
 * commit's per-package reads and kept write-once (composed-store.ts). Both paths compose with
 * the same function, which depends on nothing but the commit and the package, so the floating body
 * equals the pinned body at the tip, byte for byte, on every gateway.
 */
import { nameKey } from '../../src/grammar.ts';
import { CONTENT_TYPE } from '../../src/http/content-types.ts';
import { composeSbom, type SbomFormat } from '../../src/compose/sbom/index.ts';
import { serialize } from '../../src/serialize.ts';
import { paths } from '../../src/store/layout.ts';
import type { Catalog } from '../catalog.ts';
import { releaseFile } from './floating.ts';
import { unknownPackageFailure, type Answer, type Failure, type ResolveRequest } from '../surface.ts';

const formatOf = (request: ResolveRequest): SbomFormat => (request.query.format === 'spdx' ? 'spdx' : 'cyclonedx');

/** The SBOM of `key` at `sha` in `format`, composed once; null when the package is not there. */
async function composedSbom(catalog: Catalog, sha: string, key: string, format: SbomFormat): Promise<Extract<Answer, { kind: 'bytes' }> | null> {
  const body = await catalog.composed.get(paths.sbom(catalog.out, sha, key, format), async () => {
    const root = await catalog.stateRoot(sha);
    if (!root) throw new Error(`commit ${sha} is on the release's chain but its state root is missing from the packs`);
    const closure = await catalog.closure(root, key);
    if (!closure) return null;
    return Buffer.from(serialize(composeSbom(format, root.commit, closure)), 'utf8');
  });
  if (!body) return null;
  return {
    kind: 'bytes',
    bytes: body.bytes,
    // SPEC.md: the pinned SBOM's ETag carries a format suffix.
    etag: `${body.etag.slice(0, -1)}-${format}"`,
    identity: `sbom:${sha}/${key}/${format}`,
    file: body.file,
    contentType: CONTENT_TYPE[format],
  };
}

/** `/api/pkgs/bundle/{sha}/{name}/sbom.json`. */
export async function pinnedSbom(request: ResolveRequest): Promise<Answer | Failure> {
  const answer = request.packageKey === null ? null : await composedSbom(request.catalog, request.params.sha, request.packageKey, formatOf(request));
  return answer ?? unknownPackageFailure(request.params.name);
}

/** `/api/pkgs/{name}/sbom.json`: `name` is the canonical spelling of a package at the tip (params.ts). */
export async function floatingSbom(request: ResolveRequest): Promise<Answer | Failure> {
  const { catalog, params } = request;
  const release = await request.release();
  if (!release?.info.tip) throw new Error('a package name resolved without a release');
  const format = formatOf(request);
  if (format === 'cyclonedx') {
    // The build writes it into the release, for every name but those a fixed route shadows (DECISIONS.md 4; the tool server asks for them)
    // and those whose closure passes PRERENDERED_SBOM_CLOSURE (src/compose/closure.ts): those are composed, the same bytes.
    const file = await releaseFile(catalog, release, 'package-sbom', { name: params.name });
    if (file) return file;
  }
  const answer = await composedSbom(catalog, release.info.tip.sha, nameKey(params.name), format);
  if (!answer) return unknownPackageFailure(params.name);
  // Floating: no ETag (SPEC.md gives ETags to sha-pinned responses only).
  return { ...answer, etag: undefined };
}
