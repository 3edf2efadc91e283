/** Progress on long builds: plain lines when the output is not a terminal. */
import { describe, expect, it } from 'vitest';
import { createProgress } from '../../build/progress.ts';

function captured(isTTY: boolean) {
  const lines: string[] = [];
  const stream = { isTTY, write: (text: string) => lines.push(text) } as unknown as NodeJS.WriteStream;
  return { lines, stream };
}

describe('createProgress', () => {
  it('prints a plain line every 5% with the time left, and one at the end, when the output is not a terminal', () => {
    const { lines, stream } = captured(false);
    let clock = 0;
    const progress = createProgress(200, 'pkgcat build', stream, () => clock);
    for (let i = 0; i < 200; i++) {
      clock += 500; // two commits a second
      progress.tick();
    }
    progress.stop();
    expect(lines).toHaveLength(20);
    // 190 commits left at 0.5 s each.
    expect(lines[0]).toBe('pkgcat build: 10/200 commits, about 1 min 35 s left\n');
    expect(lines[1]).toBe('pkgcat build: 20/200 commits, about 1 min 30 s left\n');
    expect(lines.at(-1)).toBe('pkgcat build: 200/200 commits\n');
  });

  it('estimates from the pace of the last minute, not from a slow start', () => {
    const { lines, stream } = captured(false);
    let clock = 0;
    const progress = createProgress(1000, 'pkgcat build', stream, () => clock);
    clock += 30_000; // the first commit composes every package
    progress.tick();
    for (let i = 1; i < 1000; i++) {
      clock += 100;
      progress.tick();
    }
    // At 700 done, the last minute holds 0.1 s per commit: 300 commits left take 30 s.
    expect(lines[13]).toBe('pkgcat build: 700/1000 commits, about 30 s left\n');
  });

  it('stays quiet for short builds', () => {
    const { lines, stream } = captured(false);
    const progress = createProgress(49, 'pkgcat build', stream);
    for (let i = 0; i < 49; i++) progress.tick();
    expect(lines).toEqual([]);
  });
});
