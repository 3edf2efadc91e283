/**
 * `/llms.txt`, the site's index for agents in the llms.txt format (https://llmstxt.org/: an H1,
 * a summary blockquote, then sections of links, `## Optional` last), and `/llms-full.txt`, every
 * markdown mirror, in parts of a bounded size (`/llms-full/{part}.txt`, the first also at
 * `/llms-full.txt`). Every URL is absolute, from the site URL.
 */
import { COMMITS_LIMIT } from './commits.ts';
import { escapeMarkdown, MIRROR_VERSIONS } from './markdown.ts';
import { absolute, oneLine, siteLink, type TipDocuments } from './documents.ts';
import { isReservedName } from '../grammar.ts';

/** A package's note in llms.txt: its version and its description, cut at a word boundary. */
const NOTE_LENGTH = 160;

/**
 * The most bytes of llms.txt. It lists every active advisory and every package while they fit
 * (vcpkg's 2,867 packages and their advisories take 400 KB, so about 3,700 packages do), then
 * says how many more there are; each of those has its mirror at `/pkgs/{name}.md`, and the parts
 * of llms-full, listed at the end, name the first and last mirror each holds.
 */
export const LLMS_TXT_BYTES = 512 * 1024;

/** Packages an advisory's note names (then "and N more"); the advisory's mirror lists them all. */
const ACTIVE_ON_SHOWN = 5;

/** The tools of `POST /api/mcp` (SPEC.md "Tool server"; the tool server's own list, once it is served, is the one to read). */
const TOOLS = ['search_packages', 'get_package', 'get_package_versions', 'get_advisories', 'get_dependencies', 'get_sbom', 'list_catalog_commits', 'diff_catalog'];

function shorten(text: string, length: number): string {
  const line = oneLine(text);
  if (line.length <= length) return line;
  const cut = line.slice(0, length - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > length / 2 ? cut.slice(0, space) : cut).replace(/[\s.,;:]+$/, '')}…`;
}

const item = (title: string, url: string, note?: string) => `- [${title}](${url})${note ? `: ${note}` : ''}`;

/** The H1 and the summary blockquote both files start with. */
function header(tip: TipDocuments): string[] {
  return [`# Package catalog at ${tip.siteUrl}`, '', `> ${summaryOf(tip)}`, ''];
}

function summaryOf(tip: TipDocuments): string {
  const advisories = tip.advisories.size;
  return `A read-only catalog of ${tip.records.size} third-party software packages, served by pkgcat from a git repository whose main branch is the truth. For each package: its record (version, license, archive, dependencies, reverse dependencies), active security advisories direct and transitive (with the dependency path), an OpenSSF scorecard, version history and SBOMs. ${advisories} ${advisories === 1 ? 'advisory is' : 'advisories are'} active at the latest commit of main.`;
}

/** `/llms.txt`. */
export function composeLlmsTxt(tip: TipDocuments, parts: readonly LlmsFullPart[]): string {
  const url = (id: Parameters<typeof siteLink>[1], params?: Record<string, string>) => siteLink(tip, id, params);
  const example = [...tip.records.values()].find((record) => !isReservedName(record.name));
  const lines = [
    ...header(tip),
    'Everything here floats with the latest commit of main and is the same for every caller; nothing needs an account except the sha-pinned bundles under `/api/pkgs/bundle/{sha}/` (sign in at `/auth/login`, replay the session cookie). Names are case-insensitive; each package has a markdown mirror at `/pkgs/{name}.md` (the name followed by `.md`, dots kept), the easiest way to read one package.',
    '',
    '## Pages',
    '',
    item('Search', url('search-page'), 'every package, searchable by name and description, filterable by category and advisory severity'),
    item('Changes', url('changes-page'), 'what each recent commit changed'),
    item('Advisory feed', url('advisory-feed'), 'Atom feed of the advisories active at the latest commit, newest first'),
    item('Changes feed', url('changes-feed'), `Atom feed of what each of the newest ${COMMITS_LIMIT.default} commits changed`),
    item('Sitemap', url('sitemap')),
    '',
    '## JSON API',
    '',
    item('OpenAPI document', url('openapi'), 'OpenAPI 3.1 description of every JSON endpoint, with schemas'),
    ...(example
      ? [item(`Package record (${escapeMarkdown(example.name)})`, absolute(tip, example.links.self), '`/api/pkgs/{name}.json`, the composed record of any package at the latest commit')]
      : []),
    item('Recent commits', url('recent-commits'), `the newest commits of main; \`?limit=N\` from ${COMMITS_LIMIT.min} to ${COMMITS_LIMIT.max}, default ${COMMITS_LIMIT.default}`),
    item('Latest bundle', url('latest-bundle'), 'redirects to `/api/pkgs/bundle/{sha}.json`, every package at the latest commit (signed in); the full records, diffs, dependencies and versions are under the same sha'),
    ...(example
      ? [
          item(`SBOM (${escapeMarkdown(example.name)})`, absolute(tip, example.links.sbom), '`/api/pkgs/{name}/sbom.json`, CycloneDX 1.5; `?format=spdx` for SPDX 2.3'),
          item(`Badge (${escapeMarkdown(example.name)})`, absolute(tip, example.links.badge), '`/api/pkgs/{name}/badge.svg`, the scorecard score; `?metric=advisories` for active advisories'),
        ]
      : []),
    '',
    '## Tool server',
    '',
    item(
      'MCP tool server',
      url('tool-server'),
      `Model Context Protocol over stateless streamable HTTP: \`POST\` JSON-RPC to this URL, no session, no credential. Connect an MCP client to it as an HTTP server (for example \`claude mcp add --transport http pkgcat ${url('tool-server')}\`). Tools: ${TOOLS.map((tool) => `\`${tool}\``).join(', ')}.`,
    ),
    '',
    '## Package mirrors',
    '',
    PACKAGES,
    '',
    '## Advisory mirrors',
    '',
    ADVISORIES,
    '',
    '## Optional',
    '',
    ...parts.map((part, index) => {
      const range = part.first === part.last ? escapeMarkdown(part.first) : `${escapeMarkdown(part.first)} to ${escapeMarkdown(part.last)}`;
      const note =
        index === 0
          ? `the package and advisory mirrors above, concatenated (each mirror lists the newest ${MIRROR_VERSIONS} versions), in ${parts.length} ${parts.length === 1 ? 'part' : 'parts'} of at most ${LLMS_FULL_PART_BYTES / 1024} KiB; this one, also at ${url('llms-full-txt')}: ${range}`
          : range;
      return item(`Every mirror, part ${index + 1} of ${parts.length}`, llmsFullPartUrl(tip, index + 1), note);
    }),
  ];
  const packages = [...tip.records.values()].map((record) =>
    item(escapeMarkdown(record.name), absolute(tip, record.links.markdown), `${escapeMarkdown(record.version)}, ${escapeMarkdown(shorten(record.description, NOTE_LENGTH)) || 'no description'}`),
  );
  const advisories = [...tip.advisories.values()].map(({ id, direct, reachCount }) => {
    const advisory = direct[0].advisory;
    const names = direct.slice(0, ACTIVE_ON_SHOWN).map(({ record }) => escapeMarkdown(record.name));
    const on = `${names.join(', ')}${direct.length > ACTIVE_ON_SHOWN ? ` and ${direct.length - ACTIVE_ON_SHOWN} more` : ''}`;
    const note = `${advisory.severity}${advisory.summary ? `, ${escapeMarkdown(shorten(advisory.summary, NOTE_LENGTH))}` : ''}; active on ${on}; ${reachCount} other ${reachCount === 1 ? 'package reaches' : 'packages reach'} it`;
    return item(escapeMarkdown(id), url('advisory-markdown', { id }), note);
  });
  // The rest of the file first, then the advisories (fewer, and what an agent asks about most), then the packages, within the budget.
  const reserve = 2 * 1024;
  let budget = LLMS_TXT_BYTES - reserve - lines.reduce((total, line) => total + (typeof line === 'string' ? Buffer.byteLength(line) + 1 : 0), 0);
  const within = (items: string[]) => {
    let count = 0;
    for (; count < items.length && Buffer.byteLength(items[count]) + 1 <= budget; count++) budget -= Buffer.byteLength(items[count]) + 1;
    return count;
  };
  const advisoriesShown = within(advisories);
  const packagesShown = within(packages);
  const more = (count: number, what: string, where: string) =>
    count > 0 ? [item(`${count} more ${what}`, where, `not listed here, to keep this file under ${LLMS_TXT_BYTES / 1024} KiB; the parts of llms-full (Optional, below) name the mirrors each holds`)] : [];
  const text = lines.flatMap((line) => {
    if (line === PACKAGES) return [...packages.slice(0, packagesShown), ...more(packages.length - packagesShown, 'packages', url('search-page'))];
    if (line === ADVISORIES) {
      if (advisories.length === 0) return ['No advisory is active at the latest commit.'];
      return [...advisories.slice(0, advisoriesShown), ...more(advisories.length - advisoriesShown, 'advisories', url('advisory-feed'))];
    }
    return [line];
  });
  return `${text.join('\n')}\n`;
}

/** Where composeLlmsTxt puts the package and advisory lists, once it knows how many fit. */
const PACKAGES = Symbol('packages');
const ADVISORIES = Symbol('advisories');

/**
 * The most bytes (UTF-8) of one part of `llms-full.txt`: an agent reads a part whole, in one
 * fetch and within its context, however large the catalog (every mirror of vcpkg's 2,867
 * packages is 6.9 MB; of 20,000 packages, past the longest string V8 can hold). A part is longer
 * only when one mirror alone is: a part holds at least one mirror, and a mirror is never split.
 */
export const LLMS_FULL_PART_BYTES = 512 * 1024;

/**
 * A mirror as llms-full's plan sees it: the name or id it is of, and its length in bytes (UTF-8).
 * The plan needs no text: the whole catalog's mirrors are hundreds of megabytes (about 430 MB for
 * 20,000 packages), so each part reads only its own (composeLlmsFullPart).
 */
export interface MirrorSize {
  readonly label: string;
  readonly bytes: number;
}

/** The mirrors of one part, by their index in the list, and the labels of its first and last. */
export interface LlmsFullPart {
  readonly start: number;
  readonly end: number;
  readonly first: string;
  readonly last: string;
}

const SEPARATOR = '\n---\n\n';

/**
 * How the mirrors fall into parts: in order, as many in each as fit in LLMS_FULL_PART_BYTES with
 * the part's header (sized for up to 999,999 parts, so the plan does not depend on the count).
 */
export function llmsFullParts(tip: TipDocuments, mirrors: readonly MirrorSize[]): LlmsFullPart[] {
  // The longest header: six-digit numbers, and a next part to name.
  const budget = LLMS_FULL_PART_BYTES - Buffer.byteLength(llmsFullPartHeader(tip, 999_998, 999_999));
  const parts: LlmsFullPart[] = [];
  let start = 0;
  let bytes = 0;
  mirrors.forEach((mirror, index) => {
    const size = Buffer.byteLength(SEPARATOR) + mirror.bytes;
    if (index > start && bytes + size > budget) {
      parts.push({ start, end: index, first: mirrors[start].label, last: mirrors[index - 1].label });
      start = index;
      bytes = 0;
    }
    bytes += size;
  });
  if (mirrors.length > start || parts.length === 0) parts.push({ start, end: mirrors.length, first: mirrors[start]?.label ?? '', last: mirrors.at(-1)?.label ?? '' });
  return parts;
}

/** The URL of part `number` (1-based): `/llms-full/{part}.txt`; the first is `/llms-full.txt` too. */
export function llmsFullPartUrl(tip: Pick<TipDocuments, 'siteUrl'>, number: number): string {
  return siteLink(tip, 'llms-full-part', { part: String(number) });
}

/** The header of part `number` of `count`: what a part holds besides its mirrors. */
export function llmsFullPartHeader(tip: TipDocuments, number: number, count: number): string {
  return [
    `# Package catalog at ${tip.siteUrl}: every mirror, part ${number} of ${count}`,
    '',
    `> ${summaryOf(tip)}`,
    '',
    `The markdown mirror of every package (${tip.records.size}, by name) and of every active advisory (${tip.advisories.size}, by id), each starting at its \`# \` heading and separated by a line \`---\`, in ${count} ${count === 1 ? 'part' : 'parts'} of at most ${LLMS_FULL_PART_BYTES / 1024} KiB. ${
      number < count ? `The next part is ${llmsFullPartUrl(tip, number + 1)}.` : 'This is the last part.'
    } The index of this site, ${siteLink(tip, 'llms-txt')}, lists every part.`,
    '',
  ].join('\n');
}

/**
 * Part `number` (1-based) of llms-full.txt, in the order its pieces are joined: its header, then its
 * mirrors, each whole, each after a separator. `mirrors`: this part's mirrors (those from `start` to
 * `end` of the plan), in order, as the caller holds them (the build: their stored objects).
 */
export function composeLlmsFullPart<Mirror>(tip: TipDocuments, parts: readonly LlmsFullPart[], number: number, mirrors: readonly Mirror[]): (string | Mirror)[] {
  const { start, end } = parts[number - 1];
  if (mirrors.length !== end - start) throw new Error(`part ${number} of llms-full holds ${end - start} mirrors, not ${mirrors.length}`);
  const pieces: (string | Mirror)[] = [llmsFullPartHeader(tip, number, parts.length)];
  for (const mirror of mirrors) pieces.push(SEPARATOR, mirror);
  return pieces;
}
