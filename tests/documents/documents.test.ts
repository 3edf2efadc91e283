/**
 * The documents for agents, crawlers and feed readers, over real HTTP against the documents story
 * (story.ts): the headers SPEC.md and DECISIONS.md 8 give, the exact markdown of a mirror, the
 * escaping of hostile catalog text, and llms.txt / llms-full.txt in the llms.txt format.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentReleaseId, paths } from '../../src/store/layout.ts';
import { send, startGateway, type Gateway } from '../gateway/harness.ts';
import { CACHE_CONTROL, DOCUMENT_CONTENT_TYPE, JSON_CONTENT_TYPE } from '../helpers/spec.ts';
import { buildDocumentsStory, DOCUMENTS_STORY, type DocumentsFixture } from './story.ts';
import { exportedFile } from '../helpers/catalog.ts';

/** The site URL the story is built for: the build's default, `pkgcat serve`'s address. */
const SITE = 'http://127.0.0.1:8080';

let fx: DocumentsFixture;
let gw: Gateway;

beforeAll(async () => {
  fx = await buildDocumentsStory();
  gw = await startGateway(fx.out, fx.dir);
});

afterAll(async () => {
  await gw?.close();
  await fx?.cleanup();
});

const get = (path: string, headers: Record<string, string> = {}) => send(gw.url, path, { headers });
const text = async (path: string) => {
  const reply = await get(path);
  expect(reply.status, path).toBe(200);
  return reply.body.toString('utf8');
};

async function publicFile(file: string): Promise<Buffer> {
  return exportedFile(fx.out, file);
}

/** Lines a manifest adds to git's count: the catalog writer writes `JSON.stringify(manifest, null, 2)` and a newline. */
const manifestLines = (commit: number, name: string) => JSON.stringify(DOCUMENTS_STORY[commit].files![`packages/${name}/manifest.json`], null, 2).split('\n').length;
const archiveHash = (name: string, version: string) => createHash('sha256').update(`${name}@${version}`).digest('hex');

describe('headers', () => {
  it.each([
    ['/pkgs/llama.cpp.md', 'pkgs/llama.cpp.md', DOCUMENT_CONTENT_TYPE.markdown, CACHE_CONTROL.pages],
    ['/advisories/ZLIB-2026-1.md', 'advisories/ZLIB-2026-1.md', DOCUMENT_CONTENT_TYPE.markdown, CACHE_CONTROL.pages],
    ['/llms.txt', 'llms.txt', DOCUMENT_CONTENT_TYPE.text, CACHE_CONTROL.pages],
    ['/llms-full.txt', 'llms-full.txt', DOCUMENT_CONTENT_TYPE.text, CACHE_CONTROL.pages],
    ['/llms-full/1.txt', 'llms-full/1.txt', DOCUMENT_CONTENT_TYPE.text, CACHE_CONTROL.pages],
    ['/sitemap.xml', 'sitemap.xml', DOCUMENT_CONTENT_TYPE.xml, CACHE_CONTROL.pages],
    ['/pkgs/advisories.xml', 'pkgs/advisories.xml', DOCUMENT_CONTENT_TYPE.atom, CACHE_CONTROL.feed],
    ['/pkgs/changes.xml', 'pkgs/changes.xml', DOCUMENT_CONTENT_TYPE.atom, CACHE_CONTROL.feed],
  ])('%s: the file the build wrote, %s, anonymous, with its Content-Type and Cache-Control', async (path, file, contentType, cacheControl) => {
    const cookie = await gw.signIn();
    for (const headers of [{}, { cookie }] as Record<string, string>[]) {
      const reply = await get(path, headers);
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toBe(contentType);
      expect(reply.headers.get('cache-control')).toBe(cacheControl);
      expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
      expect(reply.headers.get('vary')).toBe('Accept-Encoding');
      expect(reply.headers.get('set-cookie')).toBeNull();
      expect(reply.body.equals(await publicFile(file))).toBe(true);
    }
    const head = await send(gw.url, path, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length'), head.body.length]).toEqual([200, String((await publicFile(file)).length), 0]);
  });

  it('names are case-insensitive, as on /api/pkgs/ (DECISIONS.md 4): another spelling answers the same bytes', async () => {
    const canonical = await get('/pkgs/llama.cpp.md');
    for (const path of ['/pkgs/LLAMA.CPP.md', '/pkgs/Llama.Cpp.md']) {
      const reply = await get(path);
      expect(reply.status).toBe(200);
      expect(reply.body.equals(canonical.body)).toBe(true);
    }
  });

  it('a name shadowed under /api/pkgs/ (`bundle`) has its mirror: the rule is for /api/pkgs/ only', async () => {
    expect((await get('/api/pkgs/bundle.json')).status).toBe(404);
    expect((await text('/pkgs/bundle.md')).startsWith('# bundle\n')).toBe(true);
  });

  it.each([
    ['/pkgs/no-such-package.md', 'No package named "no-such-package" in the catalog.'],
    ['/pkgs/-bad.md', 'No package named "-bad" in the catalog.'],
    ['/advisories/OLD-1.md', 'No advisory "OLD-1" is active at the latest commit.'],
    ['/advisories/zlib-2026-1.md', 'No advisory "zlib-2026-1" is active at the latest commit.'],
    ['/advisories/NOPE.md', 'No advisory "NOPE" is active at the latest commit.'],
  ])('%s: 404 with the short negative cache of an unknown name (DECISIONS.md 8)', async (path, message) => {
    const reply = await get(path);
    expect(reply.status).toBe(404);
    expect(reply.headers.get('cache-control')).toBe(CACHE_CONTROL.negative);
    expect(reply.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
    expect(reply.json()).toEqual({ error: 'not_found', message });
  });
});

describe('markdown mirrors', () => {
  it('/pkgs/llama.cpp.md: a dotted name kept, the whole mirror', async () => {
    // Nothing in it names the tip: it changes only when what it shows does; versions.json is linked at the commit that shipped the newest version.
    const c0 = fx.shas[0];
    expect(await text('/pkgs/llama.cpp.md')).toBe(`# llama.cpp

LLM inference in C/C++

- **Version:** b4000
- **License:** MIT
- **Categories:** ml
- **Stars:** 0
- **Homepage:** <https://example.org/llama.cpp>
- **Repository:** none
- **Archive:** <https://example.org/llama.cpp-b4000.tar.gz>
- **Archive SHA-256:** \`${archiveHash('llama.cpp', 'b4000')}\`
- **Catalog state:** the latest commit of main (its sha and time: [recent-commits.json](${SITE}/api/pkgs/recent-commits.json))

## Dependencies

### Build

- [ggml](${SITE}/pkgs/ggml.md)

### Runtime

None.

## Reverse dependencies

None.

## Advisories

None active.

## Transitive advisories

Advisories active on a package this one reaches through its build and runtime dependencies; the path goes from this package to the package that carries the advisory.

- [GGML-2026-1](${SITE}/advisories/GGML-2026-1.md) (low: \\<b\\>bold\\</b\\> claim \\]\\]\\> in ggml; no fixed version known), path: llama.cpp → ggml

## Scorecard

No scorecard in the catalog.

## Versions

Newest first: the commit that shipped each version, and what it changed under \`packages/llama.cpp/\` since the previous one.

| Version | Shipped | Commit | Files changed | Lines added | Lines removed |
|---|---|---|---|---|---|
| b4000 | 2026-01-01T00:00:00Z | \`${c0.slice(0, 12)}\` | 1 | +${manifestLines(0, 'llama.cpp')} | -0 |

Every version's dependencies: [versions.json](${SITE}/api/pkgs/bundle/${c0}/llama.cpp/versions.json) (signed in).

## Links

- Page: <${SITE}/pkgs/llama.cpp>
- JSON record: <${SITE}/api/pkgs/llama.cpp.json>
- SBOM: <${SITE}/api/pkgs/llama.cpp/sbom.json> (CycloneDX 1.5), <${SITE}/api/pkgs/llama.cpp/sbom.json?format=spdx> (SPDX 2.3)
- Badge: <${SITE}/api/pkgs/llama.cpp/badge.svg> (scorecard score), <${SITE}/api/pkgs/llama.cpp/badge.svg?metric=advisories> (active advisories)

Embed the badge:

\`\`\`markdown
[![llama.cpp score](${SITE}/api/pkgs/llama.cpp/badge.svg)](${SITE}/pkgs/llama.cpp)
\`\`\`
`);
  });

  it('/pkgs/curl.md: a dangling dependency marked, a transitive advisory with its path, the scorecard and its checks', async () => {
    const curl = await text('/pkgs/curl.md');
    expect(curl).toContain(`## Dependencies

### Build

- cmake (**missing**: not in the catalog)

### Runtime

- [openssl](${SITE}/pkgs/openssl.md)
`);
    expect(curl).toContain(`## Transitive advisories

Advisories active on a package this one reaches through its build and runtime dependencies; the path goes from this package to the package that carries the advisory.

- [ZLIB-2026-1](${SITE}/advisories/ZLIB-2026-1.md) (high: Heap overflow in inflate; fixed in 1.3.2), path: curl → openssl → zlib
`);
    expect(curl).toContain(`## Scorecard

OpenSSF Scorecard: **7.5 / 10** (75 / 100), dated 2026-01-01, for github.com/curl/curl.

| Check | Score | Reason |
|---|---|---|
| Code-Review | 8 | Found 8/10 approved changesets |
| Fuzzing | n/a | internal error: \\<b\\>timeout\\</b\\> |
`);
  });

  it('/pkgs/zlib.md: a direct advisory with its severity, fixed versions and details; reverse dependencies', async () => {
    const zlib = await text('/pkgs/zlib.md');
    expect(zlib).toContain(`## Reverse dependencies

1 package depends on zlib: [openssl](${SITE}/pkgs/openssl.md).
`);
    expect(zlib).toContain(`## Advisories

### [ZLIB-2026-1](${SITE}/advisories/ZLIB-2026-1.md): Heap overflow in inflate

- **Severity:** high
- **Fixed in:** 1.3.2
- **Aliases:** CVE-2026-0001
- **Published:** 2026-01-01T00:00:00Z
- **Modified:** 2026-01-01T01:00:00Z
- **References:** <https://example.org/ZLIB-2026-1>

Details:

\`\`\`\`text
A crafted stream overflows a buffer.

\`\`\`
inflate(strm, Z_FINISH);
\`\`\`
\`\`\`\`
`);
    expect(zlib).not.toContain('OLD-1');
  });

  it('/pkgs/evil.md: hostile catalog text stays text (no link, image, HTML, emphasis or table cell comes out of it)', async () => {
    const evil = await text('/pkgs/evil.md');
    const hostile = 'Click \\[here\\](javascript:alert(1)) \\<script\\>alert(1)\\</script\\> \\*now\\* \\| \\`x\\` \\]\\]\\> \\&amp;';
    expect(evil.split('\n').slice(0, 9).join('\n')).toBe(`# evil

${hostile} # not a heading

- **Version:** 6.6.6
- **License:** MIT\\](javascript:alert(1))
- **Categories:** \\# heading, \\<img src=x onerror=alert(1)\\>
- **Stars:** 0
- **Homepage:** none`);
    // A `javascript:` homepage never reaches a document: the catalog reader drops it with a warning (docs/catalog-format.md).
    expect(evil).toContain('- **Repository:** <https://example.org/evil?q=%3Cscript%3E>\n');
    expect(evil).toContain(`### [EVIL-1](${SITE}/advisories/EVIL-1.md): ${hostile}\n`);
    // The details, verbatim, in a fenced code block: the one place the text is not escaped.
    expect(evil).toContain('```text\nClick [here](javascript:alert(1)) <script>alert(1)</script> *now* | `x` ]]> &amp;\n```\n');
    const outsideCode = evil.replace(/^(`{3,})[^\n]*\n[\s\S]*?\n\1$/gm, '');
    expect(outsideCode).not.toMatch(/(^|[^\\])\]\(javascript:/);
    expect(outsideCode).not.toMatch(/(^|[^\\])<(script|img)/);
    expect(outsideCode).not.toMatch(/<javascript:/);
  });

  it('/advisories/ZLIB-2026-1.md: the advisory, the packages it is active on, and its blast radius with paths', async () => {
    expect(await text('/advisories/ZLIB-2026-1.md')).toBe(`# ZLIB-2026-1: Heap overflow in inflate

- **Severity:** high
- **Aliases:** CVE-2026-0001
- **Published:** 2026-01-01T00:00:00Z
- **Modified:** 2026-01-01T01:00:00Z
- **References:** <https://example.org/ZLIB-2026-1>
- **Catalog state:** the latest commit of main (its sha and time: [recent-commits.json](${SITE}/api/pkgs/recent-commits.json))

Details:

\`\`\`\`text
A crafted stream overflows a buffer.

\`\`\`
inflate(strm, Z_FINISH);
\`\`\`
\`\`\`\`

## Affected packages

Active on 1 package at the latest commit:

| Package | Version | Fixed in |
|---|---|---|
| [zlib](${SITE}/pkgs/zlib.md) | 1.3.1 | 1.3.2 |

## Blast radius

2 packages reach an affected package through build and runtime dependencies; each path is a shortest one, from the package to the affected one:

| Package | Path |
|---|---|
| [curl](${SITE}/pkgs/curl.md) | curl → openssl → zlib |
| [openssl](${SITE}/pkgs/openssl.md) | openssl → zlib |
`);
  });
});

describe('llms.txt and llms-full.txt', () => {
  const PACKAGES = ['bundle', 'curl', 'evil', 'ggml', 'leftpad', 'llama.cpp', 'openssl', 'zlib'];
  const ADVISORIES = ['EVIL-1', 'GGML-2026-1', 'ZLIB-2026-1'];

  it('llms.txt: an H1, a summary blockquote, then sections of links (llmstxt.org), every mirror listed', async () => {
    const llms = await text('/llms.txt');
    const lines = llms.split('\n');
    expect(lines[0]).toBe(`# Package catalog at ${SITE}`);
    expect(lines[1]).toBe('');
    expect(lines[2]).toMatch(/^> A read-only catalog of 8 third-party software packages, .* 3 advisories are active at the latest commit of main\.$/);
    expect(lines.filter((line) => line.startsWith('#'))).toEqual([
      `# Package catalog at ${SITE}`,
      '## Pages',
      '## JSON API',
      '## Tool server',
      '## Package mirrors',
      '## Advisory mirrors',
      '## Optional',
    ]);
    // Every line of a section is a link item `- [title](absolute URL)` with an optional note.
    const sections = llms.slice(llms.indexOf('\n## ')).split('\n').filter((line) => line !== '' && !line.startsWith('## '));
    for (const line of sections) expect(line).toMatch(new RegExp(`^- \\[[^\\]\\n]+\\]\\(${SITE.replace(/\./g, '\\.')}/[^)\\s]*\\)(: .+)?$`));
    for (const name of PACKAGES) expect(llms).toContain(`](${SITE}/pkgs/${name}.md): `);
    for (const id of ADVISORIES) expect(llms).toContain(`- [${id}](${SITE}/advisories/${id}.md): `);
    expect(llms).toContain(`- [llama.cpp](${SITE}/pkgs/llama.cpp.md): b4000, LLM inference in C/C++\n`);
    expect(llms).toContain(`- [ZLIB-2026-1](${SITE}/advisories/ZLIB-2026-1.md): high, Heap overflow in inflate; active on zlib; 2 other packages reach it\n`);
    expect(llms).toContain(`- [OpenAPI document](${SITE}/api/pkgs/openapi.json): `);
    expect(llms).toContain(`- [MCP tool server](${SITE}/api/mcp): Model Context Protocol over stateless streamable HTTP`);
    expect(llms).toContain(
      `- [Every mirror, part 1 of 1](${SITE}/llms-full/1.txt): the package and advisory mirrors above, concatenated (each mirror lists the newest 20 versions), in 1 part of at most 512 KiB; this one, also at ${SITE}/llms-full.txt: bundle to ZLIB-2026-1\n`,
    );
    expect(llms.endsWith('\n')).toBe(true);
  });

  it('llms-full.txt: part 1 of 1, with the summary of llms.txt, then every package mirror and every advisory mirror, whole, in order', async () => {
    const full = await text('/llms-full.txt');
    const mirrors = await Promise.all([...PACKAGES.map((name) => text(`/pkgs/${name}.md`)), ...ADVISORIES.map((id) => text(`/advisories/${id}.md`))]);
    const llms = await text('/llms.txt');
    const summary = llms.split('\n')[2];
    expect(full.split('\n').slice(0, 5)).toEqual([
      `# Package catalog at ${SITE}: every mirror, part 1 of 1`,
      '',
      summary,
      '',
      `The markdown mirror of every package (8, by name) and of every active advisory (3, by id), each starting at its \`# \` heading and separated by a line \`---\`, in 1 part of at most 512 KiB. This is the last part. The index of this site, ${SITE}/llms.txt, lists every part.`,
    ]);
    expect(full.slice(full.indexOf('\n---\n')).split('\n---\n\n').slice(1)).toEqual(mirrors);
    expect(await text('/llms-full/1.txt')).toBe(full);
  });

  it.each(['2', '0', '01', 'x'])('/llms-full/%s.txt is no part: 404 not_found, saying where the parts are listed', async (part) => {
    const reply = await get(`/llms-full/${part}.txt`);
    expect([reply.status, reply.headers.get('cache-control')]).toEqual([404, CACHE_CONTROL.negative]);
    expect(JSON.parse(reply.body.toString('utf8'))).toEqual({ error: 'not_found', message: `No part "${part}" of llms-full.txt at the latest commit; /llms.txt lists every part.` });
  });
});
