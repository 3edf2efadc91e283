/** The real `pkgcat` command (bin/pkgcat.js) in a child process, with this process's Node (24). */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { paths } from '../../src/store/layout.ts';

export const PKGCAT = fileURLToPath(new URL('../../bin/pkgcat.js', import.meta.url));

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** This process's environment without pkgcat's own variables, so a developer's settings do not leak in. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith('PKGCAT_') || name === 'PORT' || name === 'HOST') delete env[name];
  // The lines a person reads (the tests read them too); a test of the JSON log asks for it.
  return { ...env, PKGCAT_LOG_FORMAT: 'text', ...extra };
}

/** Runs `pkgcat ...args` to its exit. */
export function pkgcat(args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [PKGCAT, ...args], { env: options.env ?? cleanEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdin.end(options.input ?? '');
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The pid in the build lock of `out`, once a build holds it (a bounded number of looks). */
export async function lockHolder(out: string): Promise<number> {
  const lock = join(paths.buildPrivate(out), 'lock');
  for (let look = 0; look < 3000; look++) {
    const pid = Number(await readFile(lock, 'utf8').catch(() => ''));
    if (pid > 0) return pid;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no build took the lock');
}
