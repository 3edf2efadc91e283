/**
 * The documents' fixture story (written with demo/catalog-writer.ts: the same shas everywhere):
 *
 *   c0  zlib 1.3.1 <- openssl 3.0.0 <- curl 8.0.0 (runtime), curl also needs `cmake` to build,
 *       which is no package (a dangling dependency); curl has a scorecard; ggml <- llama.cpp (a
 *       dotted name); `bundle` (a name shadowed under /api/pkgs/ only); `evil`, whose every text
 *       field is hostile markdown and HTML
 *   c1  ZLIB-2026-1 (high) on zlib, fixed in 1.3.2: curl reaches it through openssl
 *   c2  GGML-2026-1 (low, newer) on ggml, whose summary is hostile XML; EVIL-1 on evil, whose
 *       `modified` is no date and whose text is hostile; OLD-1 on zlib, withdrawn (never active)
 *   c3  openssl 3.0.0 -> 3.0.1
 *   c4  leftpad added (the tip)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCatalog } from '../../build/build.ts';
import { createCatalogRepo, type CatalogCommit } from '../../demo/catalog-writer.ts';
import { advisory, hoursLater, manifest } from '../helpers/catalog.ts';

/** Text that must stay text in every document: a link to `javascript:`, raw HTML, emphasis, a table cell, a CDATA end. */
export const HOSTILE = 'Click [here](javascript:alert(1)) <script>alert(1)</script> *now* | `x` ]]> &amp;';

const CURL_SCORECARD = {
  date: '2026-01-01',
  repo: { name: 'github.com/curl/curl' },
  score: 7.5,
  checks: [
    { name: 'Code-Review', score: 8, reason: 'Found 8/10 approved changesets' },
    { name: 'Fuzzing', score: -1, reason: 'internal error: <b>timeout</b>' },
  ],
};

export const DOCUMENTS_STORY: CatalogCommit[] = [
  {
    message: 'Import the catalog',
    time: hoursLater(0),
    files: {
      'packages/zlib/manifest.json': manifest('zlib', { version: '1.3.1', license: 'Zlib', categories: ['compression'], homepage: 'https://zlib.net/', repository: 'https://github.com/madler/zlib', stars: 5000 }),
      'packages/openssl/manifest.json': manifest('openssl', { version: '3.0.0', license: 'Apache-2.0', categories: ['crypto'], dependencies: { runtime: ['zlib'] } }),
      'packages/curl/manifest.json': manifest('curl', { version: '8.0.0', license: 'curl', categories: ['networking'], dependencies: { build: ['cmake'], runtime: ['openssl'] } }),
      'packages/curl/scorecard.json': CURL_SCORECARD,
      'packages/ggml/manifest.json': manifest('ggml', { version: '0.1.0', categories: ['ml'] }),
      'packages/llama.cpp/manifest.json': manifest('llama.cpp', { version: 'b4000', description: 'LLM inference in C/C++', categories: ['ml'], dependencies: { build: ['ggml'] } }),
      'packages/bundle/manifest.json': manifest('bundle', { version: '0.1.0' }),
      'packages/evil/manifest.json': manifest('evil', {
        version: '6.6.6',
        description: `${HOSTILE}\n# not a heading`,
        license: 'MIT](javascript:alert(1))',
        categories: ['# heading', '<img src=x onerror=alert(1)>'],
        homepage: 'javascript:alert(1)',
        repository: 'https://example.org/evil?q=<script>',
      }),
    },
  },
  {
    message: 'Publish ZLIB-2026-1',
    time: hoursLater(1),
    files: {
      'advisories/ZLIB-2026-1.json': {
        ...advisory('ZLIB-2026-1', { package: 'zlib', fixed: '1.3.2', severity: 'HIGH', modified: '2026-01-01T01:00:00Z' }),
        summary: 'Heap overflow in inflate',
        details: 'A crafted stream overflows a buffer.\n\n```\ninflate(strm, Z_FINISH);\n```\n',
        aliases: ['CVE-2026-0001'],
        references: [{ type: 'ADVISORY', url: 'https://example.org/ZLIB-2026-1' }, { type: 'WEB', url: 'javascript:alert(1)' }],
      },
    },
  },
  {
    message: 'Publish GGML-2026-1 and EVIL-1; withdraw OLD-1',
    time: hoursLater(2),
    files: {
      'advisories/GGML-2026-1.json': {
        ...advisory('GGML-2026-1', { package: 'ggml', severity: 'LOW', modified: '2026-01-02T00:00:00Z' }),
        summary: '<b>bold</b> claim ]]> in ggml',
      },
      'advisories/EVIL-1.json': { ...advisory('EVIL-1', { package: 'evil', severity: 'CRITICAL', modified: 'not a date' }), summary: HOSTILE, details: HOSTILE },
      'advisories/OLD-1.json': advisory('OLD-1', { package: 'zlib', severity: 'LOW', withdrawn: '2026-01-01T02:00:00Z', modified: '2026-01-03T00:00:00Z' }),
    },
  },
  {
    message: 'Upgrade openssl to 3.0.1',
    time: hoursLater(3),
    files: { 'packages/openssl/manifest.json': manifest('openssl', { version: '3.0.1', license: 'Apache-2.0', categories: ['crypto'], dependencies: { runtime: ['zlib'] } }) },
  },
  {
    message: 'Add leftpad',
    time: hoursLater(4),
    files: { 'packages/leftpad/manifest.json': manifest('leftpad', { version: '1.0.0' }) },
  },
];

export interface DocumentsFixture {
  readonly dir: string;
  readonly repo: string;
  readonly out: string;
  /** Oldest first. */
  readonly shas: readonly string[];
  readonly tip: string;
  cleanup(): Promise<void>;
}

/** Writes the story and builds it (default site URL) into a fresh temporary directory; `out` names the output inside it. */
export async function buildDocumentsStory(out = 'out'): Promise<DocumentsFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'pkgcat-documents-'));
  const repo = join(dir, 'catalog');
  const shas = await createCatalogRepo(repo, DOCUMENTS_STORY);
  await buildCatalog({ repo, out: join(dir, out), progress: false, log: () => {} });
  return { dir, repo, out: join(dir, out), shas, tip: shas[shas.length - 1], cleanup: () => rm(dir, { recursive: true, force: true }) };
}
