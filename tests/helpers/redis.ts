/**
 * A throw-away `redis-server` for tests: Debian's package (`apt-get install redis-server`; `.ci/run`
 * installs it), on a free loopback port, with no persistence, in a temporary directory.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../bench/helpers/ports.ts';

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  /** SIGTERM, wait for it to exit, and remove its directory. */
  stop(): Promise<void>;
  /** SIGKILL, as a crash would (its directory stays until stop). */
  kill(): Promise<void>;
}

/** The redis-server binary to use, or null when it is not installed. */
export function findRedisServer(): string | null {
  const binary = process.env.PKGCAT_TEST_REDIS_SERVER ?? 'redis-server';
  const probe = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  return probe.status === 0 && /Redis server/i.test(probe.stdout) ? binary : null;
}

function waitForReady(child: ChildProcess, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => done(new Error(`redis-server did not start within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) done(null);
    };
    const onExit = (code: number | null) => done(new Error(`redis-server exited (${code}) before it was ready:\n${output}`));
    function done(error: Error | null) {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve();
    }
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
}

/**
 * Starts redis-server on a free port (retrying if another process takes the port first), or on
 * `options.port` (a restart where the one before ran: clients reconnect to the same address).
 */
export async function startRedisServer(binary = findRedisServer(), options: { port?: number } = {}): Promise<RedisServer> {
  if (binary === null) throw new Error('redis-server is not installed (apt-get install redis-server)');
  const dir = await mkdtemp(join(tmpdir(), 'pkgcat-redis-'));
  let lastError: unknown;
  for (let attempt = 0; attempt < (options.port === undefined ? 5 : 1); attempt += 1) {
    const port = options.port ?? (await freePort());
    const child = spawn(
      binary,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--loglevel', 'notice'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      await waitForReady(child, 10_000);
    } catch (error) {
      lastError = error;
      if (child.exitCode === null) child.kill('SIGKILL');
      continue;
    }
    child.stdout?.resume();
    child.stderr?.resume();
    return {
      url: `redis://127.0.0.1:${port}`,
      port,
      async stop() {
        await end(child, 'SIGTERM');
        await rm(dir, { recursive: true, force: true });
      },
      kill: () => end(child, 'SIGKILL'),
    };
  }
  await rm(dir, { recursive: true, force: true });
  throw lastError;
}

/** Sends `signal` to a running child and resolves once it has exited. */
async function end(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}
