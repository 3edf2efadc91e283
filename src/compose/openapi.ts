/**
 * The OpenAPI 3.1 document of the JSON API (`/api/pkgs/openapi.json`), composed from the surface
 * registry and the wire schemas, nothing copied by hand:
 *
 * - the path set is the registry's rows with `openapi: true` (SPEC.md's JSON endpoints table);
 * - path parameters carry the grammar of src/grammar.ts, query parameters their row's rules;
 * - bodies are the wire schemas (zod 4, converted to JSON Schema 2020-12, one component per
 *   `.meta({id})`); the SBOMs' are the official CycloneDX 1.5 and SPDX 2.3 schemas, embedded
 *   (src/schemas/standard.ts), so the document refers to nothing outside itself;
 * - every response states its status, its headers (Cache-Control from src/http/cache-control.ts,
 *   ETag, Location, Content-Type) and its body, errors included (their examples are the
 *   gateway's own words, src/http/error-bodies.ts);
 * - the cookie scheme guards the sha-pinned rows, and only them;
 * - `info.version` is `<schemaVersion>.0.0` (SPEC.md Versioning 2);
 * - examples are bodies the build composed from the tip of the catalog (ApiExamples).
 *
 * Which status a row answers with which headers is stated here, per family; the contract tests
 * (tests/contract/) fetch every one of them from the gateway and hold it to this document.
 *
 * Pure: a function of the registry, the schemas and its input.
 */
import { z } from 'zod';
import { FULL_SHA, PACKAGE_NAME, RESERVED_NAMES, SHA_PREFIX } from '../grammar.ts';
import { CACHE } from '../http/cache-control.ts';
import { CONTENT_TYPE, mediaTypeOf } from '../http/content-types.ts';
import { ERROR_BODY } from '../http/error-bodies.ts';
import { SESSION_COOKIE } from '../http/session.ts';
import { embeddedStandardSchemas, type StandardSchemaName } from '../schemas/standard.ts';
import { SCHEMA_VERSION, WIRE } from '../schemas/wire.ts';
import { SURFACES, escapeRegExp, fillTemplate, surface, templateParams, type QueryParameter, type SurfaceId, type SurfaceRow } from '../surfaces/registry.ts';

/** Bodies the build composed from the tip of the catalog, shown as the document's examples. */
export interface ApiExamples {
  /** The package the examples are about, as its path parameter. */
  readonly name: string;
  /** The tip: the examples' `{sha}`. */
  readonly sha: string;
  /** The examples' `{base}`: the tip's parent (the tip itself on a one-commit catalog). */
  readonly base: string;
  /** Success bodies by registry row id, then by media type (`application/json`, ...); abridged where a body is long. */
  readonly bodies: Readonly<Partial<Record<SurfaceId, Readonly<Record<string, unknown>>>>>;
}

export interface OpenApiInput {
  /** The site's public address, without a trailing slash: only its path goes into the document (its server). */
  readonly siteUrl: string;
  readonly examples: ApiExamples;
}

type Json = { readonly [key: string]: unknown };

export interface OpenApiOperation extends Json {
  readonly operationId: string;
  readonly parameters: readonly Json[];
  readonly responses: Readonly<Record<string, OpenApiResponse>>;
  readonly security: readonly Json[];
}

/** An example: a value, or a reference to one of `components.examples`. */
export type OpenApiExample = { readonly summary?: string; readonly value: unknown } | { readonly $ref: string };

export interface OpenApiMediaType {
  readonly schema: Json;
  readonly example?: unknown;
  readonly examples?: Readonly<Record<string, OpenApiExample>>;
}

export interface OpenApiResponse extends Json {
  readonly description: string;
  readonly headers: Readonly<Record<string, { readonly required: boolean; readonly schema: Json; readonly example?: string }>>;
  readonly content?: Readonly<Record<string, OpenApiMediaType>>;
}

export interface OpenApiDocument extends Json {
  readonly openapi: string;
  readonly info: Json & { readonly version: string };
  readonly paths: Readonly<Record<string, { readonly get: OpenApiOperation }>>;
  readonly components: {
    readonly schemas: Readonly<Record<string, Json>>;
    readonly securitySchemes: Readonly<Record<string, Json>>;
    readonly examples?: Readonly<Record<string, { readonly summary?: string; readonly value: unknown }>>;
  };
}

/** Every example value of a media type of `document`, references to `components.examples` followed. */
export function exampleValues(document: OpenApiDocument, media: OpenApiMediaType): unknown[] {
  const values: unknown[] = media.example === undefined ? [] : [media.example];
  for (const example of Object.values(media.examples ?? {})) {
    if (!('$ref' in example)) values.push(example.value);
    else values.push(document.components.examples?.[example.$ref.replace('#/components/examples/', '')]?.value);
  }
  return values;
}

export const OPENAPI_VERSION = '3.1.0';

/** `info.version`: the wire schemaVersion as the major version (SPEC.md Versioning 2). */
export const API_VERSION = `${SCHEMA_VERSION}.0.0`;

const SECURITY_SCHEME = 'session';
const TITLE = 'pkgcat';

/** The rows of the document: SPEC.md's JSON endpoints table. */
export const API_ROWS: readonly SurfaceRow[] = SURFACES.filter((row) => row.openapi);

/** What each operation is, for people reading the document; the rest follows from the row. */
const OPERATIONS: Readonly<Record<string, { readonly summary: string; readonly description: string }>> = {
  'recent-commits': {
    summary: 'Recent commits of main',
    description:
      'The newest first-parent commits of `main`, newest first. Floats with the latest state. A history that is empty or cannot be read answers `[]` with `Cache-Control: no-store`, never a 5xx.',
  },
  openapi: {
    summary: 'This document',
    description: 'The OpenAPI 3.1 description of the JSON API, prerendered by the build. `info.version` is `<schemaVersion>.0.0`: compare a body\'s `schemaVersion` with its major version.',
  },
  'latest-bundle': {
    summary: 'Redirect to the latest listing bundle',
    description: 'Anonymous `302` to the listing bundle of the newest commit of `main`. Following the `Location` needs a session.',
  },
  'listing-bundle': { summary: 'Every package at a commit, as cards', description: 'The listing bundle: one card per package at the commit, and every category.' },
  'full-bundle': {
    summary: 'Every full record at a commit',
    description: 'Every package record at the commit, every active advisory once (by id), and the transitive advisories with the dependency path to the culprit.',
  },
  'pinned-deps': {
    summary: 'Direct dependencies of a package at a commit',
    description: 'Each direct dependency once, with its scopes, version, license and active advisories at the commit; a dangling one is `missing`. 404 when the package is not in the catalog at the commit.',
  },
  'pinned-versions': {
    summary: 'Version history of a package up to a commit',
    description: 'One entry per version the package shipped up to the commit, newest first, with diff stats. A removed package keeps its history. 404 when the package never shipped by the commit.',
  },
  'pinned-sbom': {
    summary: 'SBOM of a package at a commit',
    description: 'CycloneDX 1.5 JSON, or SPDX 2.3 JSON with `format=spdx`; the Content-Type follows the format. The package and its build and runtime closure, with every active advisory on any of them.',
  },
  diff: {
    summary: 'What changed between two commits',
    description: 'Packages added and removed, version changes and advisory changes from `base` to `sha` (either may be the older one). A package named `diff` keeps its own `deps.json` and `versions.json`: those routes match first.',
  },
  'package-sbom': {
    summary: 'SBOM of a package at the latest commit',
    description: 'The same document as the sha-pinned SBOM of the latest commit, byte for byte, floating with the latest state.',
  },
  'package-badge': {
    summary: 'Badge of a package',
    description: 'A shields-style SVG badge: the normalised scorecard score (`metric=score`) or the count of active direct advisories (`metric=advisories`).',
  },
  package: { summary: 'A package at the latest commit', description: 'The package record at the newest commit of `main`, with that commit.' },
};

/** `^...$` sources of several grammar patterns as one pattern that matches any of them. */
const anyOf = (...patterns: RegExp[]) => `^(?:${patterns.map((pattern) => pattern.source.replace(/^\^|\$$/g, '')).join('|')})$`;
const inner = (pattern: RegExp) => pattern.source.replace(/^\^|\$$/g, '');
const quote = (values: Iterable<string>) => [...values].map((value) => `\`${value}\``).join(', ');

const PATH_PARAMETERS: Readonly<Record<string, (row: SurfaceRow) => Json>> = {
  name: (row) => ({
    name: 'name',
    in: 'path',
    required: true,
    description:
      row.family === 'pinned'
        ? 'A package name at that commit, case-insensitive.'
        : `A package name, case-insensitive: any spelling answers the canonical record. ${quote(RESERVED_NAMES)} are shadowed by fixed routes and answer 404 here.`,
    schema: { type: 'string', pattern: PACKAGE_NAME.source },
  }),
  sha: () => ({
    name: 'sha',
    in: 'path',
    required: true,
    description: 'A commit of `main`: its 40 lowercase hex characters, or a unique prefix of 7 to 39, which answers 301 to the full sha.',
    schema: { type: 'string', pattern: anyOf(FULL_SHA, SHA_PREFIX) },
  }),
  base: () => ({
    name: 'base',
    in: 'path',
    required: true,
    description: 'The commit to compare with, named like `sha`.',
    schema: { type: 'string', pattern: anyOf(FULL_SHA, SHA_PREFIX) },
  }),
};

function queryParameter(parameter: QueryParameter): Json {
  const schema =
    parameter.kind === 'integer'
      ? { type: 'integer', default: parameter.default, minimum: parameter.min, maximum: parameter.max }
      : parameter.kind === 'enum'
        ? { type: 'string', enum: parameter.values, default: parameter.default }
        : // Free text: any string is accepted (and cut to its length), so the schema states no maximum.
          { type: 'string' };
  const rule = parameter.fallback.charAt(0).toUpperCase() + parameter.fallback.slice(1);
  return { name: parameter.name, in: 'query', required: false, description: `${rule}; never an error.`, schema };
}

const stringHeader = (description: string, schema: Json, example?: string) => ({ description, required: true, schema: { type: 'string', ...schema }, example });

/** A header whose value is one of `values` (one: exactly it). */
const oneOfHeader = (description: string, values: readonly string[]) =>
  stringHeader(description, values.length === 1 ? { const: values[0] } : { enum: [...new Set(values)] }, values[0]);

const cacheControl = (...values: string[]) => oneOfHeader('How long the answer may be kept, and by whom.', values);
const contentType = (...values: string[]) => oneOfHeader('The media type of the body, with its charset.', values);

/** Where a reference to a component schema points. */
const SCHEMAS = '#/components/schemas/';

const errorSchema = { $ref: `${SCHEMAS}Error` };

/** An error answer: its Cache-Control values, and its body examples by name. */
function errorResponse(description: string, cacheControls: readonly string[], examples: Record<string, { summary: string; value: unknown }>): OpenApiResponse {
  return {
    description,
    headers: { 'Cache-Control': cacheControl(...cacheControls), 'Content-Type': contentType(CONTENT_TYPE.json) },
    content: { [mediaTypeOf(CONTENT_TYPE.json)]: { schema: errorSchema, examples } },
  };
}

/** The schemas of a success body by Content-Type: a wire schema, a standard document, or a string. */
function bodySchemas(row: SurfaceRow): Record<string, Json> {
  if (row.body) return { [row.contentType]: { $ref: `${SCHEMAS}${WIRE[row.body].meta()!.id as string}` } };
  if (row.contentType === CONTENT_TYPE.cyclonedx) {
    return {
      [CONTENT_TYPE.cyclonedx]: {
        $ref: `${SCHEMAS}${'CycloneDxBom' satisfies StandardSchemaName}`,
        description: 'A CycloneDX 1.5 JSON document (the default format), valid against the official schema.',
      },
      [CONTENT_TYPE.spdx]: {
        $ref: `${SCHEMAS}${'SpdxDocument' satisfies StandardSchemaName}`,
        description: 'An SPDX 2.3 JSON document (`format=spdx`), valid against the official schema.',
      },
    };
  }
  if (row.contentType === CONTENT_TYPE.svg) return { [row.contentType]: { type: 'string', contentMediaType: mediaTypeOf(CONTENT_TYPE.svg), description: 'An SVG image.' } };
  if (row.id === 'openapi') {
    return {
      [row.contentType]: {
        type: 'object',
        required: ['openapi', 'info', 'paths'],
        properties: { openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' }, info: { type: 'object' }, paths: { type: 'object' } },
        description: 'An OpenAPI 3.1 document: this one.',
      },
    };
  }
  throw new Error(`${row.id}: the OpenAPI document does not know what its body is`);
}

/** Example values more than one response shows (the floating and the pinned SBOM), each with its component name. */
type SharedExamples = ReadonlyMap<unknown, { readonly name: string; readonly rows: readonly string[] }>;

function sharedExamples(examples: ApiExamples): SharedExamples {
  const uses = new Map<unknown, { name: string; rows: string[] }>();
  for (const row of API_ROWS) {
    for (const [type, value] of Object.entries(examples.bodies[row.id as SurfaceId] ?? {})) {
      const use = uses.get(value) ?? { name: `${row.id}.${type.split('/')[1]!.replace(/[^A-Za-z0-9._-]/g, '-')}`, rows: [] };
      use.rows.push(row.path);
      uses.set(value, use);
    }
  }
  return new Map([...uses].filter(([, use]) => use.rows.length > 1));
}

function success(row: SurfaceRow, examples: ApiExamples, shared: SharedExamples): OpenApiResponse {
  const schemas = bodySchemas(row);
  const cacheControls = row.id === 'recent-commits' ? [row.cacheControl, CACHE.noStore] : [row.cacheControl];
  const headers: Record<string, ReturnType<typeof stringHeader>> = {
    'Cache-Control': cacheControl(...cacheControls),
    'Content-Type': contentType(...Object.keys(schemas)),
  };
  if (row.family === 'pinned') {
    headers.ETag = stringHeader('A weak validator of the body: one URL, one body, forever. No endpoint answers conditional requests.', { pattern: '^W/"[^"]+"$' });
  }
  const content = Object.fromEntries(
    Object.entries(schemas).map(([type, schema]) => {
      const example = examples.bodies[row.id as SurfaceId]?.[mediaTypeOf(type)];
      const name = shared.get(example)?.name;
      if (name !== undefined) return [mediaTypeOf(type), { schema, examples: { [name]: { $ref: `#/components/examples/${name}` } } }];
      return [mediaTypeOf(type), example === undefined ? { schema } : { schema, example }];
    }),
  );
  const note = row.id === 'recent-commits' ? ' (`no-store` when the history is empty or cannot be read: the body is `[]`)' : '';
  return { description: `The ${row.family === 'pinned' ? 'body at the commit' : 'latest body'}${note}.`, headers, content };
}

/** A Location pattern for `template`: shas in full, names by their grammar, the query string kept. */
function locationPattern(template: string): string {
  const parts = template.split(/\{(\w+)\}/).map((part, index) => {
    if (index % 2 === 0) return escapeRegExp(part);
    return inner(part === 'name' ? PACKAGE_NAME : FULL_SHA);
  });
  return `^${parts.join('')}(?:\\?.*)?$`;
}

function redirect(status: 301 | 302, description: string, template: string, cacheControls: readonly string[], example: string): OpenApiResponse {
  return {
    description,
    headers: {
      Location: stringHeader(status === 301 ? 'The same URL with the full sha, query string kept.' : 'The listing bundle of the newest commit.', { pattern: locationPattern(template) }, example),
      'Cache-Control': cacheControl(...cacheControls),
    },
  };
}

/** Every status a row answers with, per family (SPEC.md Errors, DECISIONS.md 8, docs/api.md). */
function responses(row: SurfaceRow, examples: ApiExamples, shared: SharedExamples): Record<string, OpenApiResponse> {
  const params = templateParams(row.path);
  const exampleParams = { name: examples.name, sha: examples.sha, base: examples.base };
  const unknownName = { unknownPackage: { summary: 'A name not in the catalog (or outside the name grammar)', value: ERROR_BODY.unknownPackage('no-such-package') } };
  const noCommits = { noCommits: { summary: 'Nothing built yet', value: ERROR_BODY.noCommits() } };
  if (row.family === 'alias') {
    return {
      '302': redirect(302, 'To the listing bundle of the newest commit.', surface('listing-bundle').path, [row.cacheControl], fillTemplate(surface('listing-bundle').path, exampleParams)),
      '404': errorResponse('The catalog has no commits.', [row.cacheControl], noCommits),
    };
  }
  if (row.family === 'floating') {
    const found: Record<string, OpenApiResponse> = { '200': success(row, examples, shared) };
    if (params.includes('name')) found['404'] = errorResponse('No such package at the latest commit.', [CACHE.negative], unknownName);
    else if (row.id === 'openapi') found['404'] = errorResponse('Nothing built yet.', [CACHE.negative], noCommits);
    return found;
  }
  // Sha-pinned: the sha is resolved (301, 400, 404) before the session gate (401), then the body (200, 404).
  const notFound: Record<string, { summary: string; value: unknown }> = {
    unknownSha: { summary: 'A well-formed sha on no commit of main (briefly cached: it may arrive)', value: ERROR_BODY.unknownSha('0'.repeat(40)) },
    malformedSha: { summary: 'A sha outside the grammar', value: ERROR_BODY.malformedSha() },
  };
  if (params.includes('name')) Object.assign(notFound, unknownName);
  return {
    '200': success(row, examples, shared),
    '301': redirect(
      301,
      'A unique prefix of a sha: the canonical URL. Cached publicly for an hour from a prefix of 12 or more characters, not at all from a shorter one (a later commit could make it ambiguous).',
      row.path,
      [CACHE.pinned, CACHE.longPrefixRedirect],
      fillTemplate(row.path, exampleParams),
    ),
    '400': errorResponse('A prefix of several commits.', [CACHE.pinned], { ambiguousSha: { summary: 'A prefix of two commits', value: ERROR_BODY.ambiguousSha('abc1234', 2) } }),
    '401': errorResponse('No signed-in session (no `WWW-Authenticate`: the credential is a cookie).', [CACHE.pinned], { authRequired: { summary: 'No session cookie', value: ERROR_BODY.authRequired() } }),
    '404': errorResponse('An unknown or malformed sha, or a package the commit does not have.', [CACHE.negative, CACHE.pinned], notFound),
  };
}

function operation(row: SurfaceRow, examples: ApiExamples, shared: SharedExamples): OpenApiOperation {
  const prose = OPERATIONS[row.id];
  if (!prose) throw new Error(`${row.id} is in the OpenAPI path set but has no summary in src/compose/openapi.ts`);
  const pathParameters = templateParams(row.path).map((name) => {
    const parameter = PATH_PARAMETERS[name];
    if (!parameter) throw new Error(`${row.path}: no grammar for {${name}}`);
    return parameter(row);
  });
  return {
    operationId: row.id,
    tags: [row.family === 'pinned' ? 'pinned' : 'latest'],
    summary: prose.summary,
    description: prose.description,
    parameters: [...pathParameters, ...(row.query ?? []).map(queryParameter)],
    responses: responses(row, examples, shared),
    security: row.family === 'pinned' ? [{ [SECURITY_SCHEME]: [] }] : [],
  };
}

/**
 * The component schemas: the wire schemas as zod converts its registry (each `.meta({id})` one
 * component, references between them as `$ref`), kept to those the operations reach, and the
 * official SBOM schemas, embedded.
 */
function componentSchemas(paths: unknown): Record<string, Json> {
  const converted = {
    ...(z.toJSONSchema(z.globalRegistry, { target: 'draft-2020-12', uri: (id) => `${SCHEMAS}${id}` }).schemas as Record<string, Json>),
    ...embeddedStandardSchemas(SCHEMAS),
  };
  const reached = new Map<string, Json>();
  const component = new RegExp(`^${escapeRegExp(SCHEMAS)}([^/]+)$`);
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== 'object' || value === null) return;
    for (const [key, member] of Object.entries(value)) {
      const id = key === '$ref' && typeof member === 'string' ? component.exec(member)?.[1] : undefined;
      if (id !== undefined && !reached.has(id)) {
        const schema = converted[id];
        if (!schema) throw new Error(`the OpenAPI document refers to a schema ${id} that is no wire or official schema`);
        // Each component is a subschema of this document: no dialect or base URI of its own.
        const { $schema: _dialect, $id: _base, ...rest } = schema;
        reached.set(id, rest);
        visit(rest);
      } else visit(member);
    }
  };
  visit(paths);
  return Object.fromEntries([...reached].sort(([a], [b]) => (a < b ? -1 : 1)));
}

export function composeOpenApi({ siteUrl, examples }: OpenApiInput): OpenApiDocument {
  // The document's own example: itself, its paths and components left out.
  const self = { [mediaTypeOf(surface('openapi').contentType)]: { openapi: OPENAPI_VERSION, info: { title: TITLE, version: API_VERSION }, paths: {} } };
  const withSelf: ApiExamples = { ...examples, bodies: { ...examples.bodies, openapi: self } };
  const shared = sharedExamples(withSelf);
  const paths = Object.fromEntries(API_ROWS.map((row) => [row.path, { get: operation(row, withSelf, shared) }]));
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: TITLE,
      version: API_VERSION,
      summary: 'The JSON API of a read-only package catalog: every commit of the catalog\'s main branch.',
      description: [
        'Every route answers GET and HEAD. Routes under `/api/pkgs/bundle/{sha}/...` are pinned to a commit: the body of one URL never changes, and they need a signed-in session (sign in at `POST /auth/login` and replay the `' +
          SESSION_COOKIE +
          '` cookie). Every other route floats with the latest commit and is the same for every caller.',
        `Every JSON body but the recent commits carries \`schemaVersion\`: ${SCHEMA_VERSION} for this document, whose \`info.version\` is \`<schemaVersion>.0.0\`. A body whose \`schemaVersion\` differs from this document's major version has another shape.`,
        'Query values a route does not understand fall back to their default (or are clamped); they are never an error.',
      ].join('\n\n'),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // No host: the document is the same bytes on every address it is served from (docs/decisions.md,
    // "Where a body is served"); a relative server URL is read against the document's own URL.
    servers: [{ url: new URL(siteUrl).pathname, description: 'The site that serves this document: paths are relative to its address.' }],
    tags: [
      { name: 'latest', description: 'Anonymous; the latest commit of `main`; the same answer for every caller.' },
      { name: 'pinned', description: 'Pinned to a commit by `{sha}`: one URL, one body, forever. Needs a signed-in session.' },
    ],
    paths,
    components: {
      schemas: componentSchemas(paths),
      examples: Object.fromEntries([...shared].map(([value, { name, rows }]) => [name, { summary: `The same body on ${rows.join(' and ')}`, value }])),
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE,
          description: 'The session cookie `POST /auth/login` sets (JSON `{"username", "password"}`). No API tokens exist.',
        },
      },
    },
  };
}
