/**
 * The schemas of the catalog's own files: `packages/<name>/manifest.json`, `advisories/<id>.json`
 * (OSV) and `packages/<name>/scorecard.json`, as a catalog maintainer writes them. Each message
 * is written for that maintainer: it names the field (its path in quotes) and what it must be,
 * and `describeIssues` lists every bad field of a file in one line.
 *
 * Pure: zod and the name grammar only, no I/O. src/catalog/parse.ts runs them on file bytes.
 */
import { z } from 'zod';
import { MAX_NAME_LENGTH, isAdvisoryId, isPackageName, nameKey } from '../grammar.ts';
import { quoted } from '../quote.ts';

/** One problem in a file: the field's path (`archive.sha256`, `checks[2].name`; empty for the whole file) and what is wrong. */
export interface FieldIssue {
  path: string;
  message: string;
}

/** How the grammar of a package name reads in a message. */
export const PACKAGE_NAME_RULE = `a letter or digit, then letters, digits, ".", "_" or "-"; at most ${MAX_NAME_LENGTH} characters`;

/** How the grammar of an advisory id reads in a message. */
export const ADVISORY_ID_RULE = `a letter or digit, then letters, digits, ".", "_", "-" or ":"; at most ${MAX_NAME_LENGTH} characters`;

/** A type error's message: "is required" when the field is absent, `otherwise` when it has the wrong type. */
const requiredOr = (otherwise: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : otherwise);

const SHA256 = /^[0-9a-f]{64}$/;

/**
 * Schemes of the links in catalog data that pages and SBOMs show (`homepage`, `repository`, an
 * advisory's `references[].url`): the web's. Anything else (`javascript:`, `data:`, `file:`, a
 * URL without a scheme) is dropped with a warning (src/catalog/parse.ts).
 */
export const WEB_URL_SCHEMES: readonly string[] = ['http', 'https'];

/**
 * Schemes of `archive.url`: the web's, and git's over them or over ssh (`git+https://host/repo@ref`,
 * as vcpkg_from_git writes a source archive). A manifest whose archive has another is unusable.
 */
export const ARCHIVE_URL_SCHEMES: readonly string[] = ['http', 'https', 'git+http', 'git+https', 'git+ssh'];

/** `<scheme>://`, as written at the very start of the value (no leading space, no scheme-relative `//`). */
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;

/** Whether `value` is an absolute URL, written `<scheme>://...`, with one of `schemes` (any case). */
export function isUrlWithScheme(value: string, schemes: readonly string[]): boolean {
  const scheme = SCHEME.exec(value)?.[1].toLowerCase();
  return scheme !== undefined && schemes.includes(scheme) && URL.canParse(value);
}

/** How a rule on schemes reads in a message: `an http(s) URL`, `an http(s), git+http(s) or git+ssh URL`. */
export const WEB_URL_RULE = 'an http(s) URL';
const ARCHIVE_URL_RULE = 'an http(s), git+http(s) or git+ssh URL';

const requiredString = z.string({ error: requiredOr('must be a string') });
const optionalString = z.string({ error: 'must be a string' }).optional();
/** A required string with something in it besides white space. */
const nonBlankString = requiredString.refine((value) => value.trim() !== '', { error: 'must not be empty' });

const packageName = (type: string) =>
  z.string({ error: requiredOr(type) }).refine(isPackageName, {
    error: (issue) => `must be a package name (${PACKAGE_NAME_RULE}), not ${quoted(String(issue.input))}`,
  });

/** A list of dependency names, de-duplicated case-insensitively (the first spelling is kept). */
const dependencyList = z
  .array(packageName('must be a string'), { error: 'must be an array of package names' })
  .transform((names) => {
    const seen = new Set<string>();
    return names.filter((name) => !seen.has(nameKey(name)) && Boolean(seen.add(nameKey(name))));
  })
  .optional();

/**
 * `packages/<name>/manifest.json`, parsed into the manifest composition uses: defaults filled in
 * (`categories` [], `stars` 0, no dependencies), categories without repeats, fields the format
 * does not name dropped. That the name equals its directory's is checked by the caller, which
 * knows the directory.
 */
export const ManifestSchema = z.object(
  {
    name: packageName('must be a string'),
    version: nonBlankString,
    description: requiredString,
    license: nonBlankString,
    homepage: optionalString,
    repository: optionalString,
    categories: z
      .array(z.string({ error: 'must be a string' }), { error: 'must be an array of strings' })
      .optional()
      .transform((categories) => [...new Set(categories ?? [])]),
    stars: z
      .number({ error: 'must be an integer >= 0' })
      .refine((stars) => Number.isInteger(stars) && stars >= 0, { error: 'must be an integer >= 0' })
      .optional()
      .transform((stars) => stars ?? 0),
    archive: z.object(
      {
        url: requiredString
          .refine((url) => url !== '', { error: 'must not be empty', abort: true })
          .refine((url) => isUrlWithScheme(url, ARCHIVE_URL_SCHEMES), { error: (issue) => `must be ${ARCHIVE_URL_RULE}, not ${quoted(String(issue.input))}` }),
        sha256: z.string({ error: requiredOr('must be 64 lowercase hex characters') }).regex(SHA256, { error: 'must be 64 lowercase hex characters' }),
      },
      { error: requiredOr('must be an object {url, sha256}') },
    ),
    dependencies: z
      .looseObject({ build: dependencyList, runtime: dependencyList }, { error: 'must be an object {build?, runtime?}' })
      .optional()
      .transform((dependencies) => ({ build: dependencies?.build ?? [], runtime: dependencies?.runtime ?? [] })),
  },
  { error: 'must be a JSON object' },
);

/** A validated manifest, with defaults filled in. */
export type Manifest = z.output<typeof ManifestSchema>;

/**
 * `advisories/<id>.json`: an OSV record. Only what the catalog relies on is checked (`id`,
 * `modified`, the type of `affected` and `withdrawn`); the record is kept as written. That the
 * `id` equals the file name is checked by the caller.
 */
export const AdvisorySchema = z.looseObject(
  {
    id: requiredString
      .refine((id) => id !== '', { error: 'must not be empty', abort: true })
      .refine(isAdvisoryId, { error: (issue) => `must be an advisory id (${ADVISORY_ID_RULE}), not ${quoted(String(issue.input))}` }),
    modified: requiredString,
    affected: z.array(z.unknown(), { error: 'must be an array' }).optional(),
    withdrawn: z.string({ error: 'must be a timestamp string' }).optional(),
  },
  { error: 'must be a JSON object' },
);

const SCORE_RULE = 'must be a number from 0 to 10, or -1';

/** `packages/<name>/scorecard.json`: what `scorecard --format=json` prints; kept as written. */
export const ScorecardSchema = z.looseObject(
  {
    score: z
      .number({ error: requiredOr(SCORE_RULE) })
      .refine((score) => score === -1 || (score >= 0 && score <= 10), { error: SCORE_RULE }),
    checks: z.array(
      z.looseObject(
        {
          name: requiredString,
          score: z.number({ error: requiredOr('must be a number') }),
        },
        { error: 'must be an object with a string "name" and a numeric "score"' },
      ),
      { error: requiredOr('must be an array') },
    ),
  },
  { error: 'must be a JSON object' },
);

/** `archive.sha256`, `dependencies.build[2]`: a zod path as a maintainer reads it. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const part of path) {
    if (typeof part === 'number') text += `[${part}]`;
    else text += text === '' ? String(part) : `.${String(part)}`;
  }
  return text;
}

/** The problems of a failed parse, in the order of the schema's fields. */
export function fieldIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.map((issue) => ({ path: fieldPath(issue.path), message: issue.message }));
}

/** The most problems one diagnostic names; the rest are counted (a list of 50,000 bad entries is one short line). */
export const MAX_LISTED_ISSUES = 10;

/**
 * One line naming every problem: `manifest.json: "version" is required; "stars" must be an
 * integer >= 0`. A problem of the whole file (empty path) reads without quotes. Past
 * MAX_LISTED_ISSUES, the rest are counted: `; and 49990 more problems`.
 */
export function describeIssues(file: string, issues: readonly FieldIssue[]): string {
  const listed = issues.slice(0, MAX_LISTED_ISSUES).map((issue) => (issue.path === '' ? issue.message : `"${issue.path}" ${issue.message}`));
  if (issues.length > MAX_LISTED_ISSUES) listed.push(`and ${issues.length - MAX_LISTED_ISSUES} more problems`);
  return `${file}: ${listed.join('; ')}`;
}
