/**
 * The thread `pkgcat build` builds in (cli/build.ts). A build that runs out of memory in the
 * process's main thread is a fatal V8 error: a native stack trace and an abort, no line of ours.
 * In a thread it is an error the main thread receives, and the command ends with one line.
 * Everything the build says (its lines, its progress, a wait for the lock) goes to the main thread
 * as a message: only the main thread logs and talks to `serve`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { buildCatalog, type BuildProgress, type BuildResult } from '../build/build.ts';
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

export interface BuildThreadOptions {
  repo: string;
  out: string;
  siteUrl: string;
  /** Draw the progress bar and lines (a person reads them). */
  progress: boolean;
  wait: boolean;
  logFormat: LogFormat;
  /** Whether the process's stderr is a terminal (a thread's own stderr never is): progress draws a bar there. */
  terminal: { columns: number } | null;
}

const options = workerData as BuildThreadOptions;
const tell = (message: BuildThreadMessage) => parentPort!.postMessage(message);
// The thread writes through the process's stderr: when that is a terminal, so is this.
if (options.terminal) Object.assign(process.stderr, { isTTY: true, columns: options.terminal.columns });
configureLog(options.logFormat);

try {
  const result = await buildCatalog({
    repo: options.repo,
    out: options.out,
    siteUrl: options.siteUrl,
    progress: options.progress,
    log: (line, diagnostic) => tell({ kind: 'line', line, ...(diagnostic && { diagnostic }) }),
    onProgress: (progress) => tell({ kind: 'progress', progress }),
    waitForLock: options.wait ? (holder) => tell({ kind: 'waiting', holder }) : undefined,
  });
  tell({ kind: 'done', result, written: writtenSoFar() });
} catch (error) {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  tell({ kind: 'failed', reason: oneLine(error), ...(typeof code === 'string' && { code }) });
}
