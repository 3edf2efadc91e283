/**
 * The one lock file. A lock is a file holding its holder's pid, created with `writeFileOnce`
 * (a temporary file linked into place), so whoever finds it finds it whole. It serializes one
 * build per output directory (`<out>/build/lock`) and one `pkgcat user add` per users file
 * (`<users file>.lock`). The session database is not locked with it: SQLite locks its own file.
 *
 * A lock is stale, and taken over, when its holder is not running any more (a build that was
 * killed; an exited process not yet reaped counts as not running), when it carries this process's pid without this process holding it (left by an earlier
 * process that had the same pid, as happens to pid 1 in a container), when it carries no pid,
 * and, with `staleMs`, when it is older than that (a holder on another host of a shared filesystem).
 */
import { readFileSync } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { writeFileOnce } from './atomic.ts';

export interface LockOptions {
  /** How long to wait for a live holder to let go (ms); Infinity waits for as long as it lives. Default 0: fail at once. */
  readonly waitMs?: number;
  /** Called once, with the holder's pid, when a live holder makes this call wait (to say so). */
  readonly onWait?: (holder: number | null) => void;
  /** How often to look again while waiting (ms). Default 50. */
  readonly pollMs?: number;
  /** A lock older than this is stale even when its pid is running. Default: never by age alone. */
  readonly staleMs?: number;
  /** The lock file's permission bits (see AtomicWriteOptions). */
  readonly mode?: number;
  /** Permission bits of directories created for it. */
  readonly dirMode?: number;
  /** The error to throw when a live holder keeps the lock (default: LockBusyError). */
  readonly busyError?: (holder: number | null, file: string) => Error;
}

export class LockBusyError extends Error {
  override name = 'LockBusyError';
  readonly file: string;
  /** The holder's pid, when the lock file names one. */
  readonly holder: number | null;

  constructor(file: string, holder: number | null) {
    super(`${file} is held by ${holder === null ? 'another process' : `process ${holder}`}`);
    this.file = file;
    this.holder = holder;
  }
}

/** Lets the lock go; calling it again does nothing. */
export type ReleaseLock = () => Promise<void>;

/** Lock files this process holds (absolute paths). */
const held = new Set<string>();

/** Immediate retries after taking over a stale lock (another process may take it over first). */
const TAKEOVERS = 3;

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/**
 * Whether `pid` has exited but was not reaped yet (Linux; elsewhere: false). An orphaned build
 * re-parented to an init that does not reap (a container's PID 1 often does not) stays a zombie
 * for ever: signal 0 still reaches it, yet its lock is stale.
 */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (comm) state ...`: comm may hold spaces and parentheses, the state follows the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}

interface Holder {
  readonly pid: number | null;
  readonly ino: number;
  readonly mtimeMs: number;
}

/** Who holds the lock at `file`; null when there is no lock file. */
async function holderOf(file: string): Promise<Holder | null> {
  const absent = (error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  };
  const info = await stat(file).catch(absent);
  if (info === null) return null;
  const text = await readFile(file, 'utf8').catch(absent);
  if (text === null) return null;
  const pid = /^\d+$/.test(text.trim()) ? Number(text.trim()) : null;
  return { pid: pid !== null && pid > 0 ? pid : null, ino: info.ino, mtimeMs: info.mtimeMs };
}

function isStale(file: string, holder: Holder, staleMs: number | undefined): boolean {
  if (holder.pid === null) return true;
  if (holder.pid === process.pid) return !held.has(file);
  if (!running(holder.pid)) return true;
  return staleMs !== undefined && Date.now() - holder.mtimeMs > staleMs;
}

/** Removes a stale lock, unless it was replaced since it was judged (by a process that took it over first). */
async function removeStale(file: string, holder: Holder): Promise<void> {
  const now = await stat(file).catch(() => null);
  if (now !== null && now.ino === holder.ino && now.mtimeMs === holder.mtimeMs) await rm(file, { force: true });
}

/**
 * Takes the lock at `file` (creating its directory), waiting up to `waitMs` for a live holder,
 * and returns its release. Throws `busyError` (default LockBusyError) when a live holder keeps it.
 */
export async function acquireLock(file: string, options: LockOptions = {}): Promise<ReleaseLock> {
  const path = resolve(file);
  const deadline = Date.now() + (options.waitMs ?? 0);
  let takeovers = 0;
  let waiting = false;
  for (;;) {
    if (await writeFileOnce(path, String(process.pid), { mode: options.mode, dirMode: options.dirMode })) {
      held.add(path);
      let released: Promise<void> | null = null;
      return () => {
        released ??= (async () => {
          held.delete(path);
          const holder = await holderOf(path).catch(() => null);
          // Only our own lock: after a takeover by age, the file is someone else's.
          if (holder?.pid === process.pid) await rm(path, { force: true });
        })();
        return released;
      };
    }
    const holder = await holderOf(path);
    if (holder === null) continue; // let go meanwhile: take it
    if (isStale(path, holder, options.staleMs) && takeovers < TAKEOVERS) {
      takeovers += 1;
      await removeStale(path, holder);
      continue;
    }
    if (Date.now() >= deadline) throw options.busyError?.(holder.pid, path) ?? new LockBusyError(path, holder.pid);
    if (!waiting) options.onWait?.(holder.pid);
    waiting = true;
    await new Promise((done) => setTimeout(done, options.pollMs ?? 50));
  }
}

/** Runs `work` holding the lock at `file`, and lets the lock go however `work` ends. */
export async function withLock<T>(file: string, options: LockOptions, work: () => Promise<T>): Promise<T> {
  const release = await acquireLock(file, options);
  try {
    return await work();
  } finally {
    await release();
  }
}
