/**
 * What a running server depends on beyond its release, and how each is doing: the users file,
 * the catalog repository `serve --repo` follows, the session store, and the disk the output lives
 * on. Each breaks under a running server (a bad edit, a moved directory, a stopped Redis, a full
 * disk); none stops it. A dependency that breaks is logged once, in one line that says what the
 * server does meanwhile, and `/healthz` reports it degraded with the reason and since when. Its
 * owner keeps the last good state it had (the users it last read, the release it serves) and tells
 * this module when the cause has gone; the recovery is logged once too. docs/deployment.md lists
 * the dependencies and what the server does when each fails.
 */
import type { Logger } from '../src/log.ts';

export type DependencyName = 'usersFile' | 'repository' | 'sessionStore' | 'disk';

/** What the server does while a dependency is degraded, and once it is back (the log's wording). */
const BEHAVIOUR: Record<DependencyName, { degraded: string; recovered: string }> = {
  usersFile: {
    degraded: 'signing in and checking sessions with the users last read; the file is read again at the next request once it changes',
    recovered: 'the users file is usable again; signing in with it',
  },
  repository: {
    degraded: 'still serving the last release; following main again once the repository is back',
    recovered: 'the catalog repository is back; following main again',
  },
  sessionStore: {
    degraded: 'sign-in and sha-pinned requests answer 503 session_store_unavailable until it is back; the anonymous surfaces serve as usual',
    recovered: 'the session store is reachable again; sign-in and sha-pinned requests are served again',
  },
  disk: {
    degraded: 'still serving the last release; the build is tried again after a back-off, or when main moves',
    recovered: 'a build wrote the output directory again; the disk has room',
  },
};

/** A dependency as `/healthz` reports it (src/schemas/wire.ts `Health`). */
export interface DependencyHealth {
  readonly status: 'ok' | 'degraded';
  /** When it entered this status (UTC, whole seconds): the server's start for one never degraded. */
  readonly since: string;
  /** Why it is degraded, in one line; null when ok. */
  readonly reason: string | null;
}

/** How the owner of one dependency reports it. */
export interface DependencyReporter {
  /** It is broken, for `reason` (one line). Logged, and kept as the reason, when it was not degraded already. */
  degraded(reason: string): void;
  /** It works (again). Logged when it was degraded. */
  ok(): void;
}

/** `2026-03-01T12:00:00Z`: whole seconds, as every timestamp pkgcat writes. */
export const isoSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

interface State {
  degraded: boolean;
  sinceMs: number;
  reason: string | null;
}

export class Dependencies {
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #states = new Map<DependencyName, State>();
  readonly #probes: (() => Promise<unknown>)[] = [];

  constructor(log: Logger, now: () => number = Date.now) {
    this.#log = log;
    this.#now = now;
  }

  /** The reporter of `name`, which this process now depends on (ok until told otherwise). */
  reporter(name: DependencyName): DependencyReporter {
    if (!this.#states.has(name)) this.#states.set(name, { degraded: false, sinceMs: this.#now(), reason: null });
    const state = this.#states.get(name)!;
    return {
      degraded: (reason) => {
        // The reason it broke stays until it is back: later failures (each request's) say less.
        if (state.degraded) return;
        const line = reason.split('\n')[0]!;
        Object.assign(state, { degraded: true, sinceMs: this.#now(), reason: line });
        this.#log.warn('dependency.degraded', `${line}; ${BEHAVIOUR[name].degraded}`, { dependency: name });
      },
      ok: () => {
        if (!state.degraded) return;
        Object.assign(state, { degraded: false, sinceMs: this.#now(), reason: null });
        this.#log.info('dependency.recovered', BEHAVIOUR[name].recovered, { dependency: name });
      },
    };
  }

  /** Something to run before each report, so that a fixed cause is seen without waiting for traffic (the users file's change). */
  probe(check: () => Promise<unknown>): void {
    this.#probes.push(check);
  }

  /** Every dependency: null for those this process does not use. */
  async report(): Promise<Record<DependencyName, DependencyHealth | null>> {
    await Promise.all(this.#probes.map((check) => check().catch(() => {})));
    const entry = (name: DependencyName): DependencyHealth | null => {
      const state = this.#states.get(name);
      return state ? { status: state.degraded ? 'degraded' : 'ok', since: isoSeconds(state.sinceMs), reason: state.reason } : null;
    };
    return { disk: entry('disk'), repository: entry('repository'), sessionStore: entry('sessionStore'), usersFile: entry('usersFile') };
  }
}
