/**
 * The channel between `serve --repo` and the builds it runs. Each build is a child process with an
 * IPC channel (cli/follow.ts); over it the build tells its parent what it is doing, and through it
 * the build knows its parent is alive: when the channel closes (the parent exited, or was killed
 * with SIGKILL), the build exits at once, so no orphan holds the build lock. Its temporary files
 * and its lock are left for the next build (atomic writes; a dead holder's lock is taken over).
 *
 * A build run by hand has no channel: every function here then does nothing.
 */

import type { BuildProgress } from '../build/build.ts';
import type { BuildFigures } from '../gateway/metrics.ts';

/** What a build tells the `serve` that runs it. */
export type BuildMessage =
  /** Another build (that pid) holds the output directory; this one waits for it. */
  | { kind: 'waiting'; holder: number | null }
  /** How far it has got (a few times per build): commits read, then publishing. For the first-build page. */
  | { kind: 'progress'; progress: BuildProgress }
  /** Done: `tip` is published (`releaseId` null: it already was), with the figures of the build metrics. */
  | { kind: 'done'; tip: string; releaseId: string | null; figures: BuildFigures }
  /**
   * Failed, with the one line `pkgcat build` prints (without its `pkgcat: ` prefix), and the code
   * of the system call that failed, if one did (ENOSPC: the disk is full).
   */
  | { kind: 'failed'; reason: string; code?: string };

/** Whether this process was started by a parent listening on an IPC channel. */
export function hasParent(): boolean {
  return process.channel !== undefined && typeof process.send === 'function';
}

/** Exits as soon as the parent goes away. The channel does not keep the process alive otherwise. */
export function endWithParent(): void {
  if (!hasParent()) return;
  // Gone before this process got here: nothing to build for.
  if (!process.connected) process.exit(1);
  process.once('disconnect', () => process.exit(1));
  process.channel!.unref();
}

/** Tells the parent, and resolves once the message is handed over (or at once without a parent). */
export function tellParent(message: BuildMessage): Promise<void> {
  if (!hasParent() || !process.connected) return Promise.resolve();
  return new Promise((resolve) => process.send!(message, undefined, {}, () => resolve()));
}
