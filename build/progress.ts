/**
 * Progress on long builds: a bar on a terminal, a plain line every few percent otherwise, each
 * with the time left. The estimate is the commits left at the pace of the last minute (not of
 * the whole run): the first commit of a catalog composes every package and takes seconds, and
 * the pace of a long history drifts, so the recent pace is the better guess.
 */
import cliProgress from 'cli-progress';

export interface Progress {
  tick(): void;
  stop(): void;
}

/** The window the pace is measured over. */
const PACE_WINDOW_MS = 60_000;

/** `1 h 02 min`, `4 min 05 s`, `12 s`. */
function formatDuration(seconds: number): string {
  if (seconds >= 3600) return `${Math.floor(seconds / 3600)} h ${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')} min`;
  if (seconds >= 60) return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
  return `${seconds} s`;
}

/** The times the commits of the last PACE_WINDOW_MS were done at (and one before, to span it). */
class Pace {
  readonly #times: number[] = [];
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
    this.#times.push(now());
  }

  tick(): void {
    const now = this.#now();
    this.#times.push(now);
    while (this.#times.length > 2 && now - this.#times[1] > PACE_WINDOW_MS) this.#times.shift();
  }

  /** The commits left at the pace of the window. */
  left(done: number, total: number): string {
    const first = this.#times[0];
    const last = this.#times[this.#times.length - 1];
    if (this.#times.length < 2 || last <= first) return 'estimating time';
    const perCommitMs = (last - first) / (this.#times.length - 1);
    return `about ${formatDuration(Math.round(((total - done) * perCommitMs) / 1000))} left`;
  }
}

export function createProgress(total: number, label: string, stream: NodeJS.WriteStream = process.stderr, now: () => number = () => performance.now()): Progress {
  if (total < 50) return { tick() {}, stop() {} };
  const pace = new Pace(now);
  let done = 0;
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      { format: `${label} [{bar}] {value}/{total} commits, {left}`, stream, hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0, { left: 'estimating time' });
    return {
      tick() {
        done += 1;
        pace.tick();
        bar.increment({ left: pace.left(done, total) });
      },
      stop: () => bar.stop(),
    };
  }
  const step = Math.max(1, Math.ceil(total / 20));
  return {
    tick() {
      done += 1;
      pace.tick();
      if (done % step === 0 || done === total) stream.write(`${label}: ${done}/${total} commits${done < total ? `, ${pace.left(done, total)}` : ''}\n`);
    },
    stop() {},
  };
}
