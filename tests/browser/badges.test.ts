/**
 * Badges render in a real browser (Debian's Chromium through playwright-core; skipped, with the
 * reason, when /usr/bin/chromium is not installed): a page of `<img>` tags pointing at a gateway
 * over the demo catalog, as a README embeds them. Every image loads and is drawn at the width its
 * SVG declares. The screenshot goes to the test's temporary folder; with PKGCAT_UPDATE_SCREENSHOTS=1
 * it replaces docs/badges.png (Chromium's PNG bytes vary from run to run, so a plain run leaves
 * the working tree alone).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { makeDemoCatalog } from '../../demo/make-demo-catalog.ts';
import { build, temporaryDirectory } from '../helpers/catalog.ts';
import { send, startGateway, type Gateway } from '../gateway/harness.ts';

const CHROMIUM = '/usr/bin/chromium';
const DOCS_SCREENSHOT = join(import.meta.dirname, '../../docs/badges.png');
if (!existsSync(CHROMIUM)) {
  console.warn(`tests/browser/badges.test.ts: ${CHROMIUM} is not installed, so badges are not rendered in a browser: SKIPPED (apt-get install -y chromium)`);
}

/** The badges of the page: demo packages in each score band and with an advisory, every style, a label of one's own. */
const ROWS: { caption: string; paths: string[] }[] = [
  { caption: 'metric=score (default)', paths: ['curl', 'openssl', 'zlib', 'libpng', 'sqlite', 'cmake'].map((name) => `/api/pkgs/${name}/badge.svg`) },
  { caption: 'metric=advisories', paths: ['curl', 'zlib'].map((name) => `/api/pkgs/${name}/badge.svg?metric=advisories`) },
  {
    caption: 'style=…',
    paths: ['flat', 'flat-square', 'plastic', 'for-the-badge', 'social'].map((style) => `/api/pkgs/curl/badge.svg?style=${style}`),
  },
  { caption: 'label=…', paths: ['/api/pkgs/curl/badge.svg?label=OpenSSF%20Scorecard', '/api/pkgs/curl/badge.svg?metric=advisories&label=curl%20advisories'] },
];

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

function page(base: string): string {
  const rows = ROWS.map(
    ({ caption, paths }) =>
      `<tr><th>${escapeHtml(caption)}</th><td>${paths.map((path) => `<img src="${escapeHtml(base + path)}" alt="${escapeHtml(path)}">`).join(' ')}</td></tr>`,
  );
  return `<!doctype html><html><head><meta charset="utf-8"><style>
body { margin: 16px; font: 13px sans-serif; background: #fff; }
th { text-align: left; font-weight: normal; color: #555; padding: 6px 16px 6px 0; }
td { white-space: nowrap; }
img { vertical-align: middle; margin-right: 6px; }
</style></head><body><table>${rows.join('')}</table></body></html>`;
}

describe.skipIf(!existsSync(CHROMIUM))('badges in Chromium', () => {
  let gw: Gateway;
  let browser: Browser;
  let screenshot: string;

  beforeAll(async () => {
    const dir = await temporaryDirectory('pkgcat-browser-');
    screenshot = process.env.PKGCAT_UPDATE_SCREENSHOTS === '1' ? DOCS_SCREENSHOT : join(dir, 'badges.png');
    await makeDemoCatalog(join(dir, 'catalog'));
    await build(join(dir, 'catalog'), join(dir, 'out'));
    gw = await startGateway(join(dir, 'out'), dir);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  it('loads every badge of a page as an image drawn at the width its SVG declares', async () => {
    const tab = await browser.newPage({ viewport: { width: 960, height: 160 }, deviceScaleFactor: 1 });
    await tab.setContent(page(gw.url), { waitUntil: 'load' });
    // Runs in the page: the elements are HTMLImageElements (the project's types have no DOM library).
    type Image = { alt: string; complete: boolean; naturalWidth: number; naturalHeight: number };
    const images = await tab.$$eval('img', (elements) =>
      (elements as unknown as Image[]).map((image) => ({ alt: image.alt, complete: image.complete, width: image.naturalWidth, height: image.naturalHeight })),
    );
    expect(images).toHaveLength(ROWS.flatMap((row) => row.paths).length);
    for (const image of images) {
      const svg = (await send(gw.url, image.alt)).body.toString('utf8');
      const declared = /^<svg [^>]*width="([\d.]+)" height="([\d.]+)"/.exec(svg);
      expect(declared, image.alt).not.toBeNull();
      expect(image.complete, image.alt).toBe(true);
      // A width like 63.5 (for-the-badge) is drawn 63 or 64 pixels wide.
      expect(Math.abs(image.width - Number(declared![1])), image.alt).toBeLessThan(1);
      expect(Math.abs(image.height - Number(declared![2])), image.alt).toBeLessThan(1);
      expect(image.width, image.alt).toBeGreaterThan(0);
    }
    expect((await tab.screenshot({ path: screenshot, fullPage: true })).length).toBeGreaterThan(1000);
    await tab.close();
  });
});
