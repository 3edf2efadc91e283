/**
 * The one module for the package-name and commit-sha grammar (SPEC.md "Path parameter grammar",
 * CATALOG-FORMAT.md manifest `name`). Every surface validates through these functions.
 */

/**
 * The longest package name. A name is a file name of the release (`api/pkgs/<name>.json`, written
 * through a temporary `<name>.json.tmp-<pid>-<hex>` sibling, with `.br` and `.gz` siblings beside
 * it), and file systems cut file names at 255 bytes: 128 leaves room for every suffix. A longer
 * name is a diagnostic in the catalog and a 404 in a URL.
 */
export const MAX_NAME_LENGTH = 128;

/** A package name: first character alphanumeric, then alphanumerics, `.`, `_`, `-`; at most MAX_NAME_LENGTH characters. */
export const PACKAGE_NAME = new RegExp(`^[A-Za-z0-9][A-Za-z0-9._-]{0,${MAX_NAME_LENGTH - 1}}$`);

/**
 * An advisory id (the file name of `advisories/<id>.json`, and a path segment of `/advisories/<id>`
 * and its mirror): first character alphanumeric, then alphanumerics, `.`, `_`, `-` or `:` (Red
 * Hat's and SUSE's ids have one: `RHSA-2024:1234`); at most MAX_NAME_LENGTH characters. Every OSV
 * database's ids are of this form; an id that is not (a space, a `%`) could not be one file and
 * one URL at once, so it is a diagnostic.
 */
export const ADVISORY_ID = new RegExp(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,${MAX_NAME_LENGTH - 1}}$`);

/** A canonical commit sha: 40 lowercase hex characters. */
export const FULL_SHA = /^[0-9a-f]{40}$/;

/** A short sha prefix accepted on sha-pinned routes: 7 to 39 lowercase hex characters. */
export const SHA_PREFIX = /^[0-9a-f]{7,39}$/;

/** A sha argument of a tool: 7 to 40 hex characters. */
export const TOOL_SHA = /^[0-9a-f]{7,40}$/;

/** A part of a document cut in parts (`/llms-full/{part}.txt`): 1, 2, ... without leading zeros. */
export const PART_NUMBER = /^[1-9][0-9]{0,8}$/;

export function isPackageName(value: string): boolean {
  return PACKAGE_NAME.test(value);
}

export function isAdvisoryId(value: string): boolean {
  return ADVISORY_ID.test(value);
}

/** Names are case-insensitive everywhere; this is the key every map uses. */
export function nameKey(name: string): string {
  return name.toLowerCase();
}

export function isFullSha(value: string): boolean {
  return FULL_SHA.test(value);
}

export function isShaPrefix(value: string): boolean {
  return SHA_PREFIX.test(value);
}

/**
 * Package names that would be shadowed by a fixed route under /api/pkgs/ (DECISIONS.md 4).
 * The build reports such packages as diagnostics; the fixed route wins over the package.
 */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(['bundle', 'latest', 'openapi', 'recent-commits']);

export function isReservedName(name: string): boolean {
  return RESERVED_NAMES.has(nameKey(name));
}

/** Sorts names the way every listing does: by case-folded name, then by exact spelling. */
export function compareNames(a: string, b: string): number {
  const ka = nameKey(a);
  const kb = nameKey(b);
  if (ka !== kb) return ka < kb ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
