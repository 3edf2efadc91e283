/** The one atomic write: whole files or none, exact modes, no temporary files left behind. */
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileAtomic, writeFileOnce } from '../../src/store/atomic.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pkgcat-atomic-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const mode = async (path: string) => (await stat(path)).mode & 0o777;

describe('writeFileAtomic', () => {
  it('creates the directories, writes the bytes, replaces an existing file and leaves no temporary file', async () => {
    const file = join(dir, 'a', 'b', 'body.json');
    await writeFileAtomic(file, '{"v":1}');
    expect(await readFile(file, 'utf8')).toBe('{"v":1}');
    await writeFileAtomic(file, Buffer.from([0, 1, 2, 255]));
    expect([...(await readFile(file))]).toEqual([0, 1, 2, 255]);
    expect(await readdir(join(dir, 'a', 'b'))).toEqual(['body.json']);
  });

  it('gives the file exactly the mode asked for, whatever the umask, and new directories dirMode', async () => {
    const file = join(dir, 'private', 'users.json');
    await writeFileAtomic(file, 'secret', { mode: 0o600, dirMode: 0o700, durable: true });
    expect(await mode(file)).toBe(0o600);
    expect(await mode(join(dir, 'private'))).toBe(0o700);
    // A umask (022 on most systems) would narrow 0666 at creation; the mode is set exactly.
    const open = join(dir, 'open.txt');
    await writeFileAtomic(open, 'x', { mode: 0o666 });
    expect(await mode(open)).toBe(0o666);
  });

  it('fails without touching the target or leaving a temporary file when the move fails', async () => {
    const parent = join(dir, 'blocked');
    const target = join(parent, 'target');
    await mkdir(join(target, 'inside'), { recursive: true });
    await expect(writeFileAtomic(target, 'x')).rejects.toThrow();
    expect(await readdir(parent)).toEqual(['target']);
    expect(await readdir(target)).toEqual(['inside']);
  });
});

describe('writeFileOnce', () => {
  it('creates the file once; a second write keeps the first content', async () => {
    const file = join(dir, 'once', 'secret');
    expect(await writeFileOnce(file, 'first\n', { mode: 0o600 })).toBe(true);
    expect(await writeFileOnce(file, 'second\n', { mode: 0o600 })).toBe(false);
    expect(await readFile(file, 'utf8')).toBe('first\n');
    expect(await mode(file)).toBe(0o600);
    expect(await readdir(join(dir, 'once'))).toEqual(['secret']);
  });

  it('lets exactly one of many concurrent writers win, and the file holds its bytes', async () => {
    const file = join(dir, 'race', 'lock');
    const results = await Promise.all(Array.from({ length: 16 }, (_, index) => writeFileOnce(file, `writer ${index}`)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await readFile(file, 'utf8')).toBe(`writer ${results.indexOf(true)}`);
    expect(await readdir(join(dir, 'race'))).toEqual(['lock']);
  });

  it('does not replace a file written by other means', async () => {
    const file = join(dir, 'existing');
    await writeFile(file, 'kept');
    expect(await writeFileOnce(file, 'lost')).toBe(false);
    expect(await readFile(file, 'utf8')).toBe('kept');
  });
});
