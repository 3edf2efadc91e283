/**
 * The thread `pkgcat build` builds in (cli/build.ts). A build that runs out of memory in the
 * process's main thread is a fatal V8 error: a native stack trace and an abort, no line of ours.
 * In a thread it is an error the main thread receives, and the command ends with one line.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { buildCatalog, type BuildResult } from '../build/build.ts';
import { oneLine } from './errors.ts';

/** What the build thread tells the command's thread. */
export type BuildThreadMessage =
  | { kind: 'waiting'; holder: number | null }
  | { kind: 'done'; result: BuildResult }
  | { kind: 'failed'; reason: string };

export interface BuildThreadOptions {
  repo: string;
  out: string;
  siteUrl: string;
  progress: boolean;
  wait: boolean;
  /** Whether the process's stderr is a terminal (a thread's own stderr never is): progress draws a bar there. */
  terminal: { columns: number } | null;
}

const options = workerData as BuildThreadOptions;
const tell = (message: BuildThreadMessage) => parentPort!.postMessage(message);
// The thread writes through the process's stderr: when that is a terminal, so is this.
if (options.terminal) Object.assign(process.stderr, { isTTY: true, columns: options.terminal.columns });

try {
  const result = await buildCatalog({
    repo: options.repo,
    out: options.out,
    siteUrl: options.siteUrl,
    progress: options.progress,
    waitForLock: options.wait ? (holder) => tell({ kind: 'waiting', holder }) : undefined,
  });
  tell({ kind: 'done', result });
} catch (error) {
  tell({ kind: 'failed', reason: oneLine(error) });
}
