/**
 * The OpenAPI document as a validator of real answers: ajv 2020-12 (the dialect of OpenAPI 3.1's
 * schemas) over the whole document, so a response schema is found by its JSON pointer and its
 * `$ref`s resolve inside the document, the embedded official SBOM schemas included.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { createRequire } from 'node:module';
import type { OpenApiDocument, OpenApiOperation, OpenApiResponse } from '../../src/compose/openapi.ts';

/** ajv-formats is CommonJS: its plugin is the module's `default` member. */
const addFormats = ajvFormats.default;
/** draft 2019's idn-email and iri-reference, which CycloneDX uses (CommonJS, untyped). */
const addDraft2019Formats = createRequire(import.meta.url)('ajv-formats-draft2019') as (ajv: Ajv2020) => Ajv2020;

const DOCUMENT_ID = 'urn:pkgcat:openapi';

/** `segments` as a URI fragment holding a JSON pointer. */
const pointer = (segments: readonly string[]) => `#${segments.map((segment) => `/${encodeURIComponent(segment.replaceAll('~', '~0').replaceAll('/', '~1'))}`).join('')}`;

export class DocumentValidator {
  readonly document: OpenApiDocument;
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(document: OpenApiDocument) {
    this.document = document;
    // Not strict: the document's own members (`openapi`, `paths`, ...) and CycloneDX's `meta:enum`
    // are no JSON Schema keywords; CycloneDX uses draft 2019's idn-email and iri-reference formats.
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.ajv);
    addDraft2019Formats(this.ajv);
    this.ajv.addSchema(document as object, DOCUMENT_ID);
  }

  operation(path: string): OpenApiOperation {
    const operation = this.document.paths[path]?.get;
    if (!operation) throw new Error(`the document has no GET ${path}`);
    return operation;
  }

  response(path: string, status: number): OpenApiResponse | undefined {
    return this.operation(path).responses[String(status)];
  }

  /** The errors of `value` against the schema at `segments` of the document (below `paths`), or null. */
  problems(segments: readonly string[], value: unknown): string | null {
    const key = pointer(['paths', ...segments]);
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.getSchema(`${DOCUMENT_ID}${key}`);
      if (!validate) throw new Error(`no schema at ${key}`);
      this.compiled.set(key, validate);
    }
    return validate(value) ? null : this.ajv.errorsText(validate.errors, { separator: '; ' });
  }
}
