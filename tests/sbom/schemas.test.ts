/** The official schemas the SBOM tests validate against are the published files, unchanged (src/schemas/standard/README.md). */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCHEMA_DIR } from '../helpers/sbom-schemas.ts';

describe('src/schemas/standard: the files of the provenance table', () => {
  it.each([
    ['spdx-2.3.schema.json', '239208b7ac287b3cf5d9a9af23f9d69863971102a5e1587a27a398b43490b89b'],
    ['cdx-bom-1.5.schema.json', '2d956c1d05c092695457a91f3b5c57c749793c013ec224a0935807cfc8ae4480'],
    ['cdx-spdx.schema.json', 'ea6e844ee6fba1e93473d94834d0ee0996970533497935f932f73d488ffdf4a3'],
    ['cdx-jsf-0.82.schema.json', '8bae002c25e723db7ee1f26afde680ae1a2b1a8f6b4b4b0fd65dc3becb090aae'],
  ])('%s has sha256 %s', (file, sha256) => {
    expect(createHash('sha256').update(readFileSync(join(SCHEMA_DIR, file))).digest('hex')).toBe(sha256);
  });
});
