/** Helpers shared by the benchmark suites: child processes, disk usage, the machine, tables. */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, freemem, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';

export interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Wall time around the child, start-up included. */
  seconds: number;
}

/** Runs a command to completion, timing it with performance.now() from spawn to exit. */
export function runChild(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<ChildResult> {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    // pkgcat's lines as a person reads them (its default off a terminal is JSON): the reports quote them.
    const env = { PKGCAT_LOG_FORMAT: 'text', ...(options.env ?? process.env) };
    const child = spawn(command, args, { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => reject(new Error(`${command}: ${error.message}`)));
    child.on('close', (code, signal) => {
      resolvePromise({
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        seconds: (performance.now() - started) / 1000,
      });
    });
  });
}

/** Throws with the child's stderr tail unless it exited 0. */
export function checkChild(what: string, result: ChildResult): ChildResult {
  if (result.code === 0) return result;
  const how = result.signal ? `signal ${result.signal}` : `exit code ${result.code}`;
  const tail = result.stderr.trim().split('\n').slice(-15).join('\n');
  throw new Error(`${what} failed (${how})${tail ? `:\n${tail}` : ''}`);
}

/** git with the environment's GIT_* variables removed; resolves with stdout. */
export function git(cwd: string, args: string[]): string {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('GIT_')) env[key] = value;
  env.GIT_CONFIG_NOSYSTEM = '1';
  return execFileSync('git', args, { cwd, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

export interface DiskFigures {
  /** Regular files. */
  files: number;
  /** Sum of file (and symlink) sizes: `du --apparent-size -b`. */
  apparentBytes: number;
  /** Allocated blocks of files and directories (stat.blocks * 512): `du -sk` * 1024. */
  allocatedBytes: number;
}

export interface DiskUsage extends DiskFigures {
  /** By top-level entry of the output: objects, releases, build, other. */
  byFolder: Record<string, DiskFigures>;
}

const FOLDERS = ['objects', 'releases', 'build'];

/** Walks a directory without following symlinks (the output's `current` is one). */
export function diskUsage(dir: string): DiskUsage {
  const byFolder: Record<string, DiskFigures> = {};
  for (const name of [...FOLDERS, 'other']) byFolder[name] = { files: 0, apparentBytes: 0, allocatedBytes: 0 };
  const top = lstatSync(dir);
  byFolder.other.allocatedBytes += top.blocks * 512;
  for (const entry of readdirSync(dir)) {
    const figures = byFolder[FOLDERS.includes(entry) ? entry : 'other'];
    walk(join(dir, entry), figures);
  }
  const total: DiskFigures = { files: 0, apparentBytes: 0, allocatedBytes: 0 };
  for (const figures of Object.values(byFolder)) {
    total.files += figures.files;
    total.apparentBytes += figures.apparentBytes;
    total.allocatedBytes += figures.allocatedBytes;
  }
  return { ...total, byFolder };
}

function walk(path: string, into: DiskFigures): void {
  const stat = lstatSync(path);
  into.allocatedBytes += stat.blocks * 512;
  if (stat.isDirectory()) {
    for (const entry of readdirSync(path)) walk(join(path, entry), into);
  } else if (stat.isFile()) {
    into.files += 1;
    into.apparentBytes += stat.size;
  } else if (stat.isSymbolicLink()) {
    into.apparentBytes += stat.size;
  }
}

export interface Machine {
  date: string;
  cpus: number;
  cpuModel: string;
  memoryTotal: string;
  memoryFree: string;
  platform: string;
  node: string;
  git: string;
  /** 1, 5 and 15 minute load averages when the figures were taken: other work on the machine skews them. */
  loadAverage: number[];
}

export function machine(): Machine {
  let model = cpus()[0]?.model ?? 'unknown';
  try {
    const line = execFileSync('grep', ['-m1', 'model name', '/proc/cpuinfo'], { encoding: 'utf8' });
    model = line.split(':').slice(1).join(':').trim() || model;
  } catch {
    // not Linux: os.cpus() is as good.
  }
  let gitVersion = 'unknown';
  try {
    gitVersion = execFileSync('git', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    // reported as unknown
  }
  return {
    date: new Date().toISOString(),
    cpus: availableParallelism(),
    cpuModel: model,
    memoryTotal: gib(totalmem()),
    memoryFree: gib(freemem()),
    platform: `${process.platform} ${release()} ${process.arch}`,
    node: process.version,
    git: gitVersion,
    loadAverage: loadavg().map((value) => Math.round(value * 100) / 100),
  };
}

/** The commit the project was at, and whether the code a build runs (bin, build, src) had uncommitted changes. */
export function projectRevision(root: string): { commit: string | null; uncommittedBuildCode: boolean | null } {
  try {
    const commit = git(root, ['rev-parse', 'HEAD']).trim();
    const dirty = git(root, ['status', '--porcelain', '--', 'bin', 'build', 'src']).trim() !== '';
    return { commit, uncommittedBuildCode: dirty };
  } catch {
    return { commit: null, uncommittedBuildCode: null };
  }
}

/** The `/usr/bin/time` that prints peak RSS with `-f %M` (apt package `time`), or null. */
export function gnuTime(): string | null {
  return existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

export const gib = (bytes: number): string => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
export const mib = (bytes: number): string => `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
export const secs = (seconds: number): string => (seconds < 10 ? `${seconds.toFixed(2)} s` : `${seconds.toFixed(1)} s`);
export const count = (value: number): string => value.toLocaleString('en-US');

/** A plain text table; numbers and figures are right-aligned when the column header says so. */
export function table(headers: string[], rows: string[][], rightAligned: boolean[] = headers.map((_, index) => index > 0)): string {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((cell, column) => (rightAligned[column] ? cell.padStart(widths[column]) : cell.padEnd(widths[column]))).join('  ').trimEnd();
  return [line(headers), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

export async function writeResults(resultsDir: string, name: string, data: unknown): Promise<string> {
  await mkdir(resultsDir, { recursive: true });
  const file = join(resultsDir, `${name}.json`);
  await writeFile(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}
