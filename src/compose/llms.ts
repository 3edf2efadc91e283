/**
 * `/llms.txt`, the site's index for agents in the llms.txt format (https://llmstxt.org/: an H1,
 * a summary blockquote, then sections of links, `## Optional` last), and `/llms-full.txt`, every
 * markdown mirror in one file. Every URL is absolute, from the site URL.
 */
import { COMMITS_LIMIT } from './commits.ts';
import { escapeMarkdown, MIRROR_VERSIONS } from './markdown.ts';
import { absolute, oneLine, siteLink, type TipDocuments } from './documents.ts';
import { isReservedName } from '../grammar.ts';

/** A package's note in llms.txt: its version and its description, cut at a word boundary. */
const NOTE_LENGTH = 160;

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
export function composeLlmsTxt(tip: TipDocuments): string {
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
    ...[...tip.records.values()].map((record) =>
      item(escapeMarkdown(record.name), absolute(tip, record.links.markdown), `${escapeMarkdown(record.version)}, ${escapeMarkdown(shorten(record.description, NOTE_LENGTH)) || 'no description'}`),
    ),
    '',
    '## Advisory mirrors',
    '',
    ...(tip.advisories.size > 0
      ? [...tip.advisories.values()].map(({ id, direct, reaching }) => {
          const advisory = direct[0].advisory;
          const on = direct.map(({ record }) => escapeMarkdown(record.name)).join(', ');
          const note = `${advisory.severity}${advisory.summary ? `, ${escapeMarkdown(shorten(advisory.summary, NOTE_LENGTH))}` : ''}; active on ${on}; ${reaching.length} other ${reaching.length === 1 ? 'package reaches' : 'packages reach'} it`;
          return item(escapeMarkdown(id), url('advisory-markdown', { id }), note);
        })
      : ['No advisory is active at the latest commit.']),
    '',
    '## Optional',
    '',
    item('Every mirror in one file', url('llms-full-txt'), `the package and advisory mirrors above, concatenated (each mirror lists the newest ${MIRROR_VERSIONS} versions)`),
  ];
  return `${lines.join('\n')}\n`;
}

/** `/llms-full.txt`: the header of llms.txt, then every package mirror and every advisory mirror, each whole. */
export function composeLlmsFullTxt(tip: TipDocuments, mirrors: Iterable<string>): string {
  const parts = [
    ...header(tip),
    `The markdown mirror of every package (${tip.records.size}, by name) and of every active advisory (${tip.advisories.size}, by id), each starting at its \`# \` heading and separated by a line \`---\`. The index of this site is ${siteLink(tip, 'llms-txt')}.`,
  ].join('\n');
  let text = `${parts}\n`;
  for (const mirror of mirrors) text += `\n---\n\n${mirror}`;
  return text;
}
