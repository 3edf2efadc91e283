/** `pkgcat build`: builds every commit of main not built yet, then publishes the tip. */
import { Worker } from 'node:worker_threads';
import type { BuildProgress, BuildResult } from '../build/build.ts';
import type { Diagnostic } from '../src/compose/types.ts';
import { log, logFormat, type LogFormat } from '../src/log.ts';
import { endWithParent, hasParent, nextBuild, tellParent, type BuildRequest } from './build-channel.ts';
import type { BuildThreadMessage, BuildThreadRequest, BuildThreadSettings } from './build-worker.ts';
import { checkDirectory, Failure } from './errors.ts';
import { exportTo } from './export.ts';

/** Progress events in the JSON log (and messages to `serve`) per build: one every 5% of the commits. */
const PROGRESS_STEPS = 20;

/**
 * The build thread's limits: its young generation 48 MB (semi-spaces of 16 MB, where V8 lets them
 * grow to 64); its heap's limit is the process's (`--max-old-space-size`, in NODE_OPTIONS).
 * A build's garbage is short-lived (every document's views, bodies and keys): with the smaller
 * young generation a 20,000-package full build used 8 % less CPU beside the code before, at the
 * same peak RSS (docs/benchmarks.md). `--max-semi-space-size` in NODE_OPTIONS takes precedence.
 */
export const BUILD_THREAD_LIMITS = { maxYoungGenerationSizeMb: 48 };

type BuildCommand = { repo: string; out: string; siteUrl: string; quiet: boolean; wait: boolean; logFormat: LogFormat; exportDir?: string };

export async function runBuild(options: BuildCommand): Promise<number> {
  // Run by `serve --repo`: never outlive it (build-channel.ts).
  endWithParent();
  await checkDirectory(options.out, 'the output directory', { writable: true });
  const thread = new BuildThread({ logFormat: options.logFormat, terminal: process.stderr.isTTY ? { columns: process.stderr.columns } : null, staysUp: hasParent() });
  try {
    // Run by `serve --repo`, a build that succeeded stays for the next one (build-channel.ts); run by hand, it is the only one.
    for (let request: BuildRequest | null = { kind: 'build', quiet: options.quiet }; request; request = await nextBuild()) {
      await buildOnce(thread, { ...options, quiet: request.quiet });
    }
    return 0;
  } finally {
    await thread.close();
  }
}

/** One build in `thread`: its lines, its result, the export; `serve` is told it is done. */
async function buildOnce(thread: BuildThread, options: BuildCommand): Promise<void> {
  const started = performance.now();
  const { result, written } = await thread.build(
    {
      repo: options.repo,
      out: options.out,
      siteUrl: options.siteUrl,
      // The bar and its lines are for a person; the JSON log has build.progress events instead.
      progress: !options.quiet && options.logFormat === 'text',
      wait: options.wait,
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
}

interface ThreadListeners {
  line: (line: string, diagnostic?: Diagnostic) => void;
  progress: (progress: BuildProgress) => void;
  waiting: (holder: number | null) => void;
}

/**
 * The thread the builds run in (cli/build-worker.ts), so that whatever ends one (an error, running
 * out of memory, a crash of the thread) reaches the command as one Failure line. The thread has this
 * process's heap limit (`--max-old-space-size`, in NODE_OPTIONS). It runs one build at a time and
 * keeps what the last one kept for the next; once a build failed, it takes no other.
 */
class BuildThread {
  readonly #worker: Worker;
  /** The build running now: where its messages go. */
  #current: { on: ThreadListeners; resolve: (done: { result: BuildResult; written: { files: number; bytes: number } }) => void; reject: (failure: Failure) => void } | null = null;
  #ended: Failure | null = null;

  constructor(settings: BuildThreadSettings) {
    this.#worker = new Worker(new URL('./build-worker.ts', import.meta.url), { workerData: settings, resourceLimits: BUILD_THREAD_LIMITS });
    this.#worker.on('message', (message: BuildThreadMessage) => {
      const current = this.#current;
      if (!current) return;
      if (message.kind === 'waiting') current.on.waiting(message.holder);
      else if (message.kind === 'line') current.on.line(message.line, message.diagnostic);
      else if (message.kind === 'progress') current.on.progress(message.progress);
      else if (message.kind === 'done') {
        this.#current = null;
        current.resolve({ result: message.result, written: message.written });
      } else this.#end(new Failure(message.reason, message.code));
    });
    this.#worker.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        this.#end(new Failure('the build ran out of memory; give it more with NODE_OPTIONS=--max-old-space-size=<megabytes>'));
      } else {
        this.#end(new Failure(`the build stopped: ${error.message.split('\n')[0]}`));
      }
    });
    this.#worker.on('exit', (code) => this.#end(new Failure(`the build stopped unexpectedly (its thread exited with code ${code})`)));
  }

  build(request: BuildThreadRequest, on: ThreadListeners): Promise<{ result: BuildResult; written: { files: number; bytes: number } }> {
    if (this.#ended) return Promise.reject(this.#ended);
    return new Promise((resolve, reject) => {
      this.#current = { on, resolve, reject };
      this.#worker.postMessage(request);
    });
  }

  async close(): Promise<void> {
    this.#ended ??= new Failure('the build thread was closed');
    await this.#worker.terminate();
  }

  /** The thread takes no build after this; the running one fails with `failure`. */
  #end(failure: Failure): void {
    this.#ended ??= failure;
    const current = this.#current;
    this.#current = null;
    current?.reject(failure);
  }
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
