/**
 * The site in a real browser (playwright-core driving Debian's chromium) against the demo
 * catalog, as `npm start` serves it: the search finds a package by a word of its description,
 * the filters narrow the list and the URL keeps them, a detail page shows a transitive
 * advisory's dependency path, the inline JSON equals the API body byte for byte, no page logs an
 * error, the list is there with JavaScript off, signing in from a page returns to it, and every
 * page kind has no axe-core violation in light and dark.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { USER } from '../gateway/harness.ts';
import { HAS_CHROMIUM, NO_CHROMIUM_REASON, launchBrowser, startDemoSite, type DemoSite } from './demo-site.ts';

// What the callbacks run by page.evaluate use of the page's globals (the tests compile without the DOM library).
declare const document: {
  getElementById(id: string): { textContent: string | null; id: string } | null;
  querySelector<T>(selector: string): T | null;
  activeElement: { textContent: string | null; id: string } | null;
};
declare const window: unknown;
type HTMLAnchorElement = { href: string };

if (!HAS_CHROMIUM) console.warn(`browser.test.ts: ${NO_CHROMIUM_REASON}`);

/** One page of each kind. */
const PAGE_KINDS = { search: '/', package: '/pkgs/cmake', advisory: '/advisories/PKGCAT-DEMO-2026-0003', changes: '/changes' } as const;

const require = createRequire(import.meta.url);
const AXE = (() => {
  try {
    return require.resolve('axe-core');
  } catch {
    return null;
  }
})();

describe.skipIf(!HAS_CHROMIUM)('the site in a browser', () => {
  let site: DemoSite;
  let browser: Browser;
  let context: BrowserContext;
  /** Console errors and uncaught exceptions of every page opened in `context`. */
  const errors: string[] = [];

  beforeAll(async () => {
    [site, browser] = await Promise.all([startDemoSite(), launchBrowser()]);
    context = await browser.newContext({ baseURL: site.url });
    context.on('page', (page) => watch(page));
  });

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  function watch(page: Page): void {
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`${page.url()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`${page.url()}: ${error.message}`));
  }

  const open = async (path: string) => {
    const page = await context.newPage();
    await page.goto(path);
    return page;
  };
  const visibleNames = (page: Page) => page.locator('#packages > li:visible h2 a').allTextContents();

  it('the search finds a package by a word of its description', async () => {
    const page = await open('/');
    await page.getByLabel('Search names and descriptions').fill('Burrows');
    expect(await visibleNames(page)).toEqual(['bzip2']);
    await expect.poll(() => page.url()).toBe(`${site.url}/?q=Burrows`);
    await page.getByLabel('Search names and descriptions').fill('');
    expect(await visibleNames(page)).toHaveLength(53);
    await page.close();
  });

  it('the filters narrow the list and the URL keeps them, across a reload', async () => {
    const page = await open('/');
    await page.getByLabel('Category').selectOption('compression');
    expect(await visibleNames(page)).toEqual(['brotli', 'bzip2', 'libarchive', 'lz4', 'snappy', 'xz', 'zlib', 'zstd']);
    await page.getByLabel('Sort by').selectOption('stars');
    const byStars = await visibleNames(page);
    expect(byStars).toHaveLength(8);
    expect(byStars[0]).toBe('zstd');
    expect(new URL(page.url()).search).toBe('?category=compression&sort=stars');
    await expect.poll(() => page.locator('#count').textContent()).toBe('8 of 53 packages');
    // The sign-in link returns to the filtered list.
    expect(await page.locator('#sign-in').getAttribute('href')).toBe(`/auth/login?next=${encodeURIComponent('/?category=compression&sort=stars')}`);
    await page.reload();
    expect(await page.getByLabel('Category').inputValue()).toBe('compression');
    expect(await visibleNames(page)).toEqual(byStars);
    await page.goto('/?severity=medium');
    expect(await page.getByLabel('Advisory severity').inputValue()).toBe('medium');
    expect(await visibleNames(page)).toEqual(['curl']);
    await page.close();
  });

  it('a detail page shows a transitive advisory with its dependency path', async () => {
    const page = await open('/pkgs/cmake');
    const path = page.getByRole('list', { name: 'Dependency path from cmake to curl' });
    expect(await path.getByRole('listitem').allTextContents()).toEqual(['cmake', 'curl']);
    await page.getByRole('link', { name: 'PKGCAT-DEMO-2026-0003' }).first().click();
    await page.waitForURL('**/advisories/PKGCAT-DEMO-2026-0003');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('PKGCAT-DEMO-2026-0003');
    await page.close();
  });

  it('the inline JSON equals the API body byte for byte', async () => {
    const page = await open('/pkgs/llama.cpp');
    const [inline, api] = await page.evaluate(async () => [
      document.getElementById('envelope')!.textContent,
      await (await fetch('/api/pkgs/llama.cpp.json')).text(),
    ]);
    expect(inline).toBe(api);
    await page.close();
  });

  it('with JavaScript off, the search page is the plain list of every package', async () => {
    const plain = await browser.newContext({ baseURL: site.url, javaScriptEnabled: false });
    const page = await plain.newPage();
    await page.goto('/?category=compression');
    expect(await visibleNames(page)).toHaveLength(53);
    expect(await page.locator('#search').isVisible()).toBe(false);
    await page.getByRole('link', { name: 'zlib', exact: true }).click();
    await page.waitForURL('**/pkgs/zlib');
    await plain.close();
  });

  it('signing in from a page: a wrong password shows the form with a message, the right one returns to the page', async () => {
    // Its own context: a failed sign-in answers 401, which the browser logs as a failed load.
    const own = await browser.newContext({ baseURL: site.url });
    const page = await own.newPage();
    await page.goto('/pkgs/curl');
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/auth/login' && url.search === '?next=%2Fpkgs%2Fcurl');
    await page.getByLabel('Username').fill(USER.username);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.getByRole('alert').textContent()).toBe('Unknown username or wrong password.');
    expect(await page.getByLabel('Username').inputValue()).toBe(USER.username);
    await page.getByLabel('Password').fill(USER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${site.url}/pkgs/curl`);
    // Signed in, the sha-pinned links of the page answer.
    const deps = await page.evaluate(async () => (await fetch(document.querySelector<HTMLAnchorElement>('a[href$="/deps.json"]')!.href)).status);
    expect(deps).toBe(200);
    await own.close();
  });

  it('the keyboard reaches the skip link first, and it moves focus to the content', async () => {
    const page = await open('/pkgs/zlib');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    await page.close();
  });

  it.skipIf(AXE === null)('every page kind has no axe-core violation, light and dark', async () => {
    const source = await readFile(AXE!, 'utf8');
    for (const colorScheme of ['light', 'dark'] as const) {
      const themed = await browser.newContext({ baseURL: site.url, colorScheme });
      for (const [kind, path] of Object.entries(PAGE_KINDS)) {
        const page = await themed.newPage();
        await page.goto(path);
        await page.addScriptTag({ content: source });
        const violations = await page.evaluate(async () => {
          const result = await (window as unknown as { axe: { run(): Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }> } }).axe.run();
          return result.violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
        });
        expect(violations, `${kind} (${colorScheme})`).toEqual([]);
        await page.close();
      }
      await themed.close();
    }
  });

  it('no page logged an error', async () => {
    for (const path of [...Object.values(PAGE_KINDS), '/pkgs/llama.cpp', '/pkgs/jq']) await (await open(path)).close();
    expect(errors).toEqual([]);
  });
});

if (AXE === null && HAS_CHROMIUM) console.warn('browser.test.ts: axe-core is not installed, so the accessibility check is SKIPPED');
