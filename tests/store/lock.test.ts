/** The one lock file: one holder at a time, stale locks of dead processes taken over. */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireLock, LockBusyError, withLock } from '../../src/store/lock.ts';

let dir: string;
let count = 0;
const lockPath = () => join(dir, `lock-${count++}`, 'lock');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pkgcat-lock-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

describe('acquireLock', () => {
  it('writes the holder pid, refuses a second holder, and is free again after release', async () => {
    const file = lockPath();
    const release = await acquireLock(file, { mode: 0o600 });
    expect(await readFile(file, 'utf8')).toBe(String(process.pid));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const busy = await acquireLock(file).catch((error: unknown) => error);
    expect(busy).toBeInstanceOf(LockBusyError);
    expect((busy as LockBusyError).holder).toBe(process.pid);
    await release();
    await release();
    await expect(stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
    await (await acquireLock(file))();
  });

  it('throws the caller\'s error when a live holder keeps the lock', async () => {
    const file = lockPath();
    const release = await acquireLock(file);
    await expect(acquireLock(file, { busyError: (holder) => new Error(`held by ${holder}`) })).rejects.toThrow(`held by ${process.pid}`);
    await release();
  });

  it('takes over the lock of a process that is not running any more (a killed build)', async () => {
    const file = lockPath();
    await acquireLock(file); // creates the directory
    await rm(file);
    await writeFile(file, String(await deadPid()));
    const release = await acquireLock(file);
    expect(await readFile(file, 'utf8')).toBe(String(process.pid));
    await release();
  });

  it('takes over a lock that carries this pid but that this process does not hold (an earlier process with the same pid)', async () => {
    const file = lockPath();
    await (await acquireLock(file))();
    await writeFile(file, String(process.pid));
    const release = await acquireLock(file);
    await release();
  });

  it('takes over a lock without a pid in it', async () => {
    const file = lockPath();
    await (await acquireLock(file))();
    await writeFile(file, '');
    await (await acquireLock(file))();
  });

  it('keeps a live holder\'s lock until it is older than staleMs', async () => {
    const file = lockPath();
    await (await acquireLock(file))();
    // The parent of this test process is alive for as long as the test runs.
    await writeFile(file, String(process.ppid));
    await expect(acquireLock(file, { staleMs: 60_000 })).rejects.toBeInstanceOf(LockBusyError);
    const old = new Date(Date.now() - 120_000);
    await utimes(file, old, old);
    const release = await acquireLock(file, { staleMs: 60_000 });
    expect(await readFile(file, 'utf8')).toBe(String(process.pid));
    await release();
  });

  it('waits for the holder to let go, up to waitMs', async () => {
    const file = lockPath();
    const release = await acquireLock(file);
    let taken = false;
    const second = acquireLock(file, { waitMs: 30_000, pollMs: 10 }).then((releaseSecond) => {
      taken = true;
      return releaseSecond;
    });
    // Still waiting after a few polls (nothing here depends on how long a poll takes).
    await new Promise((resolve) => setImmediate(resolve));
    expect(taken).toBe(false);
    await release();
    await (await second)();
    expect(taken).toBe(true);
  });

  it('with waitMs Infinity, waits for as long as a live holder lives, says so once, and takes over when it dies', async () => {
    const file = lockPath();
    await acquireLock(file); // creates the directory
    await rm(file);
    const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    await writeFile(file, String(holder.pid));
    const waits: (number | null)[] = [];
    let taken = false;
    const waiting = acquireLock(file, { waitMs: Infinity, pollMs: 5, onWait: (pid) => waits.push(pid) }).then((release) => {
      taken = true;
      return release;
    });
    while (waits.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(taken).toBe(false);
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    holder.kill('SIGKILL');
    await exited;
    const release = await waiting;
    expect(waits).toEqual([holder.pid]);
    expect(await readFile(file, 'utf8')).toBe(String(process.pid));
    await release();
  });
});

describe('withLock', () => {
  it('runs one holder at a time and lets go when the work throws', async () => {
    const file = lockPath();
    const events: string[] = [];
    const work = (name: string) => async () => {
      events.push(`${name} in`);
      await new Promise((resolve) => setImmediate(resolve));
      events.push(`${name} out`);
      return name;
    };
    const results = await Promise.all([
      withLock(file, { waitMs: 30_000, pollMs: 5 }, work('a')),
      withLock(file, { waitMs: 30_000, pollMs: 5 }, work('b')),
      withLock(file, { waitMs: 30_000, pollMs: 5 }, work('c')),
    ]);
    expect(results).toEqual(['a', 'b', 'c']);
    for (let index = 0; index < events.length; index += 2) {
      expect(events[index]!.split(' ')[0]).toBe(events[index + 1]!.split(' ')[0]);
    }
    await expect(withLock(file, {}, async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    await (await acquireLock(file))();
  });
});
