/** Progress on long builds: a bar on a terminal, a plain line every few percent otherwise. */
import cliProgress from 'cli-progress';

export interface Progress {
  tick(): void;
  stop(): void;
}

export function createProgress(total: number, label: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (total < 50) return { tick() {}, stop() {} };
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      { format: `${label} [{bar}] {value}/{total} commits, {eta_formatted} left`, stream, hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0);
    return { tick: () => bar.increment(), stop: () => bar.stop() };
  }
  let done = 0;
  const step = Math.max(1, Math.ceil(total / 20));
  return {
    tick() {
      done += 1;
      if (done % step === 0 || done === total) stream.write(`${label}: ${done}/${total} commits\n`);
    },
    stop() {},
  };
}
