/**
 * Runs one build in this process and prints its figures as one JSON line on stdout:
 *
 *   node bench/measure-child.ts --repo <catalog> --out <dir>
 *
 * The benchmark starts it as a child so that the peak RSS it reports
 * (`process.resourceUsage().maxRSS`, KiB) is the build's own, without `/usr/bin/time`. The parent
 * times the whole child, start-up included; `buildSeconds` here is buildCatalog alone.
 */
import { enableCompileCache } from 'node:module';
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';

// As bin/pkgcat.js does: the build's sources load from Node's compile cache, as they do for a user.
enableCompileCache();
const { buildCatalog } = await import('../build/build.ts');

const { values } = parseArgs({ options: { repo: { type: 'string' }, out: { type: 'string' } } });
if (!values.repo || !values.out) {
  process.stderr.write('usage: node bench/measure-child.ts --repo <catalog> --out <dir>\n');
  process.exit(2);
}

let logLines = 0;
/** When the release went live, from the start of buildCatalog. */
const live: { releaseId: string; seconds: number }[] = [];
/** When each commit of the run was composed, in ms from the start of buildCatalog (the benchmark's cost curve). */
const composedMs: number[] = [];
const started = performance.now();
const cpuBefore = process.cpuUsage();
const result = await buildCatalog({
  repo: resolve(values.repo),
  out: resolve(values.out),
  progress: false,
  log: () => {
    logLines += 1;
  },
  onLive: (releaseId) => live.push({ releaseId, seconds: (performance.now() - started) / 1000 }),
  onProgress: (progress) => {
    if (progress.phase === 'composing') composedMs[progress.done - 1] = Math.round(performance.now() - started);
  },
});
const buildSeconds = (performance.now() - started) / 1000;
// Every thread of the process (the render workers too): on a shared machine, the work done, which the wall time is not.
const cpu = process.cpuUsage(cpuBefore);

process.stdout.write(
  `${JSON.stringify({
    tip: result.tip,
    commits: result.commits,
    composed: result.composed,
    releaseId: result.releaseId,
    diagnostics: result.diagnostics.length,
    logLines,
    buildSeconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    live,
    published: result.published,
    maxRssKiB: process.resourceUsage().maxRSS,
    composedMs,
  })}\n`,
);
