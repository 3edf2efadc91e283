/**
 * The XML documents read by the tools of their formats: the sitemap validated by xmllint against
 * the sitemaps.org schema, both Atom feeds parsed by a real feed parser (rss-parser) and checked
 * well-formed by xmllint; every document byte-stable from build to build.
 */
import { execFile, spawnSync } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Parser from 'rss-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WRITERS, type ReleaseContent, type Rendition } from '../../build/writers.ts';
import { buildCatalog } from '../../build/build.ts';
import { composeSitemap, SITEMAP_URL_LIMIT } from '../../src/compose/sitemap.ts';
import { tipDocuments } from '../../src/compose/documents.ts';
import { composeLlmsTxt, llmsFullParts } from '../../src/compose/llms.ts';
import { currentReleaseId, paths } from '../../src/store/layout.ts';
import type { PackageRecord } from '../../src/schemas/wire.ts';
import { buildDocumentsStory, DOCUMENTS_STORY, type DocumentsFixture } from './story.ts';
import { exported } from '../helpers/catalog.ts';

const SITE = 'http://127.0.0.1:8080';
const SITEMAP_XSD = join(import.meta.dirname, 'sitemap.xsd');

const hasXmllint = spawnSync('xmllint', ['--version']).status === 0;
if (!hasXmllint) console.warn('formats.test.ts: xmllint is not installed, so the XSD and well-formedness checks are SKIPPED (apt-get install -y libxml2-utils)');

/** xmllint's verdict on a file: exit status and what it printed. */
async function xmllint(...args: string[]): Promise<{ ok: boolean; output: string }> {
  try {
    const { stderr } = await promisify(execFile)('xmllint', args);
    return { ok: true, output: stderr };
  } catch (error) {
    return { ok: false, output: String((error as { stderr?: string }).stderr ?? error) };
  }
}

let fx: DocumentsFixture;
let publicDir: string;

beforeAll(async () => {
  fx = await buildDocumentsStory();
  publicDir = paths.public((await exported(fx.out))!);
});

afterAll(async () => {
  await fx?.cleanup();
});

const file = (name: string) => readFile(join(publicDir, name), 'utf8');

interface AtomItem {
  id: string;
  title: string;
  link: string;
  updated: string;
  summary?: string;
  content: string;
  pubDate?: string;
}
const parser = new Parser<{ updated: string }, AtomItem>({ customFields: { feed: ['updated'], item: ['updated'] } });

describe('sitemap.xml', () => {
  it.skipIf(!hasXmllint)('validates against the sitemaps.org schema (xmllint), and the check can fail', async () => {
    const result = await xmllint('--noout', '--schema', SITEMAP_XSD, join(publicDir, 'sitemap.xml'));
    expect(result, result.output).toMatchObject({ ok: true });
    const broken = join(fx.dir, 'broken-sitemap.xml');
    await writeFile(broken, (await file('sitemap.xml')).replace('</loc></url>', '</loc><changefreq>sometimes</changefreq></url>'));
    expect((await xmllint('--noout', '--schema', SITEMAP_XSD, broken)).ok).toBe(false);
  });

  it('lists the search and changes pages, every package page (dotted names kept) and every active advisory\'s page, absolute', async () => {
    const xml = await file('sitemap.xml');
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">')).toBe(true);
    expect([...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((match) => match[1])).toEqual([
      `${SITE}/`,
      `${SITE}/changes`,
      ...['bundle', 'curl', 'evil', 'ggml', 'leftpad', 'llama.cpp', 'openssl', 'zlib'].map((name) => `${SITE}/pkgs/${name}`),
      ...['EVIL-1', 'GGML-2026-1', 'ZLIB-2026-1'].map((id) => `${SITE}/advisories/${id}`),
    ]);
  });

  it(`past ${SITEMAP_URL_LIMIT} URLs keeps the first ${SITEMAP_URL_LIMIT} (pages, then packages by name) and the build says how many it left out`, async () => {
    const count = SITEMAP_URL_LIMIT + 1;
    const names = Array.from({ length: count }, (_, index) => `pkg-${String(index).padStart(6, '0')}`);
    const record = (name: string) => ({ name, advisories: [], links: { page: `/pkgs/${name}` } }) as unknown as PackageRecord;
    const tip = tipDocuments({ commit: { sha: 'a'.repeat(40), pushedAt: '2026-01-01T00:00:00Z', message: null }, siteUrl: SITE, records: names.map(record), transitive: new Map(), history: new Map() });
    const { xml, omitted } = await composeSitemap(tip);
    expect(omitted).toBe(3);
    const locs = [...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((match) => match[1]);
    expect(locs).toHaveLength(SITEMAP_URL_LIMIT);
    expect(locs.at(-1)).toBe(`${SITE}/pkgs/${names[SITEMAP_URL_LIMIT - 3]}`);

    const logged: string[] = [];
    const content = {
      tip: tip.commit,
      siteUrl: SITE,
      records: new Map(names.map((name) => [name, JSON.stringify(record(name))])),
      transitive: new Map(),
      history: new Map(),
      log: (line: string) => logged.push(line),
    } as unknown as ReleaseContent;
    const bodies = [];
    for await (const body of WRITERS.sitemap({ content, codeVersion: '', placedFiles: () => Promise.reject(new Error('not read')) })) bodies.push(body);
    expect(bodies).toHaveLength(1);
    expect(await (bodies[0].body as Rendition).render()).toEqual({ body: xml });
    expect(logged).toEqual([`warning: sitemap.xml lists the first ${SITEMAP_URL_LIMIT} pages, the protocol's limit; 3 are left out (docs/decisions.md "Sitemap")`]);
  });
});

describe('llms.txt past 512 KiB', () => {
  it('lists every advisory and the packages that fit, then how many more and where they are; it stays under 512 KiB', () => {
    // 6,000 packages with descriptions of 160 characters: about 1.2 MB of items.
    const names = Array.from({ length: 6000 }, (_, index) => `pkg-${String(index).padStart(5, '0')}`);
    const record = (name: string) =>
      ({ name, version: '1.0.0', description: `${name} ${'x'.repeat(150)}`, advisories: [], links: { self: `/api/pkgs/${name}.json`, markdown: `/pkgs/${name}.md`, page: `/pkgs/${name}`, sbom: `/api/pkgs/${name}/sbom.json`, badge: `/api/pkgs/${name}/badge.svg` } }) as unknown as PackageRecord;
    const tip = tipDocuments({ commit: { sha: 'a'.repeat(40), pushedAt: '2026-01-01T00:00:00Z', message: null }, siteUrl: SITE, records: names.map(record), transitive: new Map(), history: new Map() });
    const mirrors = names.map((name) => ({ label: name, bytes: Buffer.byteLength(`# ${name}\n${'y'.repeat(2000)}\n`) }));
    const parts = llmsFullParts(tip, mirrors);
    const llms = composeLlmsTxt(tip, parts);
    expect(Buffer.byteLength(llms)).toBeLessThanOrEqual(512 * 1024);
    const listed = [...llms.matchAll(/^- \[(pkg-\d+)\]/gm)].map((match) => match[1]);
    expect(listed).toEqual(names.slice(0, listed.length));
    expect(listed.length).toBeGreaterThan(2000);
    expect(llms).toContain(
      `- [${names.length - listed.length} more packages](${SITE}/): not listed here, to keep this file under 512 KiB; the parts of llms-full (Optional, below) name the mirrors each holds\n`,
    );
    // Every part is still listed, with the names it holds.
    expect(parts.length).toBeGreaterThan(20);
    expect(llms).toContain(`- [Every mirror, part ${parts.length} of ${parts.length}](${SITE}/llms-full/${parts.length}.txt): ${parts.at(-1)!.first} to pkg-05999\n`);
  });
});

describe('Atom feeds', () => {
  it.skipIf(!hasXmllint)('are well-formed XML (xmllint)', async () => {
    for (const feed of ['pkgs/advisories.xml', 'pkgs/changes.xml']) {
      const result = await xmllint('--noout', join(publicDir, feed));
      expect(result, `${feed}: ${result.output}`).toMatchObject({ ok: true });
    }
  });

  it('/pkgs/advisories.xml: one entry per active advisory, newest first by `modified`, ids from the advisory id, `updated` from `modified`', async () => {
    const feed = await parser.parseString(await file('pkgs/advisories.xml'));
    expect(feed.title).toBe(`Security advisories: package catalog at ${SITE}`);
    expect(feed.feedUrl).toBe(`${SITE}/pkgs/advisories.xml`);
    expect(feed.updated).toBe('2026-01-01T04:00:00.000Z');
    expect(feed.items.map((item) => [item.id, item.link, item.updated])).toEqual([
      [`${SITE}/advisories/GGML-2026-1`, `${SITE}/advisories/GGML-2026-1`, '2026-01-02T00:00:00.000Z'],
      [`${SITE}/advisories/ZLIB-2026-1`, `${SITE}/advisories/ZLIB-2026-1`, '2026-01-01T01:00:00.000Z'],
      // `modified` is no date: last, dated by `published`.
      [`${SITE}/advisories/EVIL-1`, `${SITE}/advisories/EVIL-1`, '2026-01-01T00:00:00.000Z'],
    ]);
    // Titles are HTML (type="html"): catalog text escaped, a CDATA end included.
    expect(feed.items.map((item) => item.title)).toEqual([
      'GGML-2026-1 (low): &lt;b&gt;bold&lt;/b&gt; claim ]]&gt; in ggml',
      'ZLIB-2026-1 (high): Heap overflow in inflate',
      'EVIL-1 (critical): Click [here](javascript:alert(1)) &lt;script&gt;alert(1)&lt;/script&gt; *now* | `x` ]]&gt; &amp;amp;',
    ]);
    const zlib = feed.items[1];
    expect(zlib.content).toContain(`<ul><li><a href="${SITE}/pkgs/zlib">zlib</a> 1.3.1 (fixed in 1.3.2)</li></ul>`);
    expect(zlib.content).toContain(`<li><a href="${SITE}/pkgs/curl">curl</a>: curl → openssl → zlib</li>`);
    expect(zlib.content).toContain('<a href="https://example.org/ZLIB-2026-1">');
    expect(zlib.content).not.toContain('javascript:');
    expect(feed.items[2].content).toContain('<pre>Click [here](javascript:alert(1)) &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(feed.items[2].content).not.toMatch(/<script|href="javascript/);
  });

  it('/pkgs/changes.xml: one entry per recent commit, newest first, what it changed (the diff endpoint\'s helper)', async () => {
    const feed = await parser.parseString(await file('pkgs/changes.xml'));
    expect(feed.feedUrl).toBe(`${SITE}/pkgs/changes.xml`);
    const newestFirst = [...fx.shas].reverse();
    expect(feed.items.map((item) => [item.id, item.title, item.updated, item.summary])).toEqual([
      [`${SITE}/changes#${newestFirst[0]}`, 'Add leftpad', '2026-01-01T04:00:00.000Z', '1 package added'],
      [`${SITE}/changes#${newestFirst[1]}`, 'Upgrade openssl to 3.0.1', '2026-01-01T03:00:00.000Z', '1 version change'],
      [`${SITE}/changes#${newestFirst[2]}`, 'Publish GGML-2026-1 and EVIL-1; withdraw OLD-1', '2026-01-01T02:00:00.000Z', '2 advisory changes'],
      [`${SITE}/changes#${newestFirst[3]}`, 'Publish ZLIB-2026-1', '2026-01-01T01:00:00.000Z', '1 advisory change'],
      [`${SITE}/changes#${newestFirst[4]}`, 'Import the catalog', '2026-01-01T00:00:00.000Z', '7 packages added'],
    ]);
    expect(feed.items[1].content).toContain(`<h3>Version changes (1)</h3>\n<ul><li><a href="${SITE}/pkgs/openssl">openssl</a> 3.0.0 → 3.0.1 (upgrade)</li></ul>`);
    expect(feed.items[2].content).toContain(`<li><a href="${SITE}/pkgs/ggml">ggml</a>: 0 → 1 active; highest severity none → low; new: GGML-2026-1</li>`);
    expect(feed.items[4].content).toContain(', the first commit of main: 7 packages added.</p>');
  });
});

describe('byte-stability', () => {
  /** The documents of a release: every public file but the JSON API's. */
  async function documents(out: string): Promise<Map<string, Buffer>> {
    const dir = paths.public((await exported(out))!);
    const files = new Map<string, Buffer>();
    for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
      const path = join(entry.parentPath, entry.name).slice(dir.length + 1);
      // The JSON surfaces and the HTML pages (tests/site/) are not documents.
      if (entry.isFile() && !path.startsWith('api/') && !path.endsWith('.html')) files.set(path, await readFile(join(dir, path)));
    }
    return files;
  }

  it('the same tip gives the same bytes, built again later; another site URL changes only the URLs', async () => {
    const first = await documents(fx.out);
    expect(first.size).toBe(1 + 2 + 1 + 1 + 8 + 3 + 2);
    const again = join(fx.dir, 'again');
    await buildCatalog({ repo: fx.repo, out: again, progress: false, log: () => {} });
    expect(await documents(again)).toEqual(first);

    const moved = join(fx.dir, 'moved');
    await buildCatalog({ repo: fx.repo, out: moved, siteUrl: 'https://catalog.example.org/pkgcat', progress: false, log: () => {} });
    const elsewhere = await documents(moved);
    expect([...elsewhere.keys()].sort()).toEqual([...first.keys()].sort());
    for (const [path, bytes] of first) {
      expect(elsewhere.get(path)!.toString('utf8'), path).toBe(bytes.toString('utf8').replaceAll(SITE, 'https://catalog.example.org/pkgcat'));
    }
    expect(DOCUMENTS_STORY).toHaveLength(fx.shas.length);
  });
});
