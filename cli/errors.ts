/**
 * How the command line fails: one line on stderr, `pkgcat: <reason>`, and an exit status
 * (2: bad usage; 1: the repository, the output or the machine is unusable). Never a stack, never
 * a bare system error code.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Bad usage: an unknown flag or command, a missing or malformed value. Exit 2. */
export class UsageError extends Error {}

/** The command cannot do its work, for a reason the message states. Exit 1. */
export class Failure extends Error {
  /** The code of the system call that failed, when one did (ENOSPC: the disk is full); `serve` reports it. */
  readonly code?: string;

  constructor(message: string, code?: string) {
    super(message);
    if (code !== undefined) this.code = code;
  }
}

type SystemError = NodeJS.ErrnoException & { syscall?: string };

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exhausted',
  ENOENT: 'no such file or directory',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EEXIST: 'a file is in the way',
  EISDIR: 'it is a directory',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'the path is too long',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files on this machine',
  EIO: 'an input/output error',
};

const VERBS: Record<string, string> = {
  mkdir: 'create',
  open: 'open',
  read: 'read',
  write: 'write',
  rename: 'replace',
  unlink: 'remove',
  rmdir: 'remove',
  stat: 'read',
  lstat: 'read',
  readlink: 'read',
  symlink: 'create',
  scandir: 'list',
  copyfile: 'copy',
  access: 'access',
};

/** A system error (an `fs` call, a spawn) as one readable line, or null for any other error. */
export function describeSystemError(error: unknown): string | null {
  const e = error as SystemError;
  if (!(error instanceof Error) || typeof e.code !== 'string' || typeof e.syscall !== 'string') return null;
  const reason = REASONS[e.code] ?? e.message.replace(/^[A-Z0-9_]+: /, '').replace(/, \w+ '.*$/, '');
  if (e.path) return `cannot ${VERBS[e.syscall] ?? e.syscall} ${e.path}: ${reason}`;
  return reason;
}

/** Any error as the one line the command prints after `pkgcat: `. */
export function oneLine(error: unknown): string {
  if (error instanceof Failure || error instanceof UsageError) return error.message;
  return describeSystemError(error) ?? (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}

/** The nearest ancestor of `path` (itself included) that exists, and whether it is a directory. */
async function nearestExisting(path: string): Promise<{ path: string; directory: boolean } | null> {
  for (let current = path; ; current = dirname(current)) {
    try {
      return { path: current, directory: (await stat(current)).isDirectory() };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return null;
    }
    if (dirname(current) === current) return null;
  }
}

/**
 * Checks, before any work, that `dir` can serve as `what`: no file stands where it or one of its
 * parents should be, and it (or, while it does not exist, its nearest existing parent, where it
 * will be created) can be read, and written when `writable`. Creates nothing. Fails with one line
 * naming what is wrong.
 */
export async function checkDirectory(dir: string, what: string, options: { writable: boolean }): Promise<void> {
  const fail = (reason: string) => new Failure(`cannot use ${dir} as ${what}: ${reason}`);
  const existing = await nearestExisting(dir);
  if (!existing) return;
  if (!existing.directory) throw fail(`${existing.path === dir ? 'it is a file' : `${existing.path} is a file`}, not a directory`);
  const creating = existing.path !== dir;
  try {
    await access(existing.path, constants.X_OK | (options.writable || creating ? constants.W_OK : constants.R_OK));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === 'EROFS') throw fail(REASONS.EROFS!);
    throw fail(`no permission to ${options.writable || creating ? 'write' : 'read'} in ${existing.path}`);
  }
}
