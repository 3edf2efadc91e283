/**
 * `npm run lighthouse`: Lighthouse (the `lighthouse` package, with Debian's chromium) on the main
 * page kinds of the demo site, in Lighthouse's default mobile profile (simulated slow 4G and a 4x
 * slower CPU) and its desktop profile. Prints the scores and writes them, with the machine they
 * ran on, to docs/lighthouse.json (docs/site.md shows them). Needs `lighthouse` installed.
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { CHROMIUM, HAS_CHROMIUM, NO_CHROMIUM_REASON, startDemoSite } from './demo-site.ts';

/** The page kinds measured (SCREENSHOTS' pages). */
export const MEASURED = [
  { kind: 'search', path: '/' },
  { kind: 'package', path: '/pkgs/cmake' },
  { kind: 'changes', path: '/changes' },
  { kind: 'advisory', path: '/advisories/PKGCAT-DEMO-2026-0003' },
] as const;

const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
const OUT = fileURLToPath(new URL('../../docs/lighthouse.json', import.meta.url));

interface LighthouseResult {
  lhr: { lighthouseVersion: string; categories: Record<string, { score: number | null }>; audits: Record<string, { numericValue?: number }> };
}
type Lighthouse = (url: string, flags: object, config?: object) => Promise<LighthouseResult | undefined>;

if (!HAS_CHROMIUM) {
  console.error(`lighthouse: ${NO_CHROMIUM_REASON}`);
  process.exit(1);
}
// Imported by name at run time: lighthouse is a tool of this script, not a dependency the tests typecheck against.
const load = (specifier: string): Promise<unknown> => import(specifier);
const { default: lighthouse } = (await load('lighthouse')) as { default: Lighthouse };
const desktop = ((await load('lighthouse/core/config/desktop-config.js')) as { default: object }).default;
const chromeLauncher = (await load('chrome-launcher')) as { launch(options: object): Promise<{ port: number; kill(): Promise<void> }> };

const site = await startDemoSite();
const chrome = await chromeLauncher.launch({ chromePath: CHROMIUM, chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
const results: Record<string, unknown>[] = [];
let version = '';
try {
  for (const profile of ['mobile', 'desktop'] as const) {
    for (const { kind, path } of MEASURED) {
      const run = await lighthouse(`${site.url}${path}`, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: [...CATEGORIES] }, profile === 'desktop' ? desktop : undefined);
      if (!run) throw new Error(`lighthouse gave no result for ${path}`);
      version = run.lhr.lighthouseVersion;
      const scores = Object.fromEntries(CATEGORIES.map((category) => [category, Math.round((run.lhr.categories[category]?.score ?? 0) * 100)]));
      const metrics = {
        firstContentfulPaintMs: Math.round(run.lhr.audits['first-contentful-paint']?.numericValue ?? 0),
        largestContentfulPaintMs: Math.round(run.lhr.audits['largest-contentful-paint']?.numericValue ?? 0),
        totalBlockingTimeMs: Math.round(run.lhr.audits['total-blocking-time']?.numericValue ?? 0),
        cumulativeLayoutShift: run.lhr.audits['cumulative-layout-shift']?.numericValue ?? 0,
        transferBytes: Math.round(run.lhr.audits['total-byte-weight']?.numericValue ?? 0),
      };
      results.push({ profile, kind, path, ...scores, ...metrics });
      console.log(`${profile.padEnd(8)} ${kind.padEnd(9)} ${CATEGORIES.map((category) => `${category} ${scores[category]}`).join(', ')}; LCP ${metrics.largestContentfulPaintMs} ms, ${metrics.transferBytes} bytes`);
    }
  }
} finally {
  await chrome.kill();
  await site.close();
}
const machine = { cpus: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), loadAverage: loadavg().map((load) => Number(load.toFixed(2))), node: process.version };
await writeFile(OUT, `${JSON.stringify({ lighthouse: version, chromium: CHROMIUM, machine, results }, null, 2)}\n`);
console.log(OUT);
