/**
 * Where sessions live. By default an express-session store on `node:sqlite` in a local file, so
 * a restart signs nobody out and no service is needed; with PKGCAT_REDIS_URL, Redis (connect-redis),
 * so several gateways share sessions.
 */
import session, { type SessionData } from 'express-session';
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { Store as RateLimitStore } from 'express-rate-limit';
import type { LoginLimiterName } from './rate-limit.ts';
import { createRedisSessionStore } from './redis-store.ts';
import type { DependencyReporter } from '../dependencies.ts';

/** A session store the gateway can close on shutdown. */
export type PkgcatSessionStore = session.Store & {
  readonly kind: 'sqlite' | 'redis';
  close(): Promise<void>;
  /**
   * Where the sign-in limiter counts failures when the sessions are shared (Redis): one store per
   * limiter. Absent: the counters stay in memory, per process (rate-limit.ts).
   */
  readonly loginCounters?: (limiter: LoginLimiterName) => RateLimitStore;
};

export interface SqliteSessionStoreOptions {
  /** The database file; its directory is created (0700) when missing, the file is 0600. */
  readonly path: string;
  /** Lifetime of a session whose cookie has no expiry (ms). Default one day. */
  readonly defaultTtlMs?: number;
  /** How often expired rows are deleted (ms); false disables the timer. Default ten minutes. */
  readonly pruneIntervalMs?: number | false;
  /**
   * A touch (express-session extends a session's expiry on every request that uses it) writes the
   * row at most once per this interval and session (ms). Default one minute: a write per request is
   * the largest cost of a signed-in request, and a session's life is bounded from its sign-in anyway.
   */
  readonly touchAfterMs?: number;
  /** The clock: ms since the epoch. Default `Date.now`; tests pass their own and advance it. */
  readonly now?: () => number;
}

/** Sessions whose last touch is remembered (touchAfterMs); beyond this the oldest are forgotten, which only costs a write. */
const TOUCHED_KEEP = 100_000;

type Callback<T = unknown> = (error: unknown, value?: T) => void;

const DAY_MS = 24 * 60 * 60 * 1000;

/** Calls back on a later tick, as stores that do I/O do, whatever the callback throws. */
function later<T>(callback: Callback<T> | undefined, error: unknown, value?: T): void {
  if (callback) process.nextTick(callback, error, value);
}

/** Creates the database file owner-only before SQLite opens it (its -wal/-shm copy the mode). */
function prepareFile(path: string): void {
  if (path === ':memory:') return;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  closeSync(openSync(path, 'a', 0o600));
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
}

export class SqliteSessionStore extends session.Store implements PkgcatSessionStore {
  readonly kind = 'sqlite' as const;
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #defaultTtlMs: number;
  readonly #touchAfterMs: number;
  readonly #now: () => number;
  /** sid -> when this store last wrote its row (insertion order: oldest first). */
  readonly #written = new Map<string, number>();
  readonly #timer: NodeJS.Timeout | undefined;
  readonly #get: StatementSync;
  readonly #set: StatementSync;
  readonly #touch: StatementSync;
  readonly #destroy: StatementSync;
  readonly #prune: StatementSync;
  readonly #count: StatementSync;
  readonly #all: StatementSync;
  readonly #clear: StatementSync;

  constructor(options: SqliteSessionStoreOptions) {
    super();
    this.path = options.path;
    this.#defaultTtlMs = options.defaultTtlMs ?? DAY_MS;
    this.#touchAfterMs = options.touchAfterMs ?? 60_000;
    this.#now = options.now ?? Date.now;
    prepareFile(this.path);
    this.#db = new DatabaseSync(this.path);
    this.#db.exec(`
      PRAGMA journal_mode = WAL;
      PRAGMA synchronous = NORMAL;
      PRAGMA busy_timeout = 5000;
      CREATE TABLE IF NOT EXISTS sessions (
        sid TEXT PRIMARY KEY,
        data TEXT NOT NULL,
        expires INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS sessions_expires ON sessions (expires);
    `);
    this.#get = this.#db.prepare('SELECT data, expires FROM sessions WHERE sid = ?');
    this.#set = this.#db.prepare(
      'INSERT INTO sessions (sid, data, expires) VALUES (?, ?, ?) ON CONFLICT (sid) DO UPDATE SET data = excluded.data, expires = excluded.expires',
    );
    this.#touch = this.#db.prepare('UPDATE sessions SET data = ?, expires = ? WHERE sid = ? AND expires > ?');
    this.#destroy = this.#db.prepare('DELETE FROM sessions WHERE sid = ?');
    this.#prune = this.#db.prepare('DELETE FROM sessions WHERE expires <= ?');
    this.#count = this.#db.prepare('SELECT count(*) AS n FROM sessions WHERE expires > ?');
    this.#all = this.#db.prepare('SELECT sid, data FROM sessions WHERE expires > ?');
    this.#clear = this.#db.prepare('DELETE FROM sessions');
    this.prune();
    const interval = options.pruneIntervalMs ?? 10 * 60 * 1000;
    if (interval !== false) {
      this.#timer = setInterval(() => {
        try {
          this.prune();
        } catch (error) {
          this.emit('error', error);
        }
      }, interval);
      this.#timer.unref();
    }
  }

  /** When a session expires: its cookie's expiry, else now plus the default lifetime. */
  #expiry(sess: SessionData): number {
    const expires = sess.cookie?.expires as Date | string | null | undefined;
    const at = expires ? new Date(expires).getTime() : NaN;
    return Number.isFinite(at) ? at : this.#now() + this.#defaultTtlMs;
  }

  override get(sid: string, callback: (err: unknown, session?: SessionData | null) => void): void {
    try {
      const row = this.#get.get(sid) as { data: string; expires: number } | undefined;
      if (row === undefined) return later(callback, null, null);
      if (row.expires <= this.#now()) {
        this.#destroy.run(sid);
        return later(callback, null, null);
      }
      let data: SessionData;
      try {
        data = JSON.parse(row.data) as SessionData;
      } catch {
        // An unreadable row is no session; drop it rather than fail every request that carries it.
        this.#destroy.run(sid);
        return later(callback, null, null);
      }
      later(callback, null, data);
    } catch (error) {
      later(callback, error);
    }
  }

  override set(sid: string, sess: SessionData, callback?: (err?: unknown) => void): void {
    try {
      const now = this.#now();
      const expires = this.#expiry(sess);
      if (expires <= now) {
        this.#destroy.run(sid);
        this.#written.delete(sid);
      } else {
        this.#set.run(sid, JSON.stringify(sess), expires);
        this.#remember(sid, now);
      }
      later(callback, null);
    } catch (error) {
      later(callback, error);
    }
  }

  override touch(sid: string, sess: SessionData, callback?: () => void): void {
    const done = callback as Callback | undefined;
    try {
      const now = this.#now();
      const written = this.#written.get(sid);
      if (written !== undefined && now - written < this.#touchAfterMs) return later(done, null);
      // Only an existing, live session is extended; a touch never resurrects one.
      this.#touch.run(JSON.stringify(sess), this.#expiry(sess), sid, now);
      this.#remember(sid, now);
      later(done, null);
    } catch (error) {
      later(done, error);
    }
  }

  /** Records that the row of `sid` was written at `at`, forgetting the oldest beyond TOUCHED_KEEP. */
  #remember(sid: string, at: number): void {
    this.#written.delete(sid);
    this.#written.set(sid, at);
    if (this.#written.size > TOUCHED_KEEP) this.#written.delete(this.#written.keys().next().value!);
  }

  override destroy(sid: string, callback?: (err?: unknown) => void): void {
    try {
      this.#written.delete(sid);
      this.#destroy.run(sid);
      later(callback, null);
    } catch (error) {
      later(callback, error);
    }
  }

  override length(callback: (err: unknown, length?: number) => void): void {
    try {
      const row = this.#count.get(this.#now()) as { n: number };
      later(callback, null, Number(row.n));
    } catch (error) {
      later(callback, error);
    }
  }

  override all(callback: (err: unknown, obj?: { [sid: string]: SessionData } | null) => void): void {
    try {
      const result: { [sid: string]: SessionData } = {};
      for (const row of this.#all.all(this.#now()) as { sid: string; data: string }[]) {
        try {
          result[row.sid] = JSON.parse(row.data) as SessionData;
        } catch {
          // skip an unreadable row
        }
      }
      later(callback, null, result);
    } catch (error) {
      later(callback, error);
    }
  }

  override clear(callback?: (err?: unknown) => void): void {
    try {
      this.#clear.run();
      this.#written.clear();
      later(callback, null);
    } catch (error) {
      later(callback, error);
    }
  }

  /** Deletes expired sessions; returns how many. */
  prune(): number {
    return Number(this.#prune.run(this.#now()).changes);
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    if (this.#db.isOpen) this.#db.close();
  }
}

export interface SessionStoreOptions {
  /** A `redis://` or `rediss://` URL (PKGCAT_REDIS_URL); when set, sessions live in Redis. */
  readonly redisUrl?: string | null;
  /** The SQLite file used when no Redis URL is given, e.g. `<out>/../sessions.db`. */
  readonly sqlitePath: string;
  /** Key prefix in Redis. Default `pkgcat:sess:`. */
  readonly redisPrefix?: string;
  /** Told when Redis is lost and when it is back (redis-store.ts). */
  readonly reporter?: DependencyReporter;
}

/**
 * The Redis store when `redisUrl` is set (connected before this resolves; an unreachable Redis
 * fails with a clear error), else the SQLite store at `sqlitePath`.
 */
export async function createSessionStore(options: SessionStoreOptions): Promise<PkgcatSessionStore> {
  if (options.redisUrl) return createRedisSessionStore({ url: options.redisUrl, prefix: options.redisPrefix, reporter: options.reporter });
  return new SqliteSessionStore({ path: options.sqlitePath });
}
