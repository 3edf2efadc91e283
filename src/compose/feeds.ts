/**
 * The Atom 1.0 feeds, written with the `feed` package:
 *
 * - `/pkgs/advisories.xml` (SPEC.md): one entry per advisory active on some package at the latest
 *   commit (DECISIONS.md 11), newest first by `modified`; the entry id is the advisory's page URL,
 *   so it stays the same from build to build, and `updated` is the advisory's `modified`.
 * - `/pkgs/changes.xml` (beyond SPEC.md): one entry per commit of the newest ones of main, what it
 *   changed (packages added, removed, version changes, advisory deltas), from the diff against its
 *   parent: the diff endpoint's own helper (composeDiff).
 *
 * No clock: the feed's `updated` is the latest commit's `pushedAt`, so the same tip gives the same
 * bytes. Entry titles and contents are HTML (Atom `type="html"`); every piece of catalog text is
 * escaped, and only http(s) URLs become links.
 */
import { Feed, type Item } from 'feed';
import type { Diff, FullAdvisory, PackageRecord } from '../schemas/wire.ts';
import { nameKey } from '../grammar.ts';
import { absolute, oneLine, plainText, siteLink, webUrl, type AdvisoryReach, type CommitChanges, type TipDocuments } from './documents.ts';

/** Items of one list shown in an entry; the rest are counted (the diff endpoint and the pages have them all). */
export const FEED_LIST_ITEMS = 50;

const HTML_SPECIAL = /[&<>"']/g;
const HTML_ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Catalog text as HTML text (and attribute values). */
export function escapeHtml(text: string): string {
  return plainText(text).replace(HTML_SPECIAL, (char) => HTML_ENTITY[char]);
}

const a = (href: string, text: string) => `<a href="${escapeHtml(href)}">${text}</a>`;

/** A date from catalog text; null when it does not parse. */
function dateOf(text: string | null | undefined): Date | null {
  if (!text) return null;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? null : date;
}

const EPOCH = new Date(0);

function newFeed(tip: TipDocuments, id: 'advisory-feed' | 'changes-feed', title: string, description: string): Feed {
  const self = siteLink(tip, id);
  return new Feed({
    id: self,
    title,
    description,
    link: siteLink(tip, 'search-page'),
    feedLinks: { atom: self },
    updated: new Date(tip.commit.pushedAt),
    author: { name: `Package catalog at ${tip.siteUrl}`, link: siteLink(tip, 'search-page') },
    generator: 'pkgcat',
  });
}

/** At most FEED_LIST_ITEMS list items, then how many more of `total` (an advisory reaches thousands: only those shown are made). */
function list<T>(items: readonly T[], item: (value: T) => string, total = items.length): string {
  const shown = items.slice(0, FEED_LIST_ITEMS).map((value) => `<li>${item(value)}</li>`);
  const more = total - shown.length;
  return `<ul>${shown.join('')}${more > 0 ? `<li>and ${more} more</li>` : ''}</ul>`;
}

const pageLink = (tip: TipDocuments, record: Pick<PackageRecord, 'links'>, text: string) => a(absolute(tip, record.links.page), escapeHtml(text));

function packageLink(tip: TipDocuments, name: string): string {
  const record = tip.records.get(nameKey(name));
  return record ? pageLink(tip, record, record.name) : escapeHtml(name);
}

function advisoryTitle(advisory: FullAdvisory): string {
  return escapeHtml(`${advisory.id} (${advisory.severity})${advisory.summary ? `: ${oneLine(advisory.summary)}` : ''}`);
}

function advisoryContent(tip: TipDocuments, reach: AdvisoryReach): string {
  const advisory = reach.direct[0].advisory;
  const references = advisory.references.map((reference) => webUrl(reference.url)).filter((url): url is string => url !== null);
  const fixed = (seen: FullAdvisory) => (seen.fixedIn.length > 0 ? `fixed in ${escapeHtml(seen.fixedIn.join(', '))}` : 'no fixed version known');
  const parts = [
    `<p><strong>Severity:</strong> ${escapeHtml(advisory.severity)}${advisory.cvss ? ` (CVSS ${advisory.cvss.score}, <code>${escapeHtml(advisory.cvss.vector)}</code>)` : ''}</p>`,
    `<p><strong>Active on ${reach.direct.length} ${reach.direct.length === 1 ? 'package' : 'packages'}:</strong></p>`,
    list(reach.direct, ({ record, advisory: seen }) => `${pageLink(tip, record, record.name)} ${escapeHtml(record.version)} (${fixed(seen)})`),
    reach.reachCount > 0
      ? `<p><strong>Reached by ${reach.reachCount} ${reach.reachCount === 1 ? 'package' : 'packages'}</strong> through their dependencies:</p>${list(reach.reaching, (entry) => `${packageLink(tip, entry.culpritPath[0])}: ${escapeHtml(entry.culpritPath.join(' → '))}`, reach.reachCount)}`
      : '<p>No other package depends on an affected package.</p>',
    ...(advisory.details ? [`<pre>${escapeHtml(advisory.details)}</pre>`] : []),
    ...(advisory.aliases.length > 0 ? [`<p><strong>Aliases:</strong> ${escapeHtml(advisory.aliases.join(', '))}</p>`] : []),
    ...(references.length > 0 ? [`<p><strong>References:</strong></p>${list(references, (url) => a(url, escapeHtml(url)))}`] : []),
    `<p>${a(siteLink(tip, 'advisory-page', { id: reach.id }), 'Advisory page')} · ${a(siteLink(tip, 'advisory-markdown', { id: reach.id }), 'Markdown')}</p>`,
  ];
  return parts.join('\n');
}

/** The advisories newest first by `modified` (then by id); one whose `modified` does not parse goes last, dated by `published` or 1970. */
function byModified(tip: TipDocuments): { reach: AdvisoryReach; updated: Date; dated: boolean }[] {
  return [...tip.advisories.values()]
    .map((reach) => {
      const { modified, published } = reach.direct[0].advisory;
      const date = dateOf(modified);
      return { reach, updated: date ?? dateOf(published) ?? EPOCH, dated: date !== null };
    })
    .sort((x, y) => Number(y.dated) - Number(x.dated) || y.updated.getTime() - x.updated.getTime() || (x.reach.id < y.reach.id ? -1 : x.reach.id > y.reach.id ? 1 : 0));
}

/** `/pkgs/advisories.xml`. */
export function composeAdvisoryFeed(tip: TipDocuments): string {
  const feed = newFeed(tip, 'advisory-feed', `Security advisories: package catalog at ${tip.siteUrl}`, 'The security advisories active on some package at the latest commit of the catalog, newest first.');
  for (const { reach, updated } of byModified(tip)) {
    const advisory = reach.direct[0].advisory;
    // The advisory's page, or its markdown mirror when its id gets no page.
    const page = siteLink(tip, 'advisory-page', { id: reach.id });
    const item: Item = {
      id: page,
      link: page,
      title: advisoryTitle(advisory),
      date: updated,
      content: advisoryContent(tip, reach),
      category: [{ term: advisory.severity }],
    };
    const published = dateOf(advisory.published);
    if (published) item.published = published;
    if (advisory.summary) item.description = escapeHtml(oneLine(advisory.summary));
    feed.addItem(item);
  }
  return `${feed.atom1()}\n`;
}

function counted(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

function changeSummary(diff: CommitChanges['diff']): string {
  const parts = [
    diff.added.length > 0 && counted(diff.added.length, 'package added', 'packages added'),
    diff.removed.length > 0 && counted(diff.removed.length, 'package removed', 'packages removed'),
    diff.versionChanges.length > 0 && counted(diff.versionChanges.length, 'version change', 'version changes'),
    diff.advisoryChanges.length > 0 && counted(diff.advisoryChanges.length, 'advisory change', 'advisory changes'),
  ].filter((part): part is string => Boolean(part));
  return parts.length > 0 ? parts.join(', ') : 'no package or advisory changed';
}

function advisoryChange(tip: TipDocuments, change: Diff['advisoryChanges'][number]): string {
  const severity = (value: string | null) => value ?? 'none';
  const details = [
    `${change.fromCount} → ${change.toCount} active`,
    ...(change.fromSeverity !== change.toSeverity ? [`highest severity ${severity(change.fromSeverity)} → ${severity(change.toSeverity)}`] : []),
    ...(change.added.length > 0 ? [`new: ${change.added.join(', ')}`] : []),
    ...(change.removed.length > 0 ? [`gone: ${change.removed.join(', ')}`] : []),
  ];
  return `${packageLink(tip, change.name)}: ${escapeHtml(details.join('; '))}`;
}

function changesContent(tip: TipDocuments, { commit, diff, root }: CommitChanges): string {
  const section = <T>(title: string, items: readonly T[], item: (value: T) => string) => (items.length > 0 ? [`<h3>${title} (${items.length})</h3>`, list(items, item)] : []);
  return [
    `<p>Commit <code>${commit.sha}</code>, pushed ${commit.pushedAt}${root ? ', the first commit of main' : ''}: ${changeSummary(diff)}.</p>`,
    ...section('Added', diff.added, (pkg) => `${packageLink(tip, pkg.name)} ${escapeHtml(pkg.version)}`),
    ...section('Removed', diff.removed, (pkg) => `${escapeHtml(pkg.name)} ${escapeHtml(pkg.version)}`),
    ...section('Version changes', diff.versionChanges, (change) => `${packageLink(tip, change.name)} ${escapeHtml(`${change.fromVersion} → ${change.toVersion} (${change.direction})`)}`),
    ...section('Advisory changes', diff.advisoryChanges, (change) => advisoryChange(tip, change)),
  ].join('\n');
}

/** `/pkgs/changes.xml`: `changes` newest first. */
export function composeChangesFeed(tip: TipDocuments, changes: readonly CommitChanges[]): string {
  const feed = newFeed(tip, 'changes-feed', `Changes: package catalog at ${tip.siteUrl}`, 'What each of the newest commits of the catalog changed: packages added and removed, version changes, advisory changes.');
  for (const change of changes) {
    const anchor = `${siteLink(tip, 'changes-page')}#${change.commit.sha}`;
    feed.addItem({
      id: anchor,
      link: anchor,
      title: escapeHtml(change.commit.message ? oneLine(change.commit.message) : `Commit ${change.commit.sha.slice(0, 12)}`),
      date: new Date(change.commit.pushedAt),
      description: escapeHtml(changeSummary(change.diff)),
      content: changesContent(tip, change),
    });
  }
  return `${feed.atom1()}\n`;
}
