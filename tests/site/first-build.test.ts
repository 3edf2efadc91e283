/**
 * What a person sees on `npm start`, before the first build is published, in a real browser
 * (playwright-core driving Debian's chromium): a small page says the catalog is being built and how
 * far the build has got, and reloads itself until the search page is there. A script asking the
 * same address keeps its JSON error. The build is held back by holding the output's build lock,
 * as another build would, so the page is seen for sure, and let go to watch it become the catalog.
 * The page has no axe-core violation, light or dark.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { makeDemoCatalog } from '../../demo/make-demo-catalog.ts';
import { acquireLock } from '../../src/store/lock.ts';
import { startServeProcess, type ServeProcess } from '../../bench/helpers/serve-process.ts';
import { cleanEnv } from '../cli/run.ts';
import { startGateway } from '../gateway/harness.ts';
import { HAS_CHROMIUM, NO_CHROMIUM_REASON, launchBrowser } from './demo-site.ts';

declare const window: unknown;

if (!HAS_CHROMIUM) console.warn(`first-build.test.ts: ${NO_CHROMIUM_REASON}`);

describe.skipIf(!HAS_CHROMIUM)('the first-build page in a browser', () => {
  let dir: string;
  let browser: Browser;
  let serve: ServeProcess | undefined;

  beforeAll(async () => {
    [dir, browser] = await Promise.all([mkdtemp(join(tmpdir(), 'pkgcat-first-build-')), launchBrowser()]);
  });

  afterAll(async () => {
    await serve?.stop();
    await browser?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('says the catalog is being built, reloads itself, and becomes the search page once it is', async () => {
    const repo = join(dir, 'catalog');
    const out = join(dir, 'out');
    await makeDemoCatalog(repo);
    // Another build holds the output: serve's first build waits for it.
    const unlock = await acquireLock(join(out, 'build', 'lock'));
    try {
      serve = await startServeProcess(['--out', out, '--repo', repo, '--session-dir', join(dir, 'sessions')], cleanEnv());
      await serve.waitForLog(/^pkgcat: another build \(pid \d+\) is writing .*; waiting for it to finish$/m);
      expect(serve.log()).toMatch(new RegExp(`^pkgcat: the first build is running: ${serve.url}/ shows how far it has got, and the catalog in a few seconds$`, 'm'));
      expect(serve.log()).not.toContain('the catalog is ready');

      // A script keeps its JSON error.
      const script = await fetch(`${serve.url}/`);
      expect(script.status).toBe(404);
      expect(await script.json()).toEqual({ error: 'not_found', message: 'The catalog has no commits yet.' });

      const page = await browser.newPage();
      const answer = await page.goto(`${serve.url}/`);
      expect(answer?.status()).toBe(503);
      expect(answer?.headers()['content-type']).toBe('text/html; charset=utf-8');
      expect(answer?.headers()['retry-after']).toBe('2');
      expect(await page.title()).toBe('The catalog is being built · pkgcat');
      expect(await page.locator('h1').textContent()).toBe('The catalog is being built');
      expect(await page.getByRole('status').textContent()).toBe('The build has started.');
      expect(await page.locator('meta[http-equiv="refresh"]').getAttribute('content')).toBe('2');

      // Any page, not only the search.
      const other = await browser.newPage();
      expect((await other.goto(`${serve.url}/pkgs/zlib`))?.status()).toBe(503);
      expect(await other.locator('h1').textContent()).toBe('The catalog is being built');
      await other.close();

      await unlock();
      // The page reloads itself until the catalog is there.
      await page.waitForSelector('#packages > li', { timeout: 180_000 });
      expect(page.url()).toBe(`${serve.url}/`);
      await serve.waitForLog(new RegExp(`^pkgcat: the catalog is ready: open ${serve.url}/$`, 'm'));
      await page.close();
    } finally {
      await unlock();
    }
  }, 240_000);

  it('shows how far the build has got', async () => {
    const gateway = await startGateway(join(dir, 'empty-out'), join(dir, 'progress'), {
      building: () => ({ running: true, composed: { done: 12, total: 48 }, publishing: false, failed: false }),
    });
    try {
      const page = await browser.newPage();
      await page.goto(`${gateway.url}/changes`);
      expect(await page.getByRole('status').textContent()).toBe('12 of 48 commits composed.');
      expect(await page.getByRole('progressbar', { name: 'Build progress' }).getAttribute('value')).toBe('25');
      await page.close();

      // No axe-core violation, light and dark: checked on the page's markup without its reload, which could come mid-check.
      const html = (await (await fetch(`${gateway.url}/changes`, { headers: { accept: 'text/html' } })).text()).replace(/<meta http-equiv="refresh"[^>]*>/, '');
      const axe = await readFile(createRequire(import.meta.url).resolve('axe-core'), 'utf8');
      for (const colorScheme of ['light', 'dark'] as const) {
        const themed = await browser.newContext({ colorScheme });
        const still = await themed.newPage();
        await still.setContent(html);
        await still.addScriptTag({ content: axe });
        const violations = await still.evaluate(async () => {
          const result = await (window as unknown as { axe: { run(): Promise<{ violations: { id: string }[] }> } }).axe.run();
          return result.violations.map((violation) => violation.id);
        });
        expect(violations, colorScheme).toEqual([]);
        await themed.close();
      }
    } finally {
      await gateway.close();
    }
  });
});
