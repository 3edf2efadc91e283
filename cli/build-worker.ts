/**
 * The thread `pkgcat build` builds in (cli/build.ts). A build that runs out of memory in the
 * process's main thread is a fatal V8 error: a native stack trace and an abort, no line of ours.
 * In a thread it is an error the main thread receives, and the command ends with one line.
 * Everything the build says (its lines, its progress, a wait for the lock) goes to the main thread
 * as a message: only the main thread logs and talks to `serve`. The thread runs the builds the main
 * thread asks for, one at a time, with one Builder (build/build.ts), until it is terminated.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Builder, type BuildProgress, type BuildResult } from '../build/build.ts';
import type { Diagnostic } from '../src/compose/types.ts';
import { configureLog, type LogFormat } from '../src/log.ts';
import { writtenSoFar } from '../src/store/atomic.ts';
import { oneLine } from './errors.ts';

/** What the build thread tells the command's thread. */
export type BuildThreadMessage =
  | { kind: 'waiting'; holder: number | null }
  | { kind: 'line'; line: string; diagnostic?: Diagnostic }
  | { kind: 'progress'; progress: BuildProgress }
  | { kind: 'done'; result: BuildResult; written: { files: number; bytes: number } }
  | { kind: 'failed'; reason: string; code?: string };

/** How the thread writes: set once, for every build it runs. */
export interface BuildThreadSettings {
  logFormat: LogFormat;
  /** Whether the process's stderr is a terminal (a thread's own stderr never is): progress draws a bar there. */
  terminal: { columns: number } | null;
  /** Whether more builds may follow (`serve --repo`'s build process): the builder keeps its state for them. */
  staysUp: boolean;
}

/** One build the command's thread asks for. */
export interface BuildThreadRequest {
  repo: string;
  out: string;
  siteUrl: string;
  /** Draw the progress bar and lines (a person reads them). */
  progress: boolean;
  wait: boolean;
}

const settings = workerData as BuildThreadSettings;
const tell = (message: BuildThreadMessage) => parentPort!.postMessage(message);
// The thread writes through the process's stderr: when that is a terminal, so is this.
if (settings.terminal) Object.assign(process.stderr, { isTTY: true, columns: settings.terminal.columns });
configureLog(settings.logFormat);

/** One builder for every build of this thread: each starts from what the last one kept. */
const builder = new Builder(settings.staysUp);

async function build(request: BuildThreadRequest): Promise<void> {
  const before = writtenSoFar();
  try {
    const result = await builder.build({
      repo: request.repo,
      out: request.out,
      siteUrl: request.siteUrl,
      progress: request.progress,
      log: (line, diagnostic) => tell({ kind: 'line', line, ...(diagnostic && { diagnostic }) }),
      onProgress: (progress) => tell({ kind: 'progress', progress }),
      waitForLock: request.wait ? (holder) => tell({ kind: 'waiting', holder }) : undefined,
    });
    const after = writtenSoFar();
    tell({ kind: 'done', result, written: { files: after.files - before.files, bytes: after.bytes - before.bytes } });
    // A builder that stays up holds the catalog's state until the next commit: collected once now,
    // while it waits, the next build starts from what it holds and not from this one's garbage
    // (the process's peak at 20,000 packages: 1.0 GiB, 1.2 GiB when V8 chose when to collect;
    // docs/benchmarks.md). `serve --repo` starts this process with --expose-gc.
    if (settings.staysUp) (globalThis as { gc?: () => void }).gc?.();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | null)?.code;
    tell({ kind: 'failed', reason: oneLine(error), ...(typeof code === 'string' && { code }) });
  }
}

// Builds one at a time, as the command's thread asks (it waits for each one's answer).
parentPort!.on('message', (request: BuildThreadRequest) => void build(request));
