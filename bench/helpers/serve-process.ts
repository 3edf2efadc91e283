/**
 * `pkgcat serve` as a child process, the way an operator runs it: the real command line, flags
 * and environment, on a free loopback port (`--port 0`), its address read from its log line.
 * Shared by the benchmarks and the tests (tests/ may import bench/, never the reverse).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const PKGCAT = fileURLToPath(new URL('../../bin/pkgcat.js', import.meta.url));

export interface ServeProcess {
  readonly url: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** Everything it wrote to stderr so far (its builds' lines too: they share its stderr). */
  log(): string;
  /** Resolves with the first match of `pattern` in its stderr, now or when it appears; rejects if it exits first. */
  waitForLog(pattern: RegExp): Promise<RegExpExecArray>;
  /** SIGTERM, and wait for it to exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

/** Starts `node bin/pkgcat.js serve ...args` with `env` added to this process's environment. */
export function startServeProcess(args: string[], env: NodeJS.ProcessEnv = {}, options: { nodeArgs?: string[]; timeoutMs?: number } = {}): Promise<ServeProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), PKGCAT, 'serve', '--port', '0', ...args], {
      // Its address is read from its text log (`env` may ask for JSON, whose lines carry it too).
      env: { ...process.env, PKGCAT_LOG_FORMAT: 'text', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    let started = false;
    const timer = setTimeout(() => fail(new Error(`pkgcat serve did not start within ${options.timeoutMs ?? 30_000} ms:\n${stderr}`)), options.timeoutMs ?? 30_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      if (child.exitCode === null) child.kill('SIGKILL');
      reject(error);
    };
    child.once('error', fail);
    child.once('exit', (code, signal) => {
      if (!started) fail(new Error(`pkgcat serve exited (${signal ?? code}) before serving:\n${stderr}`));
    });
    const waiters = new Set<() => void>();
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      for (const look of waiters) look();
      const match = /serving .* on (http:\/\/[^\s,"]+)/m.exec(stderr);
      if (!started && match) {
        started = true;
        clearTimeout(timer);
        resolve({
          url: match[1],
          pid: child.pid!,
          child,
          log: () => stderr,
          waitForLog(pattern) {
            return new Promise((found, gone) => {
              const look = () => {
                const match = pattern.exec(stderr);
                if (match) {
                  waiters.delete(look);
                  child.off('exit', exited);
                  found(match);
                }
              };
              const exited = () => {
                waiters.delete(look);
                gone(new Error(`pkgcat serve exited before its log matched ${pattern}:\n${stderr}`));
              };
              waiters.add(look);
              child.once('exit', exited);
              look();
              if (waiters.has(look) && (child.exitCode !== null || child.signalCode !== null)) exited();
            });
          },
          async stop(graceMs = 10_000) {
            if (child.exitCode !== null || child.signalCode !== null) return;
            const exited = new Promise((done) => child.once('exit', done));
            child.kill('SIGTERM');
            const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
            await exited;
            clearTimeout(kill);
          },
        });
      }
    });
  });
}
