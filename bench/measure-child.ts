/**
 * Runs one build in this process and prints its figures as one JSON line on stdout:
 *
 *   node bench/measure-child.ts --repo <catalog> --out <dir>
 *
 * The benchmark starts it as a child so that the peak RSS it reports
 * (`process.resourceUsage().maxRSS`, KiB) is the build's own, without `/usr/bin/time`. The parent
 * times the whole child, start-up included; `buildSeconds` here is buildCatalog alone. The build
 * runs in a thread with the limits `pkgcat build` gives its own (cli/build.ts), so that its heap is
 * sized as a user's is.
 */
import { enableCompileCache } from 'node:module';
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { once } from 'node:events';
import { BUILD_THREAD_LIMITS } from '../cli/build.ts';

// As bin/pkgcat.js does: the build's sources load from Node's compile cache, as they do for a user.
enableCompileCache();

if (isMainThread) {
  const { values } = parseArgs({ options: { repo: { type: 'string' }, out: { type: 'string' } } });
  if (!values.repo || !values.out) {
    process.stderr.write('usage: node bench/measure-child.ts --repo <catalog> --out <dir>\n');
    process.exit(2);
  }
  const cpuBefore = process.cpuUsage();
  const thread = new Worker(new URL(import.meta.url), { workerData: { repo: resolve(values.repo), out: resolve(values.out) }, resourceLimits: BUILD_THREAD_LIMITS });
  const [figures] = (await once(thread, 'message')) as [Record<string, unknown>];
  // Every thread of the process (the render workers too): on a shared machine, the work done, which the wall time is not.
  const cpu = process.cpuUsage(cpuBefore);
  process.stdout.write(`${JSON.stringify({ ...figures, cpuSeconds: (cpu.user + cpu.system) / 1e6, maxRssKiB: process.resourceUsage().maxRSS })}\n`);
} else {
  const { buildCatalog } = await import('../build/build.ts');
  const { repo, out } = workerData as { repo: string; out: string };
  let logLines = 0;
  /** When the release went live, from the start of buildCatalog. */
  const live: { releaseId: string; seconds: number }[] = [];
  /** When each commit of the run was composed, in ms from the start of buildCatalog (the benchmark's cost curve). */
  const composedMs: number[] = [];
  const started = performance.now();
  const result = await buildCatalog({
    repo,
    out,
    progress: false,
    log: () => {
      logLines += 1;
    },
    onLive: (releaseId) => live.push({ releaseId, seconds: (performance.now() - started) / 1000 }),
    onProgress: (progress) => {
      if (progress.phase === 'composing') composedMs[progress.done - 1] = Math.round(performance.now() - started);
    },
  });
  parentPort!.postMessage({
    tip: result.tip,
    commits: result.commits,
    composed: result.composed,
    releaseId: result.releaseId,
    diagnostics: result.diagnostics.length,
    logLines,
    buildSeconds: (performance.now() - started) / 1000,
    live,
    published: result.published,
    composedMs,
  });
}
