/**
 * The wire schemas: the one description of every JSON body pkgcat emits. From these come the
 * TypeScript types of the composed payloads (src/compose), the build's check of every body it
 * publishes (build/validate.ts), and (with the surface registry) the OpenAPI document and the
 * tool server's output schemas. Objects are strict: a field the schema does not name is an
 * error, so a payload cannot grow a field that the published contract does not show.
 *
 * Pure: zod only, no I/O.
 */
import { z } from 'zod';
import { FULL_SHA, PACKAGE_NAME } from '../grammar.ts';

import { SCHEMA_VERSION } from './version.ts';

export { SCHEMA_VERSION };

const schemaVersion = z.literal(SCHEMA_VERSION).describe('Wire schema version; compare it with the OpenAPI document\'s major version.');
const sha = z.string().regex(FULL_SHA).describe('A 40-character lowercase hex commit sha of the catalog\'s main branch.');
const timestamp = z.iso.datetime().describe('ISO-8601 UTC timestamp (the commit\'s committer time).');
const packageName = z.string().regex(PACKAGE_NAME).describe('A package name: first character alphanumeric, then alphanumerics, `.`, `_`, `-`; at most 128 characters.');

export const Severity = z.enum(['critical', 'high', 'medium', 'low', 'unknown']).describe('Advisory severity, lowercase.');

export const CommitInfo = z
  .strictObject({
    sha,
    message: z.string().nullable().describe('First line of the commit message; null when empty or not valid UTF-8.'),
    pushedAt: timestamp,
  })
  .meta({ id: 'Commit' });

export const RecentCommits = z.array(CommitInfo).describe('Distinct commits of main, newest first.').meta({ id: 'RecentCommits' });

export const DependencySets = z
  .strictObject({
    build: z.array(packageName).describe('Build-time dependencies, by catalog package name.'),
    runtime: z.array(packageName).describe('Runtime dependencies, by catalog package name.'),
  })
  .meta({ id: 'DependencySets' });

export const SlimAdvisory = z
  .strictObject({ id: z.string(), severity: Severity, summary: z.string().nullable() })
  .meta({ id: 'SlimAdvisory' });

export const FullAdvisory = z
  .strictObject({
    id: z.string(),
    summary: z.string().nullable(),
    details: z.string().nullable(),
    aliases: z.array(z.string()),
    published: z.string().nullable(),
    modified: z.string(),
    severity: Severity,
    cvss: z.strictObject({ version: z.string(), vector: z.string(), score: z.number() }).nullable(),
    affectedPackage: packageName.describe('The package this advisory object is seen from (in the full bundle\'s map: the alphabetically first active one).'),
    fixedIn: z.array(z.string()).describe('Versions that fix it for the affected package.'),
    references: z.array(z.looseObject({ type: z.string().optional(), url: z.string().optional() })),
  })
  .meta({ id: 'Advisory' });

export const Scorecard = z
  .looseObject({
    date: z.string().optional(),
    repo: z.looseObject({ name: z.string().optional(), commit: z.string().optional() }).optional(),
    scorecard: z.looseObject({ version: z.string().optional(), commit: z.string().optional() }).optional(),
    score: z.number().min(-1).max(10).describe('OpenSSF Scorecard overall score, 0 to 10, or -1 when unknown.'),
    checks: z.array(
      z.looseObject({
        name: z.string(),
        score: z.number(),
        reason: z.string().optional(),
        details: z.array(z.string()).nullable().optional(),
        documentation: z.looseObject({ short: z.string().optional(), url: z.string().optional() }).optional(),
      }),
    ),
    normalizedScore: z.number().int().min(0).max(100).nullable().describe('round(score * 10); null when the score is unknown.'),
  })
  .meta({ id: 'Scorecard' });

export const PackageLinks = z
  .strictObject({ self: z.string(), page: z.string(), markdown: z.string(), sbom: z.string(), badge: z.string() })
  .describe('Where the package\'s other surfaces live, relative to the site root.')
  .meta({ id: 'PackageLinks' });

export const PackageRecord = z
  .strictObject({
    name: packageName,
    version: z.string(),
    description: z.string(),
    license: z.string().describe('SPDX license expression, as the catalog gives it.'),
    homepage: z.string().nullable(),
    repository: z.string().nullable(),
    categories: z.array(z.string()),
    stars: z.number().int().min(0),
    archive: z.strictObject({ url: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
    dependencies: DependencySets,
    reverseDependencies: z.array(packageName).describe('Packages that list this one as a dependency at this commit.'),
    advisories: z.array(FullAdvisory).describe('Active direct advisories.'),
    scorecard: Scorecard.nullable(),
    links: PackageLinks,
  })
  .meta({ id: 'PackageRecord' });

export const PackageEnvelope = z
  .strictObject({ schemaVersion, commitSha: sha, pushedAt: timestamp, package: PackageRecord })
  .meta({ id: 'PackageEnvelope' });

export const PackageCard = z
  .strictObject({
    name: packageName,
    version: z.string(),
    description: z.string(),
    license: z.string(),
    categories: z.array(z.string()),
    stars: z.number().int().min(0),
    advisories: z.array(SlimAdvisory),
    maxSeverity: Severity.nullable(),
  })
  .meta({ id: 'PackageCard' });

export const ListingBundle = z
  .strictObject({
    schemaVersion,
    commitSha: sha,
    pushedAt: timestamp,
    packages: z.array(PackageCard),
    allCategories: z.array(z.string()),
  })
  .meta({ id: 'ListingBundle' });

/**
 * The most names a culprit path holds. A longer shortest path (only a dependency chain or cycle
 * through dozens of packages makes one) keeps its first MAX_CULPRIT_PATH - 1 packages and the
 * culprit, so a package's rollup stays in proportion to the advisories it reaches, not to the
 * length of the catalog's chains (docs/decisions.md "Transitive rollups").
 */
export const MAX_CULPRIT_PATH = 64;

export const TransitiveAdvisory = z
  .strictObject({
    advisoryId: z.string(),
    culpritPath: z
      .array(packageName)
      .min(2)
      .max(MAX_CULPRIT_PATH)
      .describe(
        `From the package to the culprit carrying the advisory, both included: the shortest path, ties broken by names. ` +
          `A path longer than ${MAX_CULPRIT_PATH} names keeps its first ${MAX_CULPRIT_PATH - 1} and the culprit; ` +
          `the entry of the ${MAX_CULPRIT_PATH - 1}th package for the same advisory continues it.`,
      ),
  })
  .meta({ id: 'TransitiveAdvisory' });

export const FullBundle = z
  .strictObject({
    schemaVersion,
    commitSha: sha,
    pushedAt: timestamp,
    packages: z.array(PackageRecord),
    advisories: z.record(z.string(), FullAdvisory).describe('Every active advisory once, by id.'),
    transitiveAdvisories: z.array(TransitiveAdvisory),
  })
  .meta({ id: 'FullBundle' });

const nameVersion = z.strictObject({ name: packageName, version: z.string() });

export const Diff = z
  .strictObject({
    schemaVersion,
    sha,
    base: sha,
    pushedAt: timestamp,
    basePushedAt: timestamp,
    added: z.array(nameVersion),
    removed: z.array(nameVersion),
    versionChanges: z.array(
      z.strictObject({
        name: packageName,
        fromVersion: z.string(),
        toVersion: z.string(),
        direction: z.enum(['upgrade', 'downgrade', 'equivalent']),
      }),
    ),
    advisoryChanges: z.array(
      z.strictObject({
        name: packageName,
        fromCount: z.number().int().min(0),
        toCount: z.number().int().min(0),
        fromSeverity: Severity.nullable(),
        toSeverity: Severity.nullable(),
        added: z.array(z.string()),
        removed: z.array(z.string()),
      }),
    ),
  })
  .meta({ id: 'Diff' });

export const Dependencies = z
  .strictObject({
    schemaVersion,
    name: packageName,
    dependencies: z.array(
      z.strictObject({
        name: packageName,
        scopes: z.array(z.enum(['build', 'runtime'])).min(1),
        missing: z.boolean().describe('True for a dangling dependency: no such package at this commit.'),
        version: z.string().nullable(),
        license: z.string().nullable(),
        advisories: z.array(SlimAdvisory),
        maxSeverity: Severity.nullable(),
      }),
    ),
  })
  .meta({ id: 'Dependencies' });

export const VersionHistory = z
  .strictObject({
    schemaVersion,
    name: packageName,
    versions: z.array(
      z.strictObject({
        version: z.string(),
        sha,
        pushedAt: timestamp,
        filesChanged: z.number().int().min(0),
        linesAdded: z.number().int().min(0),
        linesRemoved: z.number().int().min(0),
        dependencies: DependencySets,
      }),
    ),
  })
  .meta({ id: 'VersionHistory' });

/** A package as `search_packages` lists it: the listing tier, kept small (no description, no stars). */
export const SearchHit = z
  .strictObject({
    name: packageName,
    version: z.string(),
    license: z.string().describe('SPDX license expression, as the catalog gives it.'),
    categories: z.array(z.string()),
    advisories: z.array(SlimAdvisory).describe('Active direct advisories.'),
    maxSeverity: Severity.nullable().describe('The highest severity among `advisories`; null when there are none.'),
  })
  .meta({ id: 'SearchHit' });

/** The `search_packages` tool's result. */
export const SearchResult = z
  .strictObject({
    schemaVersion,
    commitSha: sha.describe('The commit searched: the latest on main when the call was made.'),
    pushedAt: timestamp,
    total: z.number().int().min(0).describe('How many packages match, whatever `limit` and `offset` say.'),
    offset: z.number().int().min(0).describe('Index of the first match in `packages` among all matches.'),
    packages: z.array(SearchHit).describe('The matches from `offset` on, at most `limit` of them, in the documented order.'),
  })
  .meta({ id: 'SearchResult' });

/** The `get_advisories` tool's result. */
export const AdvisoriesResult = z
  .strictObject({
    schemaVersion,
    commitSha: sha,
    pushedAt: timestamp,
    name: packageName,
    advisories: z.array(FullAdvisory).describe('Active direct advisories of the package itself.'),
    transitiveAdvisories: z
      .array(TransitiveAdvisory)
      .optional()
      .describe('Active advisories reached through build and runtime dependencies, one entry per advisory, with a shortest path from this package to the culprit; absent when `include_transitive` is false.'),
  })
  .meta({ id: 'AdvisoriesResult' });

/** The `list_catalog_commits` tool's result. */
export const CommitsResult = z
  .strictObject({ schemaVersion, commits: z.array(CommitInfo).describe('Distinct commits of main, newest first.') })
  .meta({ id: 'CommitsResult' });

export const ErrorBody = z
  .strictObject({
    error: z.string().describe('A stable code: `not_found`, `auth_required`, `ambiguous sha`, `method_not_allowed`, `internal`, ...'),
    message: z.string().describe('What went wrong, for a person.'),
  })
  .meta({ id: 'Error' });

/** A commit's digest (src/digest/commit-digest.ts): the payload of `/api/digests/{sha}.json`. */
export const CommitDigest = z
  .object({
    schemaVersion: z.number().int(),
    layout: z.number().int().describe('The output layout the state roots are written in.'),
    commit: z.string().regex(/^[0-9a-f]{40}$/),
    parent: z.string().regex(/^[0-9a-f]{40}$/).nullable(),
    state: z.string().regex(/^sha256:[0-9a-f]{64}$/).describe('SHA-256 of the plain bytes of the commit\'s state root.'),
    diff: z.string().regex(/^sha256:[0-9a-f]{64}$/).nullable().describe('SHA-256 of the commit\'s diff against its parent; null for a root commit.'),
    parentDigest: z.string().regex(/^sha256:[0-9a-f]{64}$/).nullable(),
    digest: z.string().regex(/^sha256:[0-9a-f]{64}$/).describe('SHA-256 over layout, commit, parent, state, diff and parentDigest, serialized with sorted keys.'),
  })
  .meta({ id: 'CommitDigest' });

/** `/api/digests/{sha}.json`: a JWS (RFC 7515) in the general JSON serialization, its payload unencoded (RFC 7797). */
export const SignedDigest = z
  .object({
    payload: z.string().describe('The CommitDigest as JSON text, unencoded (`"b64": false`).'),
    signatures: z
      .array(z.object({ protected: z.string().describe('base64url of {"alg":"EdDSA","b64":false,"crit":["b64"],"kid":...}'), signature: z.string() }))
      .describe('One per signing key; empty when the origin has no key.'),
  })
  .meta({ id: 'SignedDigest' });

/**
 * `GET /healthz` (gateway/health.ts): for load balancers and operators, not a catalog surface. It
 * describes this gateway process (its release, the builds it runs), so two gateways over one
 * output may answer differently; 200 while a release is published, 503 before.
 */
/** One dependency of a gateway process, for /healthz (gateway/dependencies.ts). */
const dependency = z
  .strictObject({
    status: z.enum(['ok', 'degraded']),
    since: z.iso.datetime().describe('When it entered this status (UTC, whole seconds); the process start for one never degraded.'),
    reason: z.string().nullable().describe('Why it is degraded, in one line; null when ok.'),
  })
  .nullable();

export const Health = z
  .strictObject({
    status: z
      .enum(['ok', 'degraded', 'build-failed', 'no-release'])
      .describe(
        '`ok`: serving a release; `degraded`: serving the last release, but a dependency is broken (see `dependencies`); `build-failed`: serving a release, but the last build failed (see `build.lastFailure`); `no-release`: nothing is published yet (503).',
      ),
    tip: z.strictObject({ sha, pushedAt: timestamp }).nullable().describe('The published tip; null before the first release.'),
    release: z
      .strictObject({
        id: z.string(),
        publishedAt: z.iso.datetime().describe('When this release was switched in (UTC, whole seconds).'),
        ageSeconds: z.number().int().min(0).describe('Seconds since `publishedAt`.'),
      })
      .nullable(),
    build: z
      .strictObject({
        running: z.boolean().describe('A build of main is running (or waiting for another build of the output to finish).'),
        waitingFor: z.number().int().nullable().describe('The pid of another build of the output directory this one waits for.'),
        lastFailure: z.string().nullable().describe('Why the last build failed, in one line; null when it succeeded or none ran yet.'),
      })
      .nullable()
      .describe('The builds this process runs (`serve --repo`); null when it runs none.'),
    dependencies: z
      .strictObject({
        disk: dependency.describe('The disk of the output directory, as the builds of `serve --repo` find it (full: `no space left`); null without --repo.'),
        repository: dependency.describe('The catalog repository `serve --repo` follows; null without --repo.'),
        sessionStore: dependency.describe('The session store (SQLite, or Redis with a Redis URL).'),
        usersFile: dependency.describe('The users file; null without one.'),
      })
      .describe('What the process depends on while it runs; a degraded one is logged once, and the process keeps its last good state until it is back.'),
    composed: z
      .record(z.string(), z.number())
      .optional()
      .describe('Figures of the store of bodies composed on request, when it keeps any.'),
  })
  .meta({ id: 'Health' });

/** Every wire schema by name: the surface registry names a row's body by one of these keys. */
export const WIRE = {
  PackageEnvelope,
  RecentCommits,
  ListingBundle,
  FullBundle,
  Diff,
  Dependencies,
  VersionHistory,
  ErrorBody,
  Health,
  SearchResult,
  AdvisoriesResult,
  CommitsResult,
  SignedDigest,
} as const;

export type WireName = keyof typeof WIRE;

export type CommitInfo = z.infer<typeof CommitInfo>;
export type DependencySets = z.infer<typeof DependencySets>;
export type SlimAdvisory = z.infer<typeof SlimAdvisory>;
export type FullAdvisory = z.infer<typeof FullAdvisory>;
export type PackageRecord = z.infer<typeof PackageRecord>;
export type PackageEnvelope = z.infer<typeof PackageEnvelope>;
export type PackageCard = z.infer<typeof PackageCard>;
export type ListingBundle = z.infer<typeof ListingBundle>;
export type TransitiveAdvisory = z.infer<typeof TransitiveAdvisory>;
export type FullBundle = z.infer<typeof FullBundle>;
export type Diff = z.infer<typeof Diff>;
export type Dependencies = z.infer<typeof Dependencies>;
export type VersionHistory = z.infer<typeof VersionHistory>;
export type ErrorBody = z.infer<typeof ErrorBody>;
export type Health = z.infer<typeof Health>;
export type SearchHit = z.infer<typeof SearchHit>;
export type SearchResult = z.infer<typeof SearchResult>;
export type AdvisoriesResult = z.infer<typeof AdvisoriesResult>;
export type CommitsResult = z.infer<typeof CommitsResult>;
export type CommitDigest = z.infer<typeof CommitDigest>;
export type SignedDigest = z.infer<typeof SignedDigest>;

/**
 * Checks a parsed body against a wire schema. Returns null when it conforms, else one line
 * naming every field that does not (path and reason), for build diagnostics and test failures.
 */
export const wireProblems = (name: WireName, value: unknown): string | null => schemaProblems(WIRE[name], value);

/** The problems of a parsed value against a schema, as wireProblems gives them. */
export function schemaProblems(schema: z.ZodType, value: unknown): string | null {
  const result = schema.safeParse(value);
  if (result.success) return null;
  return result.error.issues
    .slice(0, 10)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(body)'}: ${issue.message}`)
    .join('; ') + (result.error.issues.length > 10 ? `; and ${result.error.issues.length - 10} more` : '');
}
