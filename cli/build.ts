/** `pkgcat build`: builds every commit of main not built yet, then publishes the tip. */
import { Worker } from 'node:worker_threads';
import type { BuildProgress, BuildResult } from '../build/build.ts';
import type { Diagnostic } from '../src/compose/types.ts';
import { log, logFormat, type LogFormat } from '../src/log.ts';
import { endWithParent, tellParent } from './build-channel.ts';
import type { BuildThreadMessage, BuildThreadOptions } from './build-worker.ts';
import { checkDirectory, Failure } from './errors.ts';
import { exportTo } from './export.ts';

/** Progress events in the JSON log (and messages to `serve`) per build: one every 5% of the commits. */
const PROGRESS_STEPS = 20;

export async function runBuild(options: { repo: string; out: string; siteUrl: string; quiet: boolean; wait: boolean; logFormat: LogFormat; exportDir?: string }): Promise<number> {
  // Run by `serve --repo`: never outlive it (build-channel.ts).
  endWithParent();
  await checkDirectory(options.out, 'the output directory', { writable: true });
  const started = performance.now();
  const { result, written } = await buildInThread(
    {
      repo: options.repo,
      out: options.out,
      siteUrl: options.siteUrl,
      // The bar and its lines are for a person; the JSON log has build.progress events instead.
      progress: !options.quiet && options.logFormat === 'text',
      wait: options.wait,
      logFormat: options.logFormat,
      terminal: process.stderr.isTTY ? { columns: process.stderr.columns } : null,
    },
    {
      line: buildLine,
      progress: progressReporter(options.quiet),
      waiting: (holder) => {
        log.info('build.waiting', `another build (pid ${holder ?? 'unknown'}) is writing ${options.out}; waiting for it to finish`, { holder });
        void tellParent({ kind: 'waiting', holder });
      },
    },
  );
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const problems = result.diagnostics.length > 0 ? `, ${result.diagnostics.length} diagnostics (see ${options.out}/current/diagnostics.json)` : '';
  const fields = { tip: result.tip, commits: result.commits, composed: result.composed, diagnostics: result.diagnostics.length, seconds: Number(seconds) };
  if (result.releaseId === null) {
    log.info('build.unchanged', `${result.tip.slice(0, 12)} is already built and published (${result.commits} commits); nothing to do`, fields);
  } else {
    log.info('build.done', `built ${result.composed} new of ${result.commits} commits in ${seconds} s; published ${result.tip.slice(0, 12)}${problems}`, fields);
  }
  // After publishing: the release is live whatever becomes of the export.
  if (options.exportDir) await exportTo(options.out, options.exportDir, options.quiet);
  const diagnostics: Record<string, number> = {};
  for (const { level } of result.diagnostics) diagnostics[level] = (diagnostics[level] ?? 0) + 1;
  await tellParent({ kind: 'done', tip: result.tip, releaseId: result.releaseId, figures: { composed: result.composed, files: written.files, bytes: written.bytes, diagnostics } });
  return 0;
}

interface ThreadListeners {
  line: (line: string, diagnostic?: Diagnostic) => void;
  progress: (progress: BuildProgress) => void;
  waiting: (holder: number | null) => void;
}

/**
 * Runs the build in a thread of this process (cli/build-worker.ts), so that whatever ends it (an
 * error, running out of memory, a crash of the thread) reaches the command as one Failure line.
 * The thread has this process's heap limit (`--max-old-space-size`, in NODE_OPTIONS).
 */
function buildInThread(options: BuildThreadOptions, on: ThreadListeners): Promise<{ result: BuildResult; written: { files: number; bytes: number } }> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (failure: Failure) => {
      if (settled) return;
      settled = true;
      reject(failure);
    };
    const thread = new Worker(new URL('./build-worker.ts', import.meta.url), { workerData: options });
    thread.on('message', (message: BuildThreadMessage) => {
      if (message.kind === 'waiting') on.waiting(message.holder);
      else if (message.kind === 'line') on.line(message.line, message.diagnostic);
      else if (message.kind === 'progress') on.progress(message.progress);
      else if (message.kind === 'done') {
        settled = true;
        resolve({ result: message.result, written: message.written });
      } else fail(new Failure(message.reason, message.code));
    });
    thread.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        fail(new Failure('the build ran out of memory; give it more with NODE_OPTIONS=--max-old-space-size=<megabytes>'));
      } else {
        fail(new Failure(`the build stopped: ${error.message.split('\n')[0]}`));
      }
    });
    thread.on('exit', (code) => fail(new Failure(`the build stopped unexpectedly (its thread exited with code ${code})`)));
  });
}

/** A line of the build: a diagnostic, or a note (the sitemap's limit). Text as the build writes it; JSON as an event. */
function buildLine(line: string, diagnostic?: Diagnostic): void {
  if (logFormat() === 'text') return void process.stderr.write(`${line}\n`);
  if (diagnostic) log.warn('build.diagnostic', line, { severity: diagnostic.level, commit: diagnostic.commit, path: diagnostic.path });
  else log.warn('build.warning', line);
}

/** How far the build has got: told to `serve` (its first-build page) and, in the JSON log, as build.progress events. */
function progressReporter(quiet: boolean): (progress: BuildProgress) => void {
  let step = -1;
  return (progress) => {
    if (progress.phase === 'publishing') {
      void tellParent({ kind: 'progress', progress });
      if (!quiet && logFormat() === 'json') log.info('build.progress', 'publishing the release', { phase: 'publishing' });
      return;
    }
    const reached = Math.floor((progress.done / progress.total) * PROGRESS_STEPS);
    if (reached === step) return;
    step = reached;
    void tellParent({ kind: 'progress', progress });
    if (!quiet && logFormat() === 'json') log.info('build.progress', `${progress.done}/${progress.total} commits`, { ...progress });
  };
}
