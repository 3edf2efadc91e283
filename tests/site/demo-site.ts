/**
 * The demo catalog (demo/, what `npm start` serves) built and served by a gateway over real HTTP,
 * and a real browser: playwright-core driving Debian's chromium (`.ci/run` installs it). Browser
 * tests are skipped, saying why, only when /usr/bin/chromium is absent.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { buildCatalog } from '../../build/build.ts';
import { makeDemoCatalog } from '../../demo/make-demo-catalog.ts';
import { startGateway, type Gateway } from '../gateway/harness.ts';

export const CHROMIUM = '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);
export const NO_CHROMIUM_REASON = `${CHROMIUM} is not installed, so the browser tests are SKIPPED (apt-get install -y chromium, as .ci/run does)`;

export interface DemoSite {
  readonly gateway: Gateway;
  readonly url: string;
  readonly out: string;
  readonly shas: readonly string[];
  close(): Promise<void>;
}

/** Writes the demo catalog, builds it and serves it (with the harness's user, who can sign in). */
export async function startDemoSite(): Promise<DemoSite> {
  const dir = await mkdtemp(join(tmpdir(), 'pkgcat-site-'));
  const repo = join(dir, 'catalog');
  const out = join(dir, 'out');
  const shas = await makeDemoCatalog(repo);
  await buildCatalog({ repo, out, progress: false, log: () => {} });
  const gateway = await startGateway(out, dir);
  return {
    gateway,
    url: gateway.url,
    out,
    shas,
    async close() {
      await gateway.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Headless chromium with the flags a container needs. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}
