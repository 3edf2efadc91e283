/**
 * The values a floats-latest document takes from the tip: its sha and push time, the time as an
 * instant, and the CycloneDX serial number derived from them. A document that carries the tip (an
 * envelope, the package page that embeds it, a floating SBOM) is stored once with the values of
 * the tip it was rendered at and where they sit (its holes); the gateway and the static export
 * put the current tip's values there (src/store/manifest.ts). One function gives them, so the
 * build and every reader agree on the bytes.
 */
import { sbomSerialNumber } from './sbom/cyclonedx.ts';
import type { CommitInfo } from './types.ts';

/** Every hole a document may have, by name, with its value at `tip` for the package `name` (when the document is a package's). */
export function tipValues(tip: Pick<CommitInfo, 'sha' | 'pushedAt'>, name: string | undefined): Record<string, string> {
  return {
    sha: tip.sha,
    pushedAt: tip.pushedAt,
    timestamp: new Date(tip.pushedAt).toISOString(),
    ...(name !== undefined && { serialNumber: sbomSerialNumber(tip.sha, name, 'cyclonedx') }),
  };
}
