/**
 * A package's SBOM at one commit, in either format. The build (floating SBOMs of the tip) and
 * the gateway (sha-pinned SBOMs, composed on request) both come here, so the floating body
 * equals the pinned body at the tip, byte for byte.
 */
import type { CommitInfo } from '../../schemas/wire.ts';
import type { PackageClosure } from '../closure.ts';
import { composeCycloneDx } from './cyclonedx.ts';
import { composeSpdx } from './spdx.ts';
import { sbomSubject } from './subject.ts';

export type SbomFormat = 'cyclonedx' | 'spdx';

/**
 * The SBOM of `closure`'s root at `commit` in `format` (plain JSON data for the serializer).
 * Nothing in it depends on where it is served: its identity (CycloneDX serial number, SPDX
 * namespace) comes from (sha, name, format) alone (docs/decisions.md, "Where a body is served").
 * `markers`: CycloneDX's components as markers for the tip's (the build's floating SBOMs,
 * src/compose/sbom/markers.ts).
 */
export function composeSbom(format: SbomFormat, commit: CommitInfo, closure: PackageClosure, markers = false): unknown {
  const subject = sbomSubject(commit, closure);
  return format === 'spdx' ? composeSpdx(subject) : composeCycloneDx(subject, markers);
}
