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

/**
 * SPEC.md "Common rule" and "Versioning" 1: every JSON payload carries `schemaVersion`. Its current
 * value ("not shown" in SPEC.md) is the project's first: 1. A change to it is a breaking change,
 * and must fail these tests.
 */
export const SCHEMA_VERSION = 1;
