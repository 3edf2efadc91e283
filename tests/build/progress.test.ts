/** Progress on long builds: plain lines when the output is not a terminal. */
import { describe, expect, it } from 'vitest';
import { createProgress } from '../../build/progress.ts';

function captured(isTTY: boolean) {
  const lines: string[] = [];
  const stream = { isTTY, write: (text: string) => lines.push(text) } as unknown as NodeJS.WriteStream;
  return { lines, stream };
}

describe('createProgress', () => {
  it('prints a plain line every 5% and at the end when the output is not a terminal', () => {
    const { lines, stream } = captured(false);
    const progress = createProgress(200, 'pkgcat build', stream);
    for (let i = 0; i < 200; i++) progress.tick();
    progress.stop();
    expect(lines).toHaveLength(20);
    expect(lines[0]).toBe('pkgcat build: 10/200 commits\n');
    expect(lines.at(-1)).toBe('pkgcat build: 200/200 commits\n');
  });

  it('stays quiet for short builds', () => {
    const { lines, stream } = captured(false);
    const progress = createProgress(49, 'pkgcat build', stream);
    for (let i = 0; i < 49; i++) progress.tick();
    expect(lines).toEqual([]);
  });
});
