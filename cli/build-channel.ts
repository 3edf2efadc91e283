/**
 * The channel between `serve --repo` and the build process it runs: a child process with an IPC
 * channel (cli/follow.ts). Over it the build tells its parent what it is doing, and through it the
 * build knows its parent is alive: when the channel closes (the parent exited, or was killed with
 * SIGKILL), the build exits at once, so no orphan holds the build lock. Its temporary files and its
 * lock are left for the next build (atomic writes; a dead holder's lock is taken over).
 *
 * A build process that succeeded stays for the parent's next build (`{ kind: 'build' }`), with its
 * modules loaded and the state it kept (build/build.ts Builder); one that failed exits, and the
 * parent starts another.
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

/** What `serve` asks of the build process it keeps: another build, of what main holds now. */
export type BuildRequest = { kind: 'build'; quiet: boolean };

/** Requests that came before this process asked for one, and the one waiting for the next. */
const requests: BuildRequest[] = [];
let waiting: ((request: BuildRequest | null) => void) | null = null;

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
  // Kept from the start: a request that comes while a build runs is not lost.
  process.on('message', (message: BuildRequest) => {
    if (message?.kind !== 'build') return;
    if (waiting) waiting(message);
    else requests.push(message);
  });
  process.channel!.unref();
}

/** The next build the parent asks for (this process stays up until then); null at once without a parent. */
export function nextBuild(): Promise<BuildRequest | null> {
  if (!hasParent() || !process.connected) return Promise.resolve(null);
  const queued = requests.shift();
  if (queued) return Promise.resolve(queued);
  // The channel keeps the process alive while it waits, and only then.
  process.channel!.ref();
  return new Promise((resolve) => {
    waiting = (request) => {
      waiting = null;
      process.channel?.unref();
      resolve(request);
    };
  });
}

/** Tells the parent, and resolves once the message is handed over (or at once without a parent). */
export function tellParent(message: BuildMessage): Promise<void> {
  if (!hasParent() || !process.connected) return Promise.resolve();
  return new Promise((resolve) => process.send!(message, undefined, {}, () => resolve()));
}
