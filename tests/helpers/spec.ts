/**
 * The contract's literal values, stated once for the tests. Tests compare what the code answers
 * with these, never with the code's own tables (src/http/cache-control.ts, content-types.ts, the
 * schema version): a test that imports the value it checks moves with the code and cannot fail.
 * Each value names the SPEC.md row it comes from (or the DECISIONS.md item, where SPEC.md is silent).
 */

/** Cache-Control values. */
export const CACHE_CONTROL = {
  /**
   * SPEC.md "Cache-Control per surface": `/api/pkgs/{name}.json`, `/api/pkgs/{name}/sbom.json`,
   * `/api/pkgs/{name}/badge.svg`, `/api/pkgs/recent-commits.json` (non-empty success); and `/pkgs/advisories.xml`.
   */
  floating: 'public, max-age=60, s-maxage=3600, stale-while-revalidate=86400',
  /**
   * SPEC.md "Cache-Control per surface": the six sha-pinned endpoints (both 401 and authenticated 200),
   * tool server responses. SPEC.md "Errors", Cache-Control of errors: a 301 from a prefix shorter than
   * 12 hex characters, other 4xx on sha-pinned endpoints, the 401.
   */
  pinned: 'private, no-store',
  /** SPEC.md "Cache-Control per surface": `/api/pkgs/bundle/latest.json`. */
  alias: 'public, max-age=60',
  /** SPEC.md "Errors", Cache-Control of errors: a 301 from a prefix of 12 or more hex characters. */
  longPrefixRedirect: 'public, max-age=3600',
  /** SPEC.md "Cache-Control per surface": `/api/pkgs/recent-commits.json` empty or failed (and "Errors": recent-commits on upstream failure or empty history). */
  noStore: 'no-store',
  /** SPEC.md "Cache-Control per surface": `/api/pkgs/openapi.json`. */
  openapi: 'public, max-age=300, s-maxage=3600, stale-while-revalidate=86400',
  /**
   * DECISIONS.md 8 (SPEC.md "Errors": "a short edge negative cache; its duration: not shown"): the 404 of a
   * well-formed but unknown sha. The gateway gives the 404 of an unknown `{name}` on a floats-latest route the same.
   */
  negative: 'public, max-age=0, s-maxage=30',
  /** DECISIONS.md 8: markdown mirrors, `llms.txt`, `sitemap.xml`, HTML pages. */
  pages: 'public, max-age=300, s-maxage=3600, stale-while-revalidate=86400',
  /** SPEC.md "Cache-Control per surface": `/pkgs/advisories.xml` (and the changes feed, beyond SPEC.md, the same). */
  feed: 'public, max-age=60, s-maxage=3600, stale-while-revalidate=86400',
  /**
   * The gateway's decision where SPEC.md is silent (docs/decisions.md "Errors"): unknown paths, 405, 500,
   * a path that is not UTF-8; and every answer of the sign-in routes (CLI.md "Signing in"). Never stored.
   */
  error: 'private, no-store',
} as const;

/**
 * SPEC.md "Endpoints" and "Tool server" 1: JSON bodies are `application/json`; as every text type
 * the gateway and the static rules send, it names its charset.
 */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** The HTML pages (the search, detail, changes and advisory pages): HTML, naming its charset like every text type. */
export const HTML_CONTENT_TYPE = 'text/html; charset=utf-8';

/** SPEC.md "SBOM documents": the media types, with the charset every JSON body of ours carries. */
export const CYCLONEDX_CONTENT_TYPE = 'application/vnd.cyclonedx+json; charset=utf-8';
export const SPDX_CONTENT_TYPE = 'application/spdx+json; charset=utf-8';

/**
 * The documents of SPEC.md "Other read-only surfaces" (and the ones beyond it): the media type of
 * each format (`text/markdown`, RFC 7763; the llms.txt format is plain text; a sitemap is XML;
 * SPEC.md: the advisory feed is Atom 1.0, RFC 4287's `application/atom+xml`), each with its charset.
 */
export const DOCUMENT_CONTENT_TYPE = {
  markdown: 'text/markdown; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  atom: 'application/atom+xml; charset=utf-8',
} as const;

/**
 * SPEC.md "Endpoints": `/api/pkgs/{name}/badge.svg` answers `image/svg+xml`; as every text type the
 * gateway and the static rules send, it names its charset.
 */
export const SVG_CONTENT_TYPE = 'image/svg+xml; charset=utf-8';

/**
 * SPEC.md "Common rule" and "Versioning" 1: every JSON payload carries `schemaVersion`. Its current
 * value ("not shown" in SPEC.md) is the project's first: 1. A change to it is a breaking change,
 * and must fail these tests.
 */
export const SCHEMA_VERSION = 1;

/**
 * SPEC.md "JSON endpoints": the twelve routes of the table, which are the OpenAPI document's path
 * set (Endpoints rule 4), and of them the six sha-pinned ones that need a session (Authentication 1).
 */
export const JSON_API_ROUTES = [
  '/api/pkgs/{name}.json',
  '/api/pkgs/{name}/sbom.json',
  '/api/pkgs/{name}/badge.svg',
  '/api/pkgs/recent-commits.json',
  '/api/pkgs/bundle/latest.json',
  '/api/pkgs/bundle/{sha}.json',
  '/api/pkgs/bundle/{sha}/full.json',
  '/api/pkgs/bundle/{sha}/diff/{base}.json',
  '/api/pkgs/bundle/{sha}/{name}/deps.json',
  '/api/pkgs/bundle/{sha}/{name}/versions.json',
  '/api/pkgs/bundle/{sha}/{name}/sbom.json',
  '/api/pkgs/openapi.json',
] as const;

export const SHA_PINNED_ROUTES = JSON_API_ROUTES.filter((route) => route.startsWith('/api/pkgs/bundle/{sha}'));

/**
 * SPEC.md Limits and "Tool server" 4: "tool request body: 256 KB maximum; larger gives 413". KB is
 * read as 1024 bytes (docs/decisions.md): a body of exactly this many bytes is taken, one more is not.
 */
export const TOOL_BODY_LIMIT_BYTES = 256 * 1024;

/** SPEC.md Versioning 3: the tool server reports its version as `<schemaVersion>.0.0`. */
export const TOOL_SERVER_VERSION = `${SCHEMA_VERSION}.0.0`;

/** SPEC.md "Tool server", Tools: the eight tools. */
export const TOOL_NAMES = [
  'search_packages',
  'get_package',
  'get_package_versions',
  'get_advisories',
  'get_dependencies',
  'get_sbom',
  'list_catalog_commits',
  'diff_catalog',
] as const;
