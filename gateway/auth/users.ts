/**
 * The users file: who may sign in. JSON, owner-only (0600), written atomically:
 *
 *   {"users":{"alice":{"hash":"scrypt$32768$8$1$<salt>$<key>"}},"version":1}
 *
 * Passwords are stored only as scrypt hashes (password.ts). `pkgcat user add` creates or replaces
 * a user; a running gateway re-reads the file when it changes, so no restart is needed.
 */
import { readFile, stat } from 'node:fs/promises';
import { serialize } from '../../src/serialize.ts';
import { writeFileAtomic } from '../../src/store/atomic.ts';
import { withLock } from '../../src/store/lock.ts';
import type { DependencyReporter } from '../dependencies.ts';
import { hashPassword, isValidHash, verifyAgainstDummy, verifyPassword } from './password.ts';

export const USERS_FILE_VERSION = 1;

/** Usernames: 1 to 64 characters from `A-Z a-z 0-9 . _ @ -`; case-sensitive. */
export const USERNAME = /^[A-Za-z0-9._@-]{1,64}$/;

export interface UserRecord {
  readonly hash: string;
}

/** A loaded users file. `exists` is false when the file is absent (nobody can sign in). */
export interface Users {
  readonly file: string;
  readonly exists: boolean;
  readonly users: ReadonlyMap<string, UserRecord>;
}

export class UsersFileError extends Error {
  override name = 'UsersFileError';
}

export function isValidUsername(username: unknown): username is string {
  return typeof username === 'string' && USERNAME.test(username);
}

/** Throws a clear error when `username` breaks the grammar. */
export function checkUsername(username: string): void {
  if (!isValidUsername(username)) {
    throw new UsersFileError(
      `invalid username ${JSON.stringify(username)}: use 1 to 64 characters from A-Z, a-z, 0-9, '.', '_', '@' and '-'`,
    );
  }
}

/** Throws a clear error for an empty password. */
export function checkPassword(password: string): void {
  if (typeof password !== 'string' || password.length === 0) throw new UsersFileError('the password must not be empty');
}

function parseUsers(file: string, text: string): Users {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UsersFileError(`users file ${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new UsersFileError(`users file ${file} must hold a JSON object`);
  }
  const { version, users } = data as { version?: unknown; users?: unknown };
  if (version !== USERS_FILE_VERSION) {
    throw new UsersFileError(`users file ${file} has version ${JSON.stringify(version)}; this pkgcat reads version ${USERS_FILE_VERSION}`);
  }
  if (typeof users !== 'object' || users === null || Array.isArray(users)) {
    throw new UsersFileError(`users file ${file} must have a "users" object`);
  }
  const map = new Map<string, UserRecord>();
  for (const [username, record] of Object.entries(users)) {
    if (!isValidUsername(username)) throw new UsersFileError(`users file ${file} has an invalid username ${JSON.stringify(username)}`);
    const hash = (record as { hash?: unknown } | null)?.hash;
    if (typeof hash !== 'string' || !isValidHash(hash)) {
      throw new UsersFileError(`users file ${file}: user ${username} has no usable "hash" (expected scrypt$N$r$p$salt$key)`);
    }
    map.set(username, { hash });
  }
  return { file, exists: true, users: map };
}

/** Reads a users file; an absent file gives an empty set of users. */
export async function loadUsers(file: string): Promise<Users> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { file, exists: false, users: new Map() };
    throw new UsersFileError(`cannot read users file ${file}: ${(error as Error).message}`);
  }
  return parseUsers(file, text);
}

function formatUsers(users: ReadonlyMap<string, UserRecord>): string {
  // Object.fromEntries defines own properties, so even a user named "__proto__" stays data.
  const record = Object.fromEntries([...users].map(([name, user]) => [name, { hash: user.hash }]));
  return `${serialize({ version: USERS_FILE_VERSION, users: record })}\n`;
}

/** The users file and its lock: owner-only, in an owner-only directory when pkgcat creates it. */
const PRIVATE = { mode: 0o600, dirMode: 0o700 } as const;
const LOCK_WAIT_MS = 10_000;
const LOCK_STALE_MS = 30_000;

/** Serializes concurrent `user add` runs on one file with the lock file `<file>.lock`. */
function withUsersLock<T>(file: string, work: () => Promise<T>): Promise<T> {
  return withLock(
    `${file}.lock`,
    {
      ...PRIVATE,
      waitMs: LOCK_WAIT_MS,
      staleMs: LOCK_STALE_MS,
      busyError: () => new UsersFileError(`users file ${file} is locked by another process (${file}.lock)`),
    },
    work,
  );
}

/**
 * Creates or replaces a user. The file (and its directory, if missing) is created owner-only;
 * the write is atomic, so a reader sees the old file or the new one, never a partial one.
 */
export async function addUser(file: string, username: string, password: string): Promise<{ created: boolean }> {
  checkUsername(username);
  checkPassword(password);
  const hash = await hashPassword(password);
  return withUsersLock(file, async () => {
    const current = await loadUsers(file);
    const users = new Map(current.users);
    const created = !users.has(username);
    users.set(username, { hash });
    // Atomic and durable: a reader sees the old file or the new one, never a partial one.
    await writeFileAtomic(file, formatUsers(users), { ...PRIVATE, durable: true });
    return { created };
  });
}

/**
 * A users file that is re-read whenever it changes on disk (inode, size or mtime), so
 * `pkgcat user add` takes effect in a running gateway. A file that turns unusable (garbage, a
 * permission lost, gone) is reported once through `reporter` and the users last read stay in force, so
 * a bad edit neither locks everybody out nor fails every request; the next good version is taken
 * as soon as it is written.
 */
export class UsersFile {
  readonly file: string;
  readonly #reporter: DependencyReporter;
  #signature = '';
  #current: Users | undefined;
  #pending: Promise<Users> | undefined;

  constructor(file: string, reporter: DependencyReporter) {
    this.file = file;
    this.#reporter = reporter;
  }

  async get(): Promise<Users> {
    this.#pending ??= this.#refresh().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  async #refresh(): Promise<Users> {
    let signature = 'unreadable';
    try {
      const info = await stat(this.file, { bigint: true }).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return null;
        throw new UsersFileError(`cannot read users file ${this.file}: ${error.message}`);
      });
      signature = info === null ? 'absent' : `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
      if (signature === this.#signature) return this.#current!;
      // Absent from the start, nobody can sign in until `pkgcat user add` creates it; gone while it
      // was read (moved away, or deleted before a rewrite), it is a broken file like any other.
      if (info === null && this.#current?.exists) throw new UsersFileError(`users file ${this.file} is missing`);
      const users = info === null ? { file: this.file, exists: false, users: new Map() } : await loadUsers(this.file);
      this.#current = users;
      this.#reporter.ok();
      return users;
    } catch (error) {
      if (!(error instanceof UsersFileError)) throw error;
      this.#reporter.degraded(error.message);
      // Before any good read (a library use; `serve` checks the file at start): nobody can sign in.
      this.#current ??= { file: this.file, exists: false, users: new Map() };
      return this.#current;
    } finally {
      // The same unusable file is not read again on every request: only once it changes.
      this.#signature = signature;
    }
  }
}

/**
 * Checks a username and password. An unknown or malformed username still spends one scrypt
 * hash, so timing does not reveal whether a user exists.
 */
export async function verifyUser(source: string | Users | UsersFile, username: string, password: string): Promise<boolean> {
  const users = typeof source === 'string' ? await loadUsers(source) : source instanceof UsersFile ? await source.get() : source;
  const record = typeof username === 'string' && typeof password === 'string' ? users.users.get(username) : undefined;
  if (record === undefined || typeof password !== 'string' || password.length === 0) {
    return verifyAgainstDummy(typeof password === 'string' ? password : '');
  }
  return verifyPassword(password, record.hash);
}
