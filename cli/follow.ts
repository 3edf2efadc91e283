/**
 * Following main: `serve --repo` rebuilds whenever main moves. File events on the git directory
 * give a prompt start; a poll catches what events miss (network file systems, packed refs).
 * Each build runs as a child process, so composing never blocks a request, and a build that
 * dies leaves the published release untouched (publishing is an atomic symlink swap).
 */
import { spawn } from 'node:child_process';
import { watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gitDirectory, readMainSha } from '../src/catalog/git.ts';

const PKGCAT = fileURLToPath(new URL('../bin/pkgcat.js', import.meta.url));

export interface FollowOptions {
  repo: string;
  out: string;
  pollSeconds: number;
  /** The public site URL the builds write into each release (`build --site-url`). */
  siteUrl: string;
  log: (line: string) => void;
}

/** Runs `pkgcat build` in a child process; resolves with its exit code. */
export function runBuildProcess(repo: string, out: string, siteUrl: string, quiet: boolean): Promise<number> {
  return new Promise((resolve) => {
    const args = [PKGCAT, 'build', '--repo', repo, '--out', out, '--site-url', siteUrl, ...(quiet ? ['--quiet'] : [])];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', () => resolve(1));
    child.on('close', (code) => resolve(code ?? 1));
  });
}

export class MainFollower {
  private readonly options: FollowOptions;
  private built: string | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private watchers: FSWatcher[] = [];

  constructor(options: FollowOptions) {
    this.options = options;
  }

  /** Builds what main holds now (failing when the first build fails), then starts following. */
  async start(): Promise<void> {
    const tip = await readMainSha(this.options.repo);
    const code = await runBuildProcess(this.options.repo, this.options.out, this.options.siteUrl, false);
    if (code !== 0) throw new Error(`the first build of ${this.options.repo} failed (exit ${code}); see the reason above`);
    this.built = tip;
    const gitDir = await gitDirectory(this.options.repo);
    for (const dir of [gitDir, join(gitDir, 'refs', 'heads')]) {
      try {
        this.watchers.push(watch(dir, () => this.check()));
      } catch {
        // Polling alone still follows main.
      }
    }
    this.timer = setInterval(() => this.check(), this.options.pollSeconds * 1000);
    this.timer.unref();
  }

  /** Starts a build when main moved; one build at a time, and one more if it moved meanwhile. */
  check(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.rebuildIfMoved().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        this.check();
      }
    });
  }

  private async rebuildIfMoved(): Promise<void> {
    const tip = await readMainSha(this.options.repo);
    if (tip === null || tip === this.built) return;
    this.options.log(`main moved to ${tip.slice(0, 12)}; building`);
    const code = await runBuildProcess(this.options.repo, this.options.out, this.options.siteUrl, true);
    if (code === 0) this.built = tip;
    else this.options.log(`the build of ${tip.slice(0, 12)} failed (exit ${code}); still serving the previous release, will retry`);
  }

  /** Resolves when no build is running (for tests and shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    for (const watcher of this.watchers) watcher.close();
    this.watchers = [];
    await this.idle();
  }
}
