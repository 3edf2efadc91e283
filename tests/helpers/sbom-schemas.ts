/**
 * Validators of the official CycloneDX 1.5 and SPDX 2.3 JSON schemas (src/schemas/standard/,
 * copied unchanged, provenance in its README), compiled once per test file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';
// @ts-expect-error: the package ships no types; it is a plugin `(ajv) => ajv` like ajv-formats.
import ajvDraft2019Formats from 'ajv-formats-draft2019';

// Both are CommonJS plugins whose module object is the function itself.
const addFormats = ajvFormats as unknown as (ajv: Ajv) => Ajv;
const addDraft2019Formats = ajvDraft2019Formats as (ajv: Ajv) => Ajv;

export const SCHEMA_DIR = join(import.meta.dirname, '..', '..', 'src', 'schemas', 'standard');
const schema = (file: string) => JSON.parse(readFileSync(join(SCHEMA_DIR, file), 'utf8')) as object;

function ajv(): Ajv {
  // strict: false, because CycloneDX's schema uses the `meta:enum` keyword.
  const instance = new Ajv({ strict: false, allErrors: true });
  addFormats(instance);
  addDraft2019Formats(instance);
  return instance;
}

let cyclonedx: ValidateFunction | undefined;
let spdx: ValidateFunction | undefined;

/** The errors of `document` against CycloneDX 1.5 (empty when valid). */
export function cycloneDxErrors(document: unknown): string[] {
  if (!cyclonedx) {
    const instance = ajv();
    instance.addSchema(schema('cdx-spdx.schema.json'));
    instance.addSchema(schema('cdx-jsf-0.82.schema.json'));
    cyclonedx = instance.compile(schema('cdx-bom-1.5.schema.json'));
  }
  return errorsOf(cyclonedx, document);
}

/** The errors of `document` against SPDX 2.3 (empty when valid). */
export function spdxErrors(document: unknown): string[] {
  spdx ??= ajv().compile(schema('spdx-2.3.schema.json'));
  return errorsOf(spdx, document);
}

function errorsOf(validate: ValidateFunction, document: unknown): string[] {
  return validate(document) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
}
