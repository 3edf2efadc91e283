/**
 * A package's SBOM at one commit, in either format. The build (floating SBOMs of the tip) and
 * the gateway (sha-pinned SBOMs, composed on request) both come here, so the floating body
 * equals the pinned body at the tip, byte for byte.
 */
import type { CommitInfo } from '../../schemas/wire.ts';
import type { PackageClosure } from '../closure.ts';
import { composeCycloneDx, type ComponentCache } from './cyclonedx.ts';
import { composeSpdx } from './spdx.ts';
import { sbomSubject } from './subject.ts';
import { fillTemplate, surface } from '../../surfaces/registry.ts';

export type SbomFormat = 'cyclonedx' | 'spdx';
export type { ComponentCache };

/**
 * The SBOM of `closure`'s root at `commit` in `format` (plain JSON data for the serializer).
 * `siteUrl`: the site's public address; the document names its own sha-pinned URL under it (the
 * SPDX namespace), made here once for the build and the gateway alike.
 * `cache`: share one across the documents of one commit (the build's floating SBOMs).
 */
export function composeSbom(format: SbomFormat, commit: CommitInfo, closure: PackageClosure, siteUrl: string, cache?: ComponentCache): unknown {
  const pinnedUrl = siteUrl + fillTemplate(surface('pinned-sbom').path, { sha: commit.sha, name: closure.root.name });
  const subject = sbomSubject(commit, closure, pinnedUrl);
  return format === 'spdx' ? composeSpdx(subject) : composeCycloneDx(subject, cache);
}
