/** One build at a time per output directory: a lock file holding the builder's pid. */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock (a stale lock of a dead process is taken over) and returns its release. */
export async function lockBuild(privateDir: string): Promise<() => Promise<void>> {
  await mkdir(privateDir, { recursive: true });
  const file = join(privateDir, 'lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(file, String(process.pid), { flag: 'wx' });
      return () => rm(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(await readFile(file, 'utf8').catch(() => '0'));
      if (holder && holder !== process.pid && alive(holder)) {
        throw new Error(`another build (pid ${holder}) is writing this output directory; wait for it to finish`);
      }
      await rm(file, { force: true });
    }
  }
  throw new Error(`could not take the build lock ${file}`);
}
