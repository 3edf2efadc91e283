/**
 * The official JSON schemas of the SBOM formats pkgcat emits (CycloneDX 1.5 with the two files it
 * refers to, and SPDX 2.3), as published (`standard/`, provenance in its README), and the same
 * schemas as members of one OpenAPI 3.1 document's `components.schemas`.
 *
 * The published files are draft-07 resources that name each other by `$id` (CycloneDX's
 * `"$ref": "spdx.schema.json"` and `"jsf-0.82.schema.json#/definitions/signature"`), and
 * SPDX's `$id` is an identifier, not a download address: a document that refers to them by `$id`
 * cannot be used without them. Embedded, each file is a component and each of its `definitions`
 * another (`CycloneDxBom`, `CycloneDxBom.component`, `CycloneDxJsf.signature`, ...), every
 * reference points at one of them, and none has an `$id` or `$schema` of its own: OpenAPI tools
 * resolve references inside the document only, and client generators (openapi-typescript) make a
 * type of each component, not of a schema's `definitions`. The one draft-07 construct with
 * another meaning in 2020-12 (the array form of `items`) is migrated by `json-schema-migrate`.
 * CycloneDX's `meta:enum` (the name of each SPDX license id, an annotation that validates
 * nothing) is left out: it is no keyword an OpenAPI schema may carry.
 */
import migrate from 'json-schema-migrate';
import cycloneDxBom from './standard/cdx-bom-1.5.schema.json' with { type: 'json' };
import cycloneDxJsf from './standard/cdx-jsf-0.82.schema.json' with { type: 'json' };
import cycloneDxSpdx from './standard/cdx-spdx.schema.json' with { type: 'json' };
import spdxDocument from './standard/spdx-2.3.schema.json' with { type: 'json' };

type Json = { readonly [key: string]: unknown };

interface StandardSchema {
  /** The published file, unchanged. */
  readonly schema: Json;
  /** Where a person reads it. */
  readonly url: string;
  readonly title: string;
}

/** The official schemas by the component name they take in a document. */
export const STANDARD_SCHEMAS = {
  CycloneDxBom: { schema: cycloneDxBom, title: 'CycloneDX 1.5 BOM', url: 'https://cyclonedx.org/docs/1.5/json/' },
  CycloneDxSpdxLicenseId: {
    schema: cycloneDxSpdx,
    title: 'SPDX license identifiers, as CycloneDX 1.5 refers to them',
    url: 'https://github.com/CycloneDX/specification/blob/1.5.1/schema/spdx.schema.json',
  },
  CycloneDxJsf: {
    schema: cycloneDxJsf,
    title: 'JSON Signature Format 0.82, as CycloneDX 1.5 refers to it',
    url: 'https://github.com/CycloneDX/specification/blob/1.5.1/schema/jsf-0.82.schema.json',
  },
  SpdxDocument: { schema: spdxDocument, title: 'SPDX 2.3 document', url: 'https://github.com/spdx/spdx-spec/blob/support/2.3/schemas/spdx-schema.json' },
} as const satisfies Record<string, StandardSchema>;

export type StandardSchemaName = keyof typeof STANDARD_SCHEMAS;

/** The component name of each official schema's `$id`. */
const NAME_OF_ID: ReadonlyMap<string, StandardSchemaName> = new Map(
  Object.entries(STANDARD_SCHEMAS).map(([name, { schema }]) => [schema.$id, name as StandardSchemaName]),
);

/** The component of the official schema `base` refers to with `reference`. */
function componentOf(reference: string, base: string): string {
  const target = new URL(reference, base);
  const fragment = decodeURIComponent(target.hash.slice(1));
  target.hash = '';
  const name = NAME_OF_ID.get(target.href);
  const definition = /^\/definitions\/([^/]+)$/.exec(fragment)?.[1];
  if (!name || (fragment !== '' && definition === undefined)) throw new Error(`${base} refers to ${reference}, which is no official schema or definition of one`);
  return definition === undefined ? name : `${name}.${definition}`;
}

/** `value` with every `$ref` (relative to `base`) made a pointer to a component at `prefix`. */
function rewriteReferences(value: unknown, base: string, prefix: string): unknown {
  if (Array.isArray(value)) return value.map((member) => rewriteReferences(member, base, prefix));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, member]) =>
      key === '$ref' && typeof member === 'string' ? [key, `${prefix}${componentOf(member, base)}`] : [key, rewriteReferences(member, base, prefix)],
    ),
  );
}

/**
 * The official schemas as members of `components.schemas` of a document whose components live at
 * `prefix` (`#/components/schemas/`): each file and each of its definitions, self-contained and
 * 2020-12, the files with a link to their source. The caller keeps those its operations reach.
 */
export function embeddedStandardSchemas(prefix: string): Readonly<Record<string, Json>> {
  // Migrating compiles the meta-schema: once per prefix, not once per document.
  const known = embedded.get(prefix);
  if (known) return known;
  const components: Record<string, Json> = {};
  for (const [name, { schema, title, url }] of Object.entries(STANDARD_SCHEMAS)) {
    const { $id: id, 'meta:enum': _names, ...rest } = structuredClone(schema) as Json & { $id: string };
    // One migration per file, definitions included: each call walks the meta-schema.
    const migrated = rewriteReferences(rest, id, prefix) as Record<string, unknown>;
    migrate.draft2020(migrated);
    // The migration names its dialect; a component takes the document's.
    const { $schema: _dialect, definitions = {}, ...root } = migrated as { $schema?: string; definitions?: Record<string, Json> };
    components[name] = { ...root, externalDocs: { description: `The official ${title} JSON schema (\`$id\` ${id}), embedded here`, url } };
    for (const [definition, member] of Object.entries(definitions)) components[`${name}.${definition}`] = member;
  }
  embedded.set(prefix, components);
  return components;
}

const embedded = new Map<string, Readonly<Record<string, Json>>>();
