/**
 * What every page shows around its content: title, navigation, the sign-in link that brings the
 * person back, the commit the page was built from (on the pages that change with it), and the other forms of the same content
 * (markdown mirror, JSON, feeds). Every path comes from the surface registry.
 */
import { fillTemplate, surface } from '../surfaces/registry.ts';
import type { CommitInfo } from '../compose/types.ts';
import { formatTime, shortSha } from './format.ts';
import { memoized } from '../memo.ts';

/** The sign-in form of the gateway (gateway/auth). */
export const SIGN_IN_PATH = '/auth/login';

export type Section = 'search' | 'package' | 'changes' | 'advisory';

export interface NavLink {
  readonly href: string;
  readonly label: string;
  /** True on the page it names (`aria-current="page"`). */
  readonly current: boolean;
}

/** Another form of the page's content (`<link rel="alternate">` and the footer's links). */
export interface Alternate {
  readonly href: string;
  readonly type: string;
  readonly title: string;
}

export interface PageFrame {
  readonly title: string;
  readonly description: string;
  /** The page's own path (site-relative). */
  readonly path: string;
  /** Its absolute address at the site URL. */
  readonly canonical: string;
  readonly section: Section;
  readonly nav: readonly NavLink[];
  /** The sign-in form, returning to this page afterwards. */
  readonly signIn: string;
  readonly alternates: readonly Alternate[];
  /**
   * The commit the page shows, on the pages that change with every commit anyway (search,
   * changes); null on a package's or an advisory's page, which changes only when what it shows
   * does (docs/decisions.md "What a document is made from").
   */
  readonly tip: { readonly sha: string; readonly short: string; readonly pushedAt: string; readonly time: string } | null;
  /** Links for agents and tools, in the footer. */
  readonly footer: readonly NavLink[];
}

/** The site-wide paths the frame links to. */
export const SITE_PATHS = {
  search: surface('search-page').path,
  changes: surface('changes-page').path,
  advisoryFeed: surface('advisory-feed').path,
  changesFeed: surface('changes-feed').path,
  llms: surface('llms-txt').path,
  openapi: surface('openapi').path,
  recentCommits: surface('recent-commits').path,
} as const;

/** The sign-in address that returns to `path`. */
export function signInHref(path: string): string {
  return path === SITE_PATHS.search ? SIGN_IN_PATH : `${SIGN_IN_PATH}?next=${encodeURIComponent(path)}`;
}

export interface FrameInput {
  readonly title: string;
  readonly description: string;
  readonly path: string;
  readonly section: Section;
  /** Named in the footer when given. */
  readonly tip?: CommitInfo;
  readonly siteUrl: string;
  readonly alternates?: readonly Alternate[];
}

const FEEDS: readonly Alternate[] = [
  { href: SITE_PATHS.advisoryFeed, type: 'application/atom+xml', title: 'Security advisories (Atom)' },
  { href: SITE_PATHS.changesFeed, type: 'application/atom+xml', title: 'Catalog changes (Atom)' },
];

export function pageFrame(input: FrameInput): PageFrame {
  const nav = (href: string, label: string, section: Section): NavLink => ({ href, label, current: input.section === section && input.path === href });
  return {
    title: input.title,
    description: input.description,
    path: input.path,
    canonical: `${input.siteUrl}${input.path}`,
    section: input.section,
    nav: [nav(SITE_PATHS.search, 'Packages', 'search'), nav(SITE_PATHS.changes, 'Changes', 'changes')],
    signIn: signInHref(input.path),
    alternates: [...(input.alternates ?? []), ...FEEDS],
    tip: input.tip ? { sha: input.tip.sha, short: shortSha(input.tip.sha), pushedAt: input.tip.pushedAt, time: formatTime(input.tip.pushedAt) } : null,
    footer: [
      { href: SITE_PATHS.llms, label: 'llms.txt', current: false },
      { href: SITE_PATHS.openapi, label: 'OpenAPI', current: false },
      { href: SITE_PATHS.recentCommits, label: 'Recent commits (JSON)', current: false },
      { href: SITE_PATHS.advisoryFeed, label: 'Advisory feed', current: false },
      { href: SITE_PATHS.changesFeed, label: 'Changes feed', current: false },
    ],
  };
}

/** The page of an advisory (every advisory of the catalog has an id of the grammar, src/grammar.ts, so a page). */
export function advisoryHref(id: string): string {
  return fillTemplate(surface('advisory-page').path, { id });
}

const PACKAGE_PAGE = surface('package-page').path;

/** The page of a package (its record's `page` link), without the registry lookup packageLinks makes for every link. */
export const packagePageHref: (name: string) => string = memoized((name) => fillTemplate(PACKAGE_PAGE, { name }));

/** The markdown mirror of an advisory's page. */
export function advisoryMarkdownHref(id: string): string {
  return fillTemplate(surface('advisory-markdown').path, { id });
}
