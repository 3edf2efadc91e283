/**
 * The one atomic file write. Every file pkgcat writes whole for a reader to find (the layout
 * file, checkpoints, the files of an export, the gateway's body cache, the users file, the session secret, lock files)
 * is written whole into a temporary sibling `<file>.tmp-<pid>-<random>` and then moved into
 * place, so a reader, or the next process after a crash or a SIGKILL, sees the old file or the
 * new one, never a partial one.
 *
 * - `writeFileAtomic`: rename into place; an existing file is replaced.
 * - `writeFileOnce`: link into place; an existing file is kept (the first writer wins), which is
 *   what a generated secret or a lock file needs.
 * - `linkFile`: a second name for a file that is never written again (a document a release keeps
 *   from the one before, a body many files of a release share).
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface AtomicWriteOptions {
  /**
   * The file's permission bits, exactly, whatever the umask; it never exists with wider ones.
   * Default: 0o666 less the umask, as `fs.writeFile` gives.
   */
  readonly mode?: number;
  /** Permission bits of the directories created on the way (less the umask). Default 0o777. */
  readonly dirMode?: number;
  /** The caller knows the directory exists (a build writing thousands of files into a few): no mkdir. */
  readonly directoryExists?: boolean;
  /**
   * Flush the file, and its directory after the move, to disk before returning: for small files
   * that must survive a power cut (the users file, the session secret). The build's many
   * content-addressed files do without: a lost one is written again by the next build.
   */
  readonly durable?: boolean;
}

/** `<file>.tmp-<pid>-<8 hex>`: beside its target (so the move is a rename on one filesystem), never reused. */
function temporaryName(file: string): string {
  return `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** Fsyncs a directory, so a rename or link in it survives a power cut. Best effort: not every platform or filesystem allows it. */
export async function syncDirectory(directory: string): Promise<void> {
  try {
    const handle = await open(directory, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Best effort.
  }
}

/** Files this process has written, and their bytes (a build reports them to the `serve` that runs it: the build metrics). */
const tally = { files: 0, bytes: 0 };

/** Counts a file written (by this module, or by a writer of files nobody reads before they are renamed into place). */
export function countWritten(data: string | Uint8Array): void {
  tally.files += 1;
  tally.bytes += typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
}

/** What this process has written so far. */
export function writtenSoFar(): { files: number; bytes: number } {
  return { ...tally };
}

/** Writes `data` to a fresh temporary sibling of `file` (creating the directory) and returns its name. */
async function writeTemporary(file: string, data: string | Uint8Array, options: AtomicWriteOptions): Promise<string> {
  if (!options.directoryExists) await mkdir(dirname(file), options.dirMode === undefined ? { recursive: true } : { recursive: true, mode: options.dirMode });
  const temporary = temporaryName(file);
  countWritten(data);
  try {
    if (options.mode === undefined && !options.durable) {
      // The common case (the build's thousands of objects): one call, as few system calls as a plain write.
      // 'wx': a new file, never one someone else is writing.
      await writeFile(temporary, data, { flag: 'wx' });
      return temporary;
    }
    const handle = await open(temporary, 'wx', options.mode ?? 0o666);
    try {
      // The umask may have narrowed the mode at creation: set it exactly.
      if (options.mode !== undefined) await handle.chmod(options.mode);
      await handle.writeFile(data);
      if (options.durable) await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => {});
    throw error;
  }
  return temporary;
}

/** Writes `file` atomically: a temporary sibling, then rename. An existing `file` is replaced. */
export async function writeFileAtomic(file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const temporary = await writeTemporary(file, data, options);
  try {
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => {});
    throw error;
  }
  if (options.durable) await syncDirectory(dirname(file));
}

/**
 * Creates `file` atomically unless it exists: a temporary sibling, then a hard link, which fails
 * when `file` exists. True when this call created it; false when it existed (its content is left
 * as it was). Of several processes writing the same file at once, exactly one gets true.
 */
export async function writeFileOnce(file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<boolean> {
  const temporary = await writeTemporary(file, data, options);
  try {
    await link(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(temporary, { force: true });
  }
  if (options.durable) await syncDirectory(dirname(file));
  return true;
}

/**
 * Gives the bytes of `existing` a second name, `file` (a hard link: no copy, no new data block).
 * The two names must never be written again: the build links the bodies many public files share
 * into a release while it is being staged (build/publish.ts), and a release never changes.
 */
export async function linkFile(existing: string, file: string): Promise<void> {
  await link(existing, file);
}
