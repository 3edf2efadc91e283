/**
 * THE surface registry: one row per surface of the service, those served today and those still
 * to come. Data only. Everything that knows a URL reads it from here: the gateway's routes
 * (gateway/routes.ts), the files a release holds (build/publish.ts), the header rules for static
 * hosts (src/http/static-rules.ts), the links inside a package record (packageLinks), the build's
 * self-validation (build/validate.ts), the links of the documents and the sitemap (src/compose/documents.ts
 * siteLink), and, as it arrives, the OpenAPI document.
 *
 * Rows are matched in order, so a fixed path comes before the `{name}` pattern it would
 * otherwise lose to (a package named like a fixed route is reported by the build; the fixed
 * route wins). docs/api.md describes each surface for users.
 */
import { CACHE } from '../http/cache-control.ts';
import { CONTENT_TYPE } from '../http/content-types.ts';
import type { WireName } from '../schemas/wire.ts';
import { COMMITS_LIMIT } from '../compose/commits.ts';
import { memoized } from '../memo.ts';

/**
 * floating: no sha in the path; anonymous; the latest state; the same bytes for every caller.
 * pinned:   under /api/pkgs/bundle/{sha}/...; behind the session gate; content-addressed.
 * alias:    an anonymous redirect to a pinned URL.
 * document: an anonymous page or document for people, agents and crawlers (latest state).
 * tool:     the MCP tool server (POST).
 * digest:   anonymous, about one commit (`{sha}`): the signed digest of its sha-pinned bodies.
 */
export type Family = 'floating' | 'pinned' | 'alias' | 'document' | 'tool' | 'digest';

/** A query parameter and the rule for values it does not understand (never a 400). */
export type QueryParameter =
  | {
      readonly name: string;
      readonly kind: 'integer';
      readonly default: number;
      readonly min: number;
      readonly max: number;
      /** What happens to other values. */
      readonly fallback: string;
    }
  | {
      readonly name: string;
      readonly kind: 'enum';
      readonly values: readonly string[];
      readonly default: string;
      readonly fallback: string;
      /**
       * Each value but the default has a public file of its own beside the row's (variantFile), so a
       * static host can answer it too: the build writes it, the nginx rules route `?name=value` to it.
       */
      readonly variantFiles?: boolean;
    }
  | {
      /** Free text: the first value, control characters dropped, trimmed, cut to `maxLength` characters; empty gives ''. */
      readonly name: string;
      readonly kind: 'text';
      readonly maxLength: number;
      readonly fallback: string;
    };

export interface SurfaceRow {
  /** Stable identifier: the gateway's resolvers and the build's writers are keyed by it. */
  readonly id: string;
  /** URL path template; `{name}`, `{sha}`, `{base}`, `{id}`, `{part}` are parameters (grammar in src/grammar.ts). */
  readonly path: string;
  readonly method: 'GET' | 'POST';
  readonly family: Family;
  /** Content-Type of a success; a resolver may pick another listed here (an SBOM's follows its format). */
  readonly contentType: string;
  /** Cache-Control of a success (src/http/cache-control.ts). */
  readonly cacheControl: string;
  /** Wire schema of a JSON body (src/schemas/wire.ts); absent for non-JSON or external formats. */
  readonly body?: WireName;
  readonly query?: readonly QueryParameter[];
  /**
   * The file it becomes in a release's public/ (a URL path without its leading slash, same
   * parameters as `path`), for static hosts; absent when only the gateway can answer it.
   */
  readonly publicFile?: string;
  /** In the OpenAPI document's path set (the JSON API). */
  readonly openapi: boolean;
  /** Served by this version; false: specified and coming (answers 404 until then). */
  readonly served: boolean;
  /** Which row of the specification it implements, for maintainers. */
  readonly source: string;
}

const FORMAT: QueryParameter = {
  name: 'format',
  kind: 'enum',
  values: ['cyclonedx', 'spdx'],
  default: 'cyclonedx',
  fallback: '`spdx` gives SPDX 2.3; any other value, or none, gives CycloneDX 1.5',
};

const METRIC: QueryParameter = {
  name: 'metric',
  kind: 'enum',
  values: ['score', 'advisories'],
  default: 'score',
  fallback: 'any other value, or none, gives the score badge',
  variantFiles: true,
};

/** Beyond SPEC.md: shields' five styles (src/compose/badge.ts checks them against badge-maker's). */
const STYLE: QueryParameter = {
  name: 'style',
  kind: 'enum',
  values: ['flat', 'flat-square', 'plastic', 'for-the-badge', 'social'],
  default: 'flat',
  fallback: 'any other value, or none, gives flat',
};

/** Beyond SPEC.md: the badge's left-hand text. */
const LABEL: QueryParameter = {
  name: 'label',
  kind: 'text',
  maxLength: 40,
  fallback: 'control characters are dropped and the rest cut to 40 characters; empty, or none, gives the metric\'s own label (`scorecard`, `advisories`)',
};

const LIMIT: QueryParameter = {
  name: 'limit',
  kind: 'integer',
  ...COMMITS_LIMIT,
  fallback: 'clamped into [1, 50]; a value that is not a number gives 30',
};

const pinned = (id: string, path: string, body: WireName | undefined, source: string, extra: Partial<SurfaceRow> = {}): SurfaceRow => ({
  id,
  path,
  method: 'GET',
  family: 'pinned',
  contentType: CONTENT_TYPE.json,
  cacheControl: CACHE.pinned,
  body,
  openapi: true,
  served: true,
  source,
  ...extra,
});

const document = (id: string, path: string, contentType: string, cacheControl: string, publicFile: string, source: string): SurfaceRow => ({
  id,
  path,
  method: 'GET',
  family: 'document',
  contentType,
  cacheControl,
  publicFile,
  openapi: false,
  served: false,
  source,
});

export const SURFACES = [
  // Fixed paths under /api/pkgs/ first.
  {
    id: 'recent-commits',
    path: '/api/pkgs/recent-commits.json',
    method: 'GET',
    family: 'floating',
    contentType: CONTENT_TYPE.json,
    cacheControl: CACHE.floating,
    body: 'RecentCommits',
    query: [LIMIT],
    publicFile: 'api/pkgs/recent-commits.json',
    openapi: true,
    served: true,
    source: 'SPEC.md Endpoints: GET /api/pkgs/recent-commits.json',
  },
  {
    id: 'openapi',
    path: '/api/pkgs/openapi.json',
    method: 'GET',
    family: 'floating',
    contentType: CONTENT_TYPE.json,
    cacheControl: CACHE.openapi,
    publicFile: 'api/pkgs/openapi.json',
    openapi: true,
    served: true,
    source: 'SPEC.md Endpoints: GET /api/pkgs/openapi.json',
  },
  {
    id: 'latest-bundle',
    path: '/api/pkgs/bundle/latest.json',
    method: 'GET',
    family: 'alias',
    contentType: CONTENT_TYPE.json,
    cacheControl: CACHE.alias,
    openapi: true,
    served: true,
    source: 'SPEC.md Endpoints: GET /api/pkgs/bundle/latest.json',
  },
  // Sha-pinned: the `{name}` rows before diff, so a package named `diff` keeps its deps.json and versions.json.
  pinned('listing-bundle', '/api/pkgs/bundle/{sha}.json', 'ListingBundle', 'SPEC.md Endpoints: GET /api/pkgs/bundle/{sha}.json'),
  pinned('full-bundle', '/api/pkgs/bundle/{sha}/full.json', 'FullBundle', 'SPEC.md Endpoints: GET /api/pkgs/bundle/{sha}/full.json'),
  pinned('pinned-deps', '/api/pkgs/bundle/{sha}/{name}/deps.json', 'Dependencies', 'SPEC.md Endpoints: GET .../{name}/deps.json'),
  pinned('pinned-versions', '/api/pkgs/bundle/{sha}/{name}/versions.json', 'VersionHistory', 'SPEC.md Endpoints: GET .../{name}/versions.json'),
  pinned('pinned-sbom', '/api/pkgs/bundle/{sha}/{name}/sbom.json', undefined, 'SPEC.md Endpoints: GET .../{name}/sbom.json', {
    contentType: CONTENT_TYPE.cyclonedx,
    query: [FORMAT],
  }),
  pinned('diff', '/api/pkgs/bundle/{sha}/diff/{base}.json', 'Diff', 'SPEC.md Endpoints: GET /api/pkgs/bundle/{sha}/diff/{base}.json'),
  // Floats-latest by name, after every fixed path.
  {
    id: 'package-sbom',
    path: '/api/pkgs/{name}/sbom.json',
    method: 'GET',
    family: 'floating',
    contentType: CONTENT_TYPE.cyclonedx,
    cacheControl: CACHE.floating,
    query: [FORMAT],
    // The default format; SPDX is composed by the gateway on request (gateway/answers/sbom.ts).
    publicFile: 'api/pkgs/{name}/sbom.json',
    openapi: true,
    served: true,
    source: 'SPEC.md Endpoints: GET /api/pkgs/{name}/sbom.json',
  },
  {
    id: 'package-badge',
    path: '/api/pkgs/{name}/badge.svg',
    method: 'GET',
    family: 'floating',
    contentType: CONTENT_TYPE.svg,
    cacheControl: CACHE.floating,
    query: [METRIC, STYLE, LABEL],
    publicFile: 'api/pkgs/{name}/badge.svg',
    openapi: true,
    served: true,
    source: 'SPEC.md Endpoints: GET /api/pkgs/{name}/badge.svg',
  },
  {
    id: 'package',
    path: '/api/pkgs/{name}.json',
    method: 'GET',
    family: 'floating',
    contentType: CONTENT_TYPE.json,
    cacheControl: CACHE.floating,
    body: 'PackageEnvelope',
    publicFile: 'api/pkgs/{name}.json',
    openapi: true,
    served: true,
    source: 'SPEC.md Endpoints: GET /api/pkgs/{name}.json',
  },
  // Documents for people, agents and crawlers (SPEC.md "Other read-only surfaces"; pages, changes and advisory pages beyond it).
  { ...document('advisory-feed', '/pkgs/advisories.xml', CONTENT_TYPE.atom, CACHE.feed, 'pkgs/advisories.xml', 'SPEC.md Other read-only surfaces: /pkgs/advisories.xml'), served: true },
  { ...document('changes-feed', '/pkgs/changes.xml', CONTENT_TYPE.atom, CACHE.feed, 'pkgs/changes.xml', 'beyond SPEC.md: an Atom feed of recent changes'), served: true },
  { ...document('package-markdown', '/pkgs/{name}.md', CONTENT_TYPE.markdown, CACHE.pages, 'pkgs/{name}.md', 'SPEC.md Other read-only surfaces: /pkgs/{name}.md'), served: true },
  { ...document('package-page', '/pkgs/{name}', CONTENT_TYPE.html, CACHE.pages, 'pkgs/{name}.html', 'SPEC.md: the package detail page (the record\'s `page` link)'), served: true },
  { ...document('advisory-markdown', '/advisories/{id}.md', CONTENT_TYPE.markdown, CACHE.pages, 'advisories/{id}.md', 'beyond SPEC.md: an advisory\'s markdown mirror'), served: true },
  { ...document('advisory-page', '/advisories/{id}', CONTENT_TYPE.html, CACHE.pages, 'advisories/{id}.html', 'beyond SPEC.md: a page per active advisory'), served: true },
  { ...document('changes-page', '/changes', CONTENT_TYPE.html, CACHE.pages, 'changes.html', 'SPEC.md: the changes page (diff rule: same helper)'), served: true },
  { ...document('llms-txt', '/llms.txt', CONTENT_TYPE.text, CACHE.pages, 'llms.txt', 'SPEC.md Other read-only surfaces: /llms.txt'), served: true },
  { ...document('llms-full-txt', '/llms-full.txt', CONTENT_TYPE.text, CACHE.pages, 'llms-full.txt', 'beyond SPEC.md: every markdown mirror, its first part'), served: true },
  { ...document('llms-full-part', '/llms-full/{part}.txt', CONTENT_TYPE.text, CACHE.pages, 'llms-full/{part}.txt', 'beyond SPEC.md: every markdown mirror, in parts of a bounded size'), served: true },
  { ...document('sitemap', '/sitemap.xml', CONTENT_TYPE.xml, CACHE.pages, 'sitemap.xml', 'SPEC.md Other read-only surfaces: /sitemap.xml'), served: true },
  { ...document('search-page', '/', CONTENT_TYPE.html, CACHE.pages, 'index.html', 'SPEC.md: the search page (inline listing bundle)'), served: true },
  {
    id: 'commit-digest',
    path: '/api/digests/{sha}.json',
    method: 'GET',
    family: 'digest',
    contentType: CONTENT_TYPE.json,
    cacheControl: CACHE.digest,
    body: 'SignedDigest',
    openapi: false,
    served: true,
    source: 'beyond SPEC.md: the signed digest of a commit and its history, for mirrors (docs/deployment.md)',
  },
  {
    id: 'tool-server',
    path: '/api/mcp',
    method: 'POST',
    family: 'tool',
    contentType: CONTENT_TYPE.json,
    cacheControl: CACHE.tool,
    openapi: false,
    served: true,
    source: 'SPEC.md Tool server: POST /api/mcp',
  },
] as const satisfies readonly SurfaceRow[];

export type SurfaceId = (typeof SURFACES)[number]['id'];

/** The row of `id`. */
export function surface(id: SurfaceId): SurfaceRow {
  return SURFACES.find((row) => row.id === id)!;
}

/** What a request without query parameter `name` of `row` gets ('' for free text). */
export function queryDefault(row: SurfaceRow, name: string): string | number {
  const parameter = row.query?.find((candidate) => candidate.name === name);
  if (!parameter) throw new Error(`${row.id} has no query parameter ${name}`);
  return parameter.kind === 'text' ? '' : parameter.default;
}

/** The rows this version serves. */
export const SERVED: readonly SurfaceRow[] = SURFACES.filter((row) => row.served);

/** The rows whose files a release's public/ holds, in registry order. */
export const PUBLIC_SURFACE_IDS: readonly string[] = SERVED.filter((row) => row.publicFile !== undefined).map((row) => row.id);

/** A template cut at its `{param}`s: literal text at even places, parameter names at odd ones (cut once per template). */
const templateParts = memoized((template: string): readonly string[] => template.split(/\{(\w+)\}/));

/** `template` (a path or publicFile) with its `{param}`s filled in, percent-encoding each value. */
export function fillTemplate(template: string, params: Readonly<Record<string, string>>): string {
  // Called for every file of a release, and for every link of its documents.
  const parts = templateParts(template);
  let filled = parts[0];
  for (let at = 1; at < parts.length; at += 2) {
    const value = params[parts[at]];
    if (value === undefined) throw new Error(`${template}: no value for {${parts[at]}}`);
    filled += encodeURIComponent(value) + parts[at + 1];
  }
  return filled;
}

/**
 * The public file template holding the answer to `value` of a `variantFiles` parameter: `.value`
 * goes before the extension of the row's file (`api/pkgs/{name}/badge.svg` and `metric=advisories`
 * give `api/pkgs/{name}/badge.advisories.svg`; `sbom.json` and `format=spdx`, `sbom.spdx.json`).
 */
export function variantFile(publicFile: string, value: string): string {
  const dot = publicFile.lastIndexOf('.');
  if (dot <= publicFile.lastIndexOf('/')) throw new Error(`${publicFile}: a file with variants needs an extension`);
  return `${publicFile.slice(0, dot)}.${value}${publicFile.slice(dot)}`;
}

/** A public file of a row: its template and the query values it answers (none: the defaults). */
export interface PublicFileTemplate {
  readonly template: string;
  readonly query: Readonly<Record<string, string>>;
}

type EnumParameter = Extract<QueryParameter, { kind: 'enum' }>;

/** The row's `variantFiles` parameter, if any (one at most: a file name carries one variant). */
function variantParameter(row: SurfaceRow): EnumParameter | null {
  const found = (row.query ?? []).filter((parameter): parameter is EnumParameter => parameter.kind === 'enum' && parameter.variantFiles === true);
  if (found.length > 1) throw new Error(`${row.id}: more than one query parameter has variant files`);
  return found[0] ?? null;
}

/** Every public file of `row`: its own (the defaults), then one per non-default value of its `variantFiles` parameter. */
export function publicFileTemplates(row: SurfaceRow): PublicFileTemplate[] {
  if (row.publicFile === undefined) return [];
  const parameter = variantParameter(row);
  const variants = (parameter?.values ?? []).filter((value) => value !== parameter!.default);
  return [
    { template: row.publicFile, query: {} },
    ...variants.map((value) => ({ template: variantFile(row.publicFile!, value), query: { [parameter!.name]: value } })),
  ];
}

/** The public file template answering the resolved `query` on `row`: its own file, or the variant of a non-default value. */
export function publicFileFor(row: SurfaceRow, query: Readonly<Record<string, string | number>>): string {
  if (row.publicFile === undefined) throw new Error(`${row.id} has no public file`);
  const parameter = variantParameter(row);
  const value = parameter && query[parameter.name];
  return parameter && value !== undefined && value !== parameter.default ? variantFile(row.publicFile, String(value)) : row.publicFile;
}

/** The parameter names of a template, in order. */
export function templateParams(template: string): string[] {
  return [...template.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
}

/** `text` with the characters special in a regular expression escaped. */
export const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A template as an anchored regular expression source: a parameter is one path segment, captured when asked. */
export const templatePattern = (template: string, capture = false) => `^${template.split(/\{\w+\}/).map(escapeRegExp).join(capture ? '([^/]+)' : '[^/]+')}$`;

/** Every public file template of the served rows (their own and their variants), and the pattern of its files (template parameters as groups). */
const PUBLIC_FILE_PATTERNS = SERVED.flatMap((row) =>
  publicFileTemplates(row).map(({ template, query }) => ({ row, query, names: templateParams(template), pattern: new RegExp(templatePattern(template, true)) })),
);

/**
 * The served row whose public file (its own, or a variant answering `query`) is `file` (a path of a
 * release's public/), with its template parameters; null for none.
 */
export function publicFileOwner(file: string): { row: SurfaceRow; params: Record<string, string>; query: Readonly<Record<string, string>> } | null {
  for (const { row, query, names, pattern } of PUBLIC_FILE_PATTERNS) {
    const match = pattern.exec(file);
    if (match) return { row, query, params: Object.fromEntries(names.map((name, index) => [name, decodeURIComponent(match[index + 1])])) };
  }
  return null;
}

/** Where a package's other surfaces live, relative to the site root (the record's `links`). */
export function packageLinks(name: string) {
  return {
    self: fillTemplate(surface('package').path, { name }),
    page: fillTemplate(surface('package-page').path, { name }),
    markdown: fillTemplate(surface('package-markdown').path, { name }),
    sbom: fillTemplate(surface('package-sbom').path, { name }),
    badge: fillTemplate(surface('package-badge').path, { name }),
  };
}
