/**
 * A package's detail page (`/pkgs/{name}`, the record's `page` link): the envelope inline exactly
 * as `/api/pkgs/{name}.json` serves it (SPEC.md "Package record envelope"), and everything a
 * person checks before depending on the package: dependencies (missing ones marked), who depends
 * on it, its advisories and the ones it reaches through dependencies (with the path), its
 * scorecard, its version history, its badge and its other forms.
 */
import { nameKey } from '../grammar.ts';
import type { CommitInfo, Severity, VersionEvent } from '../compose/types.ts';
import type { PackageRecord, SlimAdvisory, TransitiveAdvisory } from '../schemas/wire.ts';
import { fillTemplate, packageLinks, surface } from '../surfaces/registry.ts';
import { advisoryHref, packagePageHref, pageFrame, SITE_PATHS, type PageFrame } from './frame.ts';
import { bySeverity, capped, formatCount, formatDate, formatTime, plural, shortSha, type Capped } from './format.ts';
import { DEPENDENTS_SHOWN, webUrl } from '../compose/documents.ts';

export interface PackageRef {
  readonly name: string;
  /** Its page; null when it is no package at the tip (a dangling dependency, a removed package). */
  readonly href: string | null;
}

/**
 * A dependency as its dependent's page shows it: its link, and the highest severity of its active
 * advisories. Not its version: a new version of a package would change the page of every package
 * that depends on it (of a build tool, nearly half the catalog's), and a page links to each
 * dependency, which shows its version (docs/decisions.md, "What a document is made from").
 */
export interface DependencyRow extends PackageRef {
  readonly missing: boolean;
  readonly maxSeverity: Severity | null;
}

export interface AdvisoryRow {
  readonly id: string;
  readonly href: string | null;
  readonly severity: Severity;
  readonly summary: string | null;
  readonly details: string | null;
  readonly fixedIn: readonly string[];
  readonly cvss: { readonly score: number; readonly vector: string; readonly version: string } | null;
  readonly aliases: readonly string[];
  readonly published: string | null;
  readonly modified: string;
  readonly references: readonly { readonly label: string; readonly url: string }[];
}

export interface TransitiveRow {
  readonly advisoryId: string;
  readonly href: string | null;
  readonly severity: Severity;
  readonly summary: string | null;
  /** From this package to the culprit, both included. */
  readonly path: readonly PackageRef[];
}

export interface ScorecardView {
  readonly scoreText: string;
  readonly normalized: number | null;
  readonly date: string | null;
  readonly checks: readonly { readonly name: string; readonly score: number; readonly scoreText: string; readonly reason: string | null; readonly url: string | null }[];
}

export interface VersionRow {
  readonly version: string;
  readonly sha: string;
  readonly short: string;
  readonly pushedAt: string;
  readonly time: string;
  readonly message: string | null;
  readonly filesChanged: number;
  readonly linesAdded: number;
  readonly linesRemoved: number;
  readonly current: boolean;
}

export interface PackagePageView {
  readonly kind: 'package';
  readonly frame: PageFrame;
  /** The envelope's bytes, verbatim: embedded as `<script type="application/json">`. */
  readonly envelope: string;
  readonly name: string;
  readonly version: string;
  readonly description: string;
  readonly license: string;
  readonly categories: readonly { readonly name: string; readonly href: string }[];
  readonly starsText: string;
  readonly homepage: { readonly text: string; readonly url: string | null } | null;
  readonly repository: { readonly text: string; readonly url: string | null } | null;
  readonly archive: { readonly text: string; readonly url: string | null; readonly sha256: string };
  readonly dependencies: { readonly build: readonly DependencyRow[]; readonly runtime: readonly DependencyRow[] };
  readonly missingCount: number;
  /** Who depends on it, the first REVERSE_DEPENDENCIES_ON_PAGE of them (the inline JSON lists all). */
  readonly reverseDependencies: Capped<PackageRef>;
  readonly reverseDependencyCount: number;
  readonly advisories: readonly AdvisoryRow[];
  readonly transitive: readonly TransitiveRow[];
  readonly scorecard: ScorecardView | null;
  readonly versions: readonly VersionRow[];
  readonly badge: {
    /** Site-relative address of the badge. */
    readonly src: string;
    readonly markdown: string;
    readonly html: string;
  };
  readonly links: readonly { readonly href: string; readonly label: string; readonly note?: string }[];
}

export interface PackagePageInput {
  /** The bytes of `/api/pkgs/{name}.json`. */
  readonly envelope: string;
  /** The record that envelope holds (the build has it parsed). */
  readonly record: PackageRecord;
  /** Transitive entries starting at this package (composer's rollup). */
  readonly transitive: readonly TransitiveAdvisory[];
  /** Every version it shipped, oldest first (the page lists them newest first, as versions.json does). */
  readonly history: readonly VersionEvent[];
  /** The highest severity of each package's active advisories (null: none), by name key (the rows of its own dependencies: SiteContext.severities). */
  readonly severities: ReadonlyMap<string, Severity | null>;
  /** The canonical name of every package at the tip, by name key: all a link to a package needs (SiteContext.names). */
  readonly names: ReadonlyMap<string, string>;
  /** Active advisories at the tip by id (severity and summary for the transitive rows). */
  readonly advisories: ReadonlyMap<string, SlimAdvisory>;
  /** Commits of the chain by sha (the message of the commit that shipped a version). */
  readonly commits: ReadonlyMap<string, CommitInfo>;
  readonly siteUrl: string;
}

/** Dependents listed on a page (src/compose/documents.ts DEPENDENTS_SHOWN); the inline envelope has them all. */
export const REVERSE_DEPENDENCIES_ON_PAGE = DEPENDENTS_SHOWN;

/**
 * A reference to a package by name, linked when it is present at the tip. It reads the name alone:
 * a page that names a package in a culprit path does not change with that package's version.
 */
export function packageRef(name: string, names: ReadonlyMap<string, string>): PackageRef {
  const canonical = names.get(nameKey(name));
  return { name: canonical ?? name, href: canonical === undefined ? null : packagePageHref(canonical) };
}

function dependencyRow(name: string, names: ReadonlyMap<string, string>, severities: ReadonlyMap<string, Severity | null>): DependencyRow {
  const ref = packageRef(name, names);
  return ref.href === null ? { ...ref, missing: true, maxSeverity: null } : { ...ref, missing: false, maxSeverity: severities.get(nameKey(name)) ?? null };
}

const referenceLabel = (type: string | undefined, url: string) => {
  const host = new URL(url).host;
  return type ? `${type.toLowerCase()}: ${host}` : host;
};

export function advisoryRow(advisory: PackageRecord['advisories'][number]): AdvisoryRow {
  const references = advisory.references.flatMap((reference) => {
    const url = webUrl(reference.url);
    return url ? [{ label: referenceLabel(reference.type, url), url }] : [];
  });
  return {
    id: advisory.id,
    href: advisoryHref(advisory.id),
    severity: advisory.severity,
    summary: advisory.summary,
    details: advisory.details,
    fixedIn: advisory.fixedIn,
    cvss: advisory.cvss,
    aliases: advisory.aliases,
    published: advisory.published === null ? null : formatDate(advisory.published),
    modified: formatDate(advisory.modified),
    references,
  };
}

function scorecardView(scorecard: NonNullable<PackageRecord['scorecard']>): ScorecardView {
  const scoreText = (score: number) => (score < 0 ? 'unknown' : `${score} / 10`);
  return {
    scoreText: scoreText(scorecard.score),
    normalized: scorecard.normalizedScore,
    date: typeof scorecard.date === 'string' ? formatDate(scorecard.date) : null,
    checks: scorecard.checks.map((check) => ({
      name: check.name,
      score: check.score,
      scoreText: scoreText(check.score),
      reason: check.reason ?? null,
      url: webUrl(check.documentation?.url),
    })),
  };
}

const textLink = (value: string | null) => (value === null ? null : { text: value, url: webUrl(value) });

export function packagePageView(input: PackagePageInput): PackagePageView {
  const { record } = input;
  // The culprit paths name the same packages again and again (a chain of 200 in every path through it).
  const refs = new Map<string, PackageRef>();
  const ref = (name: string) => refs.get(name) ?? refs.set(name, packageRef(name, input.names)).get(name)!;
  const links = packageLinks(record.name);
  const build = record.dependencies.build.map((name) => dependencyRow(name, input.names, input.severities));
  const runtime = record.dependencies.runtime.map((name) => dependencyRow(name, input.names, input.severities));
  const dependents = capped(record.reverseDependencies, REVERSE_DEPENDENCIES_ON_PAGE);
  const missing = new Set([...build, ...runtime].filter((row) => row.missing).map((row) => nameKey(row.name)));
  const badgeUrl = `${input.siteUrl}${links.badge}`;
  const pageUrl = `${input.siteUrl}${links.page}`;
  // At the commit that shipped the current version, not the tip: links that change only with the package (its history since is empty).
  const shipped = input.history.at(-1)?.sha ?? null;
  const pinned = (id: 'pinned-deps' | 'pinned-versions', sha: string) => fillTemplate(surface(id).path, { sha, name: record.name });
  return {
    kind: 'package',
    frame: pageFrame({
      title: `${record.name} ${record.version} · pkgcat`,
      description: record.description,
      path: links.page,
      section: 'package',
      siteUrl: input.siteUrl,
      alternates: [
        { href: links.markdown, type: 'text/markdown', title: `${record.name} (markdown)` },
        { href: links.self, type: 'application/json', title: `${record.name} (JSON)` },
      ],
    }),
    envelope: input.envelope,
    name: record.name,
    version: record.version,
    description: record.description,
    license: record.license,
    categories: record.categories.map((name) => ({ name, href: `${SITE_PATHS.search}?category=${encodeURIComponent(name)}` })),
    starsText: formatCount(record.stars),
    homepage: textLink(record.homepage),
    repository: textLink(record.repository),
    archive: { text: record.archive.url, url: webUrl(record.archive.url), sha256: record.archive.sha256 },
    dependencies: { build, runtime },
    missingCount: missing.size,
    reverseDependencies: { items: dependents.items.map((name) => packageRef(name, input.names)), more: dependents.more },
    reverseDependencyCount: record.reverseDependencies.length,
    advisories: record.advisories.map(advisoryRow).sort(bySeverity),
    transitive: input.transitive
      .map((entry) => {
        const advisory = input.advisories.get(entry.advisoryId);
        return {
          advisoryId: entry.advisoryId,
          href: advisoryHref(entry.advisoryId),
          severity: advisory?.severity ?? 'unknown',
          summary: advisory?.summary ?? null,
          path: entry.culpritPath.map(ref),
        };
      })
      .sort(bySeverity),
    scorecard: record.scorecard ? scorecardView(record.scorecard) : null,
    versions: [...input.history].reverse().map((event, index) => ({
      version: event.version,
      sha: event.sha,
      short: shortSha(event.sha),
      pushedAt: event.pushedAt,
      time: formatTime(event.pushedAt),
      message: input.commits.get(event.sha)?.message ?? null,
      filesChanged: event.filesChanged,
      linesAdded: event.linesAdded,
      linesRemoved: event.linesRemoved,
      current: index === 0 && event.version === record.version,
    })),
    badge: {
      src: links.badge,
      markdown: `[![${record.name} on pkgcat](${badgeUrl})](${pageUrl})`,
      html: `<a href="${pageUrl}"><img src="${badgeUrl}" alt="${record.name} on pkgcat"></a>`,
    },
    links: [
      { href: links.self, label: 'JSON record' },
      { href: links.markdown, label: 'Markdown' },
      { href: links.sbom, label: 'SBOM (CycloneDX 1.5)' },
      { href: `${links.sbom}?format=spdx`, label: 'SBOM (SPDX 2.3)' },
      ...(shipped
        ? [
            { href: pinned('pinned-deps', shipped), label: `Dependencies when ${record.version} shipped (JSON)`, note: 'sign-in required' },
            { href: pinned('pinned-versions', shipped), label: 'Version history (JSON)', note: 'sign-in required' },
          ]
        : []),
    ],
  };
}

