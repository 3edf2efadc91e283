/** The real `pkgcat` command (bin/pkgcat.js) in a child process, with this process's Node (24). */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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
