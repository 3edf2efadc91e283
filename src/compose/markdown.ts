/**
 * The markdown mirrors: `/pkgs/{name}.md`, everything a package's page shows, and
 * `/advisories/{id}.md`, an advisory active at the latest commit with its blast radius. Plain
 * CommonMark (GFM tables), readable as it is by a person and by an agent; every URL absolute, so
 * a mirror read on its own still leads somewhere.
 *
 * Catalog text is never trusted as markup: it is put on one line with every character that could
 * start a link, an image, raw HTML, emphasis, code or a table cell escaped (`escapeMarkdown`);
 * an advisory's multi-line `details` go into a fenced code block; a URL from the catalog becomes
 * a link only when it is http(s).
 */
import { isReservedName, nameKey } from '../grammar.ts';
import type { FullAdvisory, PackageRecord, TransitiveAdvisory } from '../schemas/wire.ts';
import { absolute, BLAST_RADIUS_SHOWN, culpritAdvisory, DEPENDENTS_SHOWN, oneLine, plainText, siteLink, webUrl, wholeBlastRadius, type AdvisoryReach, type TipDocuments } from './documents.ts';
import type { VersionEvent } from './types.ts';
import { memoized, memoizedPer } from '../memo.ts';

/** Versions listed in a mirror, newest first; the rest are in versions.json. */
export const MIRROR_VERSIONS = 20;

/** Characters that start inline markup in CommonMark or GFM (links, images, HTML, autolinks, emphasis, code, strikethrough, table cells, entities). */
const INLINE_MARKUP = /[\\`*_[\]<>|~&]/g;

/**
 * Catalog text as literal markdown on one line: markup characters backslash-escaped, and what
 * would open a block at the start of a line (a heading `# `, a list item `- ` or `1. `, a rule or
 * setext underline `---`, `===`) escaped too, wherever the text lands.
 */
export function escapeMarkdown(text: string): string {
  return oneLine(text)
    .replace(INLINE_MARKUP, '\\$&')
    .replace(/^([#+=-])(?=\s|$|\1)/, '\\$1')
    .replace(/^(\d{1,9})([.)])(?=\s|$)/, '$1\\$2');
}

/** A link to one of the site's URLs (`text` already markdown); `<...>` around a URL that would end the link early. */
function markdownLink(text: string, url: string): string {
  return `[${text}](${/[\s()<>]/.test(url) ? `<${url}>` : url})`;
}

/** A URL from the catalog: an autolink when it is http(s), else literal text; `none` when absent. */
function catalogUrl(raw: string | null | undefined): string {
  if (!raw) return 'none';
  const url = webUrl(raw);
  return url ? `<${url}>` : escapeMarkdown(raw);
}

/** A fenced code block holding `text` verbatim: the fence is longer than any backtick run inside. */
function fenced(text: string, info = 'text'): string {
  const body = plainText(text).replace(/\n+$/, '');
  const longest = Math.max(0, ...[...body.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${body}\n${fence}`;
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}

const code = (text: string) => `\`${text}\``;
const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/**
 * The mirror's link to another package: its mirror when the package is at the tip, else its name
 * and `missing`. It reads the name alone, so a mirror that names a package in a culprit path does
 * not change with that package's version (made once per state: a popular package is named in
 * thousands of mirrors).
 */
const packageRef = memoizedPer((tip: TipDocuments, name: string): string => {
  const canonical = tip.names.get(nameKey(name));
  return canonical !== undefined ? markdownLink(escapeMarkdown(canonical), siteLink(tip, 'package-markdown', { name: canonical })) : `${escapeMarkdown(name)} (**missing**: not in the catalog)`;
});

const advisoryRef = (tip: TipDocuments, id: string) => markdownLink(escapeMarkdown(id), siteLink(tip, 'advisory-markdown', { id }));

/** A package name escaped once: a culprit path repeats the same names in thousands of entries. */
const escapedName = memoized(escapeMarkdown);

const pathText = (entry: TransitiveAdvisory) => entry.culpritPath.map(escapedName).join(' → ');

/**
 * Which commit a mirror shows: the latest of main, named by a link, not by its sha, so that a
 * mirror changes only when what it shows does (docs/decisions.md "What a document is made from").
 */
function catalogState(tip: TipDocuments): string {
  return `the latest commit of main (its sha and time: ${markdownLink('recent-commits.json', siteLink(tip, 'recent-commits'))})`;
}

/** The facts every view of an advisory shares (severity, CVSS, aliases, dates, references), with `more` after the severity. */
function advisoryFacts(advisory: FullAdvisory, more: string[] = []): string[] {
  const references = advisory.references.map((reference) => reference.url && catalogUrl(reference.url)).filter((url): url is string => Boolean(url));
  return [
    `- **Severity:** ${advisory.severity}`,
    ...more,
    ...(advisory.cvss ? [`- **CVSS:** ${advisory.cvss.score} (${escapeMarkdown(advisory.cvss.version)}, ${code(oneLine(advisory.cvss.vector).replaceAll('`', ''))})`] : []),
    `- **Aliases:** ${advisory.aliases.length > 0 ? advisory.aliases.map(escapeMarkdown).join(', ') : 'none'}`,
    `- **Published:** ${advisory.published ? escapeMarkdown(advisory.published) : 'unknown'}`,
    `- **Modified:** ${escapeMarkdown(advisory.modified)}`,
    `- **References:** ${references.length > 0 ? references.join(', ') : 'none'}`,
  ];
}

const fixedIn = (advisory: FullAdvisory) => (advisory.fixedIn.length > 0 ? advisory.fixedIn.map(escapeMarkdown).join(', ') : 'no fixed version known');
const fixedNote = (advisory: FullAdvisory) => (advisory.fixedIn.length > 0 ? `fixed in ${fixedIn(advisory)}` : 'no fixed version known');

/** A dependency by name, as the page shows it: its version is in its own mirror (a version here would change the mirror of every package that depends on it). */
function dependencyLines(tip: TipDocuments, names: readonly string[]): string[] {
  if (names.length === 0) return ['None.'];
  return names.map((name) => `- ${packageRef(tip, name)}`);
}

function directAdvisorySection(tip: TipDocuments, advisory: FullAdvisory): string[] {
  const title = advisory.summary ? `: ${escapeMarkdown(advisory.summary)}` : '';
  return [
    `### ${advisoryRef(tip, advisory.id)}${title}`,
    '',
    ...advisoryFacts(advisory, [`- **Fixed in:** ${fixedIn(advisory)}`]),
    ...(advisory.details ? ['', 'Details:', '', fenced(advisory.details)] : []),
    '',
  ];
}

function transitiveLines(tip: TipDocuments, entries: readonly TransitiveAdvisory[]): string[] {
  if (entries.length === 0) return ['None: no dependency, direct or indirect, has an active advisory.'];
  return [
    'Advisories active on a package this one reaches through its build and runtime dependencies; the path goes from this package to the package that carries the advisory.',
    '',
    ...entries.map((entry) => {
      const advisory = culpritAdvisory(tip, entry);
      const about = advisory ? ` (${advisory.severity}${advisory.summary ? `: ${escapeMarkdown(advisory.summary)}` : ''}; ${fixedNote(advisory)})` : '';
      return `- ${advisoryRef(tip, entry.advisoryId)}${about}, path: ${pathText(entry)}`;
    }),
  ];
}

function scorecardLines(record: PackageRecord): string[] {
  const scorecard = record.scorecard;
  if (!scorecard) return ['No scorecard in the catalog.'];
  const overall = scorecard.score < 0 ? 'unknown' : `**${scorecard.score} / 10** (${scorecard.normalizedScore} / 100)`;
  const about = [scorecard.date && `dated ${escapeMarkdown(scorecard.date)}`, scorecard.repo?.name && `for ${escapeMarkdown(scorecard.repo.name)}`].filter(Boolean);
  return [
    `OpenSSF Scorecard: ${overall}${about.length > 0 ? `, ${about.join(', ')}` : ''}.`,
    ...(scorecard.checks.length > 0
      ? ['', table(['Check', 'Score', 'Reason'], scorecard.checks.map((check) => [escapeMarkdown(check.name), check.score < 0 ? 'n/a' : String(check.score), check.reason ? escapeMarkdown(check.reason) : '']))]
      : []),
  ];
}

function versionLines(tip: TipDocuments, record: PackageRecord, events: readonly VersionEvent[]): string[] {
  if (events.length === 0) return ['No version shipped yet.'];
  const newest = [...events].reverse().slice(0, MIRROR_VERSIONS);
  const rows = newest.map((event) => [
    escapeMarkdown(event.version),
    event.pushedAt,
    code(event.sha.slice(0, 12)),
    String(event.filesChanged),
    `+${event.linesAdded}`,
    `-${event.linesRemoved}`,
  ]);
  const older = events.length - newest.length;
  // At the commit that shipped the newest version: the same history as at the tip, and a link that stays put until the next version.
  const versionsJson = siteLink(tip, 'pinned-versions', { sha: events[events.length - 1].sha, name: record.name });
  return [
    `Newest first: the commit that shipped each version, and what it changed under \`packages/${record.name}/\` since the previous one.`,
    '',
    table(['Version', 'Shipped', 'Commit', 'Files changed', 'Lines added', 'Lines removed'], rows),
    '',
    older > 0
      ? `${plural(older, 'older version')} and every version's dependencies: ${markdownLink('versions.json', versionsJson)} (signed in).`
      : `Every version's dependencies: ${markdownLink('versions.json', versionsJson)} (signed in).`,
  ];
}

function linkLines(tip: TipDocuments, record: PackageRecord): string[] {
  const url = (path: string) => absolute(tip, path);
  if (isReservedName(record.name)) {
    return [
      `- Page: <${url(record.links.page)}>`,
      `- The name ${code(record.name)} is taken by a fixed route under \`/api/pkgs/\`, so its JSON record, SBOM and badge are not served there; the record is in the bundles (${markdownLink('full bundle', siteLink(tip, 'latest-bundle'))}, signed in).`,
    ];
  }
  const badge = url(record.links.badge);
  const page = url(record.links.page);
  return [
    `- Page: <${page}>`,
    `- JSON record: <${url(record.links.self)}>`,
    `- SBOM: <${url(record.links.sbom)}> (CycloneDX 1.5), <${url(record.links.sbom)}?format=spdx> (SPDX 2.3)`,
    `- Badge: <${badge}> (scorecard score), <${badge}?metric=advisories> (active advisories)`,
    '',
    'Embed the badge:',
    '',
    fenced(`[![${record.name} score](${badge})](${page})`, 'markdown'),
  ];
}

/** `/pkgs/{name}.md`: the package `key` at the tip. */
export function composePackageMarkdown(tip: TipDocuments, key: string): string {
  const record = tip.records.get(key);
  if (!record) throw new Error(`no package ${key} at the tip`);
  const reverse = record.reverseDependencies;
  const lines = [
    `# ${escapeMarkdown(record.name)}`,
    '',
    record.description.trim() ? escapeMarkdown(record.description) : 'No description.',
    '',
    `- **Version:** ${escapeMarkdown(record.version)}`,
    `- **License:** ${escapeMarkdown(record.license)}`,
    `- **Categories:** ${record.categories.length > 0 ? record.categories.map(escapeMarkdown).join(', ') : 'none'}`,
    `- **Stars:** ${record.stars}`,
    `- **Homepage:** ${catalogUrl(record.homepage)}`,
    `- **Repository:** ${catalogUrl(record.repository)}`,
    `- **Archive:** ${catalogUrl(record.archive.url)}`,
    `- **Archive SHA-256:** ${code(record.archive.sha256)}`,
    `- **Catalog state:** ${catalogState(tip)}`,
    '',
    '## Dependencies',
    '',
    '### Build',
    '',
    ...dependencyLines(tip, record.dependencies.build),
    '',
    '### Runtime',
    '',
    ...dependencyLines(tip, record.dependencies.runtime),
    '',
    '## Reverse dependencies',
    '',
    reverse.length > 0
      ? `${plural(reverse.length, 'package depends', 'packages depend')} on ${escapeMarkdown(record.name)}: ${reverse.slice(0, DEPENDENTS_SHOWN).map((name) => packageRef(tip, name)).join(', ')}${reverse.length > DEPENDENTS_SHOWN ? `, and ${reverse.length - DEPENDENTS_SHOWN} more (the first ${DEPENDENTS_SHOWN} by name; the JSON record lists every one: <${absolute(tip, record.links.self)}>)` : ''}.`
      : 'None.',
    '',
    '## Advisories',
    '',
    ...(record.advisories.length > 0 ? record.advisories.flatMap((advisory) => directAdvisorySection(tip, advisory)) : ['None active.', '']),
    '## Transitive advisories',
    '',
    ...transitiveLines(tip, tip.transitive.get(key) ?? []),
    '',
    '## Scorecard',
    '',
    ...scorecardLines(record),
    '',
    '## Versions',
    '',
    ...versionLines(tip, record, tip.history.get(key) ?? []),
    '',
    '## Links',
    '',
    ...linkLines(tip, record),
  ];
  return `${lines.join('\n')}\n`;
}

/** `/advisories/{id}.md`: an advisory active at the tip, the packages it affects and every package that reaches one of them. */
export function composeAdvisoryMarkdown(tip: TipDocuments, reach: AdvisoryReach): string {
  const advisory = reach.direct[0].advisory;
  const title = advisory.summary ? `: ${escapeMarkdown(advisory.summary)}` : '';
  const lines = [
    `# ${escapeMarkdown(reach.id)}${title}`,
    '',
    ...advisoryFacts(advisory),
    `- **Catalog state:** ${catalogState(tip)}`,
    ...(advisory.details ? ['', 'Details:', '', fenced(advisory.details)] : []),
    '',
    '## Affected packages',
    '',
    `Active on ${plural(reach.direct.length, 'package')} at the latest commit:`,
    '',
    table(
      ['Package', 'Version', 'Fixed in'],
      reach.direct.map(({ record, advisory: seen }) => [packageRef(tip, record.name), escapeMarkdown(record.version), fixedIn(seen)]),
    ),
    '',
    '## Blast radius',
    '',
    ...(reach.reachCount > 0
      ? [
          `${plural(reach.reachCount, 'package reaches', 'packages reach')} an affected package through build and runtime dependencies; each path is a shortest one, from the package to the affected one:`,
          '',
          // By name, as the advisory's page shows them: a version here would change this mirror, and
          // the llms-full part that holds it, with every version bump of any package it lists.
          table(
            ['Package', 'Path'],
            reach.reaching.map((entry) => [packageRef(tip, entry.culpritPath[0]), pathText(entry)]),
          ),
          ...(reach.reachCount > BLAST_RADIUS_SHOWN
            ? [
                '',
                `These are the first ${BLAST_RADIUS_SHOWN} by name; ${plural(reach.reachCount - BLAST_RADIUS_SHOWN, 'more package reaches', 'more packages reach')} it. The full bundle of this commit lists every one, in each package's \`transitiveAdvisories\` (sign in): <${wholeBlastRadius(tip, tip.commit.sha)}>`,
              ]
            : []),
        ]
      : ['No other package depends on an affected package.']),
  ];
  return `${lines.join('\n')}\n`;
}
