/**
 * A throw-away nginx for tests and benchmarks: Debian's package (`apt-get install nginx`; `.ci/run`
 * installs it), in the foreground, on a free loopback port, with a generated configuration and
 * its pid, logs and temporary files in a temporary directory. (bench/helpers/ is shared with the
 * tests: tests/ may import bench/, never the reverse.)
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';

export interface Nginx {
  readonly url: string;
  readonly port: number;
  /** The nginx master's pid. */
  readonly pid: number;
  stop(): Promise<void>;
}

/** The nginx binary to use, or null when it is not installed. */
export function findNginx(): string | null {
  for (const binary of [process.env.PKGCAT_TEST_NGINX, 'nginx', '/usr/sbin/nginx'].filter((name): name is string => Boolean(name))) {
    const probe = spawnSync(binary, ['-v'], { encoding: 'utf8' });
    if (probe.status === 0 && /nginx version/i.test(probe.stderr)) return binary;
  }
  return null;
}

export interface NginxOptions {
  /** The body of the `http` block beyond the basics, with `{{port}}` where the listening port goes. */
  readonly http: string;
  /** Worker processes (default 1). */
  readonly workers?: number | 'auto';
}

async function waitForPort(port: number, child: ChildProcess, dir: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    const open = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(500) }).then(
      () => true,
      () => false,
    );
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const log = await readFile(join(dir, 'error.log'), 'utf8').catch(() => '');
  throw new Error(`nginx did not start on port ${port}:\n${log}`);
}

/** Starts nginx with `options.http` inside its `http` block, on a free port (retrying if the port is taken). */
export async function startNginx(binary: string, options: NginxOptions): Promise<Nginx> {
  const dir = await mkdtemp(join(tmpdir(), 'pkgcat-nginx-'));
  // As root, nginx drops its workers to `nobody`, who cannot read a test's temporary directories.
  const user = process.getuid?.() === 0 ? `user ${userInfo().username};\n` : '';
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const port = await freePort();
    const config = `daemon off;
${user}worker_processes ${options.workers ?? 1};
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${options.http.replaceAll('{{port}}', String(port))}
}
`;
    const file = join(dir, 'nginx.conf');
    await writeFile(file, config);
    const child = spawn(binary, ['-p', dir, '-c', file], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr?.resume();
    try {
      await waitForPort(port, child, dir, 10_000);
    } catch (error) {
      lastError = error;
      if (child.exitCode === null) child.kill('SIGKILL');
      continue;
    }
    return {
      url: `http://127.0.0.1:${port}`,
      port,
      pid: child.pid!,
      async stop() {
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((resolve) => child.once('exit', resolve));
          // QUIT: a graceful stop; the master waits for its workers.
          child.kill('SIGQUIT');
          const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
          await exited;
          clearTimeout(timer);
        }
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  await rm(dir, { recursive: true, force: true });
  throw lastError;
}
