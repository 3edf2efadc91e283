/**
 * `npm run screenshots`: the demo site (what `npm start` serves) in a real browser, one picture
 * of each page kind in the light and the dark scheme, into docs/screenshots/ (shown in the README).
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { HAS_CHROMIUM, NO_CHROMIUM_REASON, launchBrowser, startDemoSite } from './demo-site.ts';

/** Each page kind, as the README shows it. */
export const SCREENSHOTS = [
  { kind: 'search', path: '/?category=compression', title: 'The search page, filtered by a category' },
  { kind: 'package', path: '/pkgs/cmake', title: 'A package\'s detail page' },
  { kind: 'advisory', path: '/advisories/PKGCAT-DEMO-2026-0003', title: 'An advisory and its blast radius' },
  { kind: 'changes', path: '/changes', title: 'The changes page' },
] as const;

const OUT = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));

if (!HAS_CHROMIUM) {
  console.error(`screenshots: ${NO_CHROMIUM_REASON}`);
  process.exit(1);
}
await mkdir(OUT, { recursive: true });
const [site, browser] = await Promise.all([startDemoSite(), launchBrowser()]);
try {
  for (const colorScheme of ['light', 'dark'] as const) {
    const context = await browser.newContext({ baseURL: site.url, colorScheme, viewport: { width: 1200, height: 800 } });
    for (const { kind, path } of SCREENSHOTS) {
      const page = await context.newPage();
      await page.goto(path);
      const file = `${OUT}${kind}-${colorScheme}.png`;
      await page.screenshot({ path: file });
      console.log(file);
      await page.close();
    }
    await context.close();
  }
} finally {
  await browser.close();
  await site.close();
}
