/**
 * The one table of Cache-Control values. Every response the gateway writes takes its value
 * from here (the sign-in routes' too), and so do the header rules the build writes for static
 * hosts (src/http/static-rules.ts): it lives under src/ because the build may not import gateway/.
 */
export const CACHE = {
  /** SPEC.md "Cache-Control per surface": `/api/pkgs/{name}.json`, `{name}/sbom.json`, `{name}/badge.svg`, recent-commits (non-empty success). */
  floating: 'public, max-age=60, s-maxage=3600, stale-while-revalidate=86400',
  /** SPEC.md: the six sha-pinned endpoints, 200 and 401; Errors: a 301 from a prefix under 12 hex, other 4xx on sha-pinned endpoints. */
  pinned: 'private, no-store',
  /** SPEC.md: `/api/pkgs/bundle/latest.json` (its 302, and its 404 on a catalog with no commits). */
  alias: 'public, max-age=60',
  /** SPEC.md Errors: a 301 from a prefix of 12 or more hex characters. */
  longPrefixRedirect: 'public, max-age=3600',
  /**
   * DECISIONS.md 8: the 404 of a well-formed (7 to 40 hex) but unknown sha, a short edge negative cache.
   * Also used (gateway decision, SPEC.md silent) for the 404 of an unknown or malformed `{name}` on
   * a floats-latest route: the same reasoning, a name may appear with the next commit.
   */
  negative: 'public, max-age=0, s-maxage=30',
  /** SPEC.md: `/api/pkgs/recent-commits.json` when the history is empty or cannot be read. */
  noStore: 'no-store',
  /** SPEC.md: `/api/pkgs/openapi.json` (a later row). */
  openapi: 'public, max-age=300, s-maxage=3600, stale-while-revalidate=86400',
  /** DECISIONS.md 8: markdown mirrors, `llms.txt`, `sitemap.xml`, HTML pages (later rows). */
  pages: 'public, max-age=300, s-maxage=3600, stale-while-revalidate=86400',
  /** SPEC.md "Cache-Control per surface": tool server responses (`POST /api/mcp`), every one of them, errors included. */
  tool: 'private, no-store',
  /**
   * Gateway decision: `/api/digests/{sha}.json`. A commit's digest never changes, but the signatures
   * beside it do when a key is added or rolled over: cached like the other anonymous documents.
   */
  digest: 'public, max-age=300, s-maxage=3600, stale-while-revalidate=86400',
  /** SPEC.md: `/pkgs/advisories.xml` (a later row). */
  feed: 'public, max-age=60, s-maxage=3600, stale-while-revalidate=86400',
  /** Gateway decision: unknown paths, unreadable request bodies (400, 413, 415), 405, 500, 503. Nothing about them is worth caching anywhere. */
  error: 'private, no-store',
  /** Gateway decision (CLI.md "Signing in"): every answer of `/auth/*` (form, sign-in, sign-out, their errors) is per caller. */
  auth: 'private, no-store',
  /** Gateway decision: `/healthz`, the state of this process now; never cached, by anyone. */
  health: 'no-store',
} as const;

export type CacheControl = (typeof CACHE)[keyof typeof CACHE];
