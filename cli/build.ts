/** `pkgcat build`: builds every commit of main not built yet, then publishes the tip. */
import { Worker } from 'node:worker_threads';
import type { BuildResult } from '../build/build.ts';
import { endWithParent, tellParent } from './build-channel.ts';
import type { BuildThreadMessage, BuildThreadOptions } from './build-worker.ts';
import { checkDirectory, Failure } from './errors.ts';

export async function runBuild(options: { repo: string; out: string; siteUrl: string; quiet: boolean; wait: boolean }): Promise<number> {
  // Run by `serve --repo`: never outlive it (build-channel.ts).
  endWithParent();
  await checkDirectory(options.out, 'the output directory', { writable: true });
  const started = performance.now();
  const result = await buildInThread(
    {
      repo: options.repo,
      out: options.out,
      siteUrl: options.siteUrl,
      progress: !options.quiet,
      wait: options.wait,
      terminal: process.stderr.isTTY ? { columns: process.stderr.columns } : null,
    },
    (holder) => {
      process.stderr.write(`pkgcat: another build (pid ${holder ?? 'unknown'}) is writing ${options.out}; waiting for it to finish\n`);
      void tellParent({ kind: 'waiting', holder });
    },
  );
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const problems = result.diagnostics.length > 0 ? `, ${result.diagnostics.length} diagnostics (see ${options.out}/current/diagnostics.json)` : '';
  if (result.releaseId === null) {
    process.stderr.write(`pkgcat: ${result.tip.slice(0, 12)} is already built and published (${result.commits} commits); nothing to do\n`);
  } else {
    process.stderr.write(`pkgcat: built ${result.composed} new of ${result.commits} commits in ${seconds} s; published ${result.tip.slice(0, 12)}${problems}\n`);
  }
  await tellParent({ kind: 'done', tip: result.tip, releaseId: result.releaseId });
  return 0;
}

/**
 * Runs the build in a thread of this process (cli/build-worker.ts), so that whatever ends it (an
 * error, running out of memory, a crash of the thread) reaches the command as one Failure line.
 * The thread has this process's heap limit (`--max-old-space-size`, in NODE_OPTIONS).
 */
function buildInThread(options: BuildThreadOptions, waiting: (holder: number | null) => void): Promise<BuildResult> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: BuildResult | Failure) => {
      if (settled) return;
      settled = true;
      if (outcome instanceof Failure) reject(outcome);
      else resolve(outcome);
    };
    const thread = new Worker(new URL('./build-worker.ts', import.meta.url), { workerData: options });
    thread.on('message', (message: BuildThreadMessage) => {
      if (message.kind === 'waiting') waiting(message.holder);
      else if (message.kind === 'done') settle(message.result);
      else settle(new Failure(message.reason));
    });
    thread.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        settle(new Failure("the build ran out of memory; give it more with NODE_OPTIONS=--max-old-space-size=<megabytes>"));
      } else {
        settle(new Failure(`the build stopped: ${error.message.split('\n')[0]}`));
      }
    });
    thread.on('exit', (code) => settle(new Failure(`the build stopped unexpectedly (its thread exited with code ${code})`)));
  });
}
