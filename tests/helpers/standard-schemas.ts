/**
 * The official CycloneDX 1.5 and SPDX 2.3 JSON schemas (tests/fixtures/schemas/, provenance in its
 * README), each by its `$id`: the OpenAPI document names an SBOM body's schema by that `$id`, and
 * the contract tests hand these files to ajv and to the OpenAPI validator under it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCHEMA_DIR } from './sbom-schemas.ts';

/** Every official schema (the CycloneDX one refers to the other two CycloneDX files), by `$id`. */
export const STANDARD_SCHEMAS: ReadonlyMap<string, Record<string, unknown>> = new Map(
  ['cdx-spdx.schema.json', 'cdx-jsf-0.82.schema.json', 'cdx-bom-1.5.schema.json', 'spdx-2.3.schema.json'].map((file) => {
    const schema = JSON.parse(readFileSync(join(SCHEMA_DIR, file), 'utf8')) as Record<string, unknown>;
    return [schema.$id as string, schema];
  }),
);
