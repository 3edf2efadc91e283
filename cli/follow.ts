/**
 * Following main: `serve --repo` rebuilds whenever main moves. File events on the git directory
 * give a prompt start; a poll catches what events miss (network file systems, packed refs).
 *
 * The builds run in a child process (`pkgcat build --wait`), so composing never blocks a request,
 * and a build that dies leaves the published release untouched (publishing is an atomic symlink
 * swap). The child is bound to this process by an IPC channel (cli/build-channel.ts): it says what
 * it is doing over it, and exits when it closes, so a serve killed with SIGKILL leaves no orphan
 * holding the build lock. A child whose build succeeded stays, and builds the next commit when
 * asked, from the state it kept (build/build.ts Builder); one whose build failed exits, and the
 * next build starts another. A build that finds another one writing the output waits for it.
 *
 * A failed build never stops the serving: the previous release stays, `/healthz` says why the build
 * failed, and the same tip is tried again after a back-off (at once when main moves again). A
 * repository that goes away (moved, deleted) and a disk that is full are dependencies of the
 * server (gateway/dependencies.ts): said once, reported degraded, and followed again once back.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CatalogRepo, gitDirectory, readMainSha } from '../src/catalog/git.ts';
import { Dependencies, type DependencyReporter } from '../gateway/dependencies.ts';
import type { BuildStatus } from '../gateway/health.ts';
import type { BuildFigures, GatewayMetrics } from '../gateway/metrics.ts';
import { logFormat, type Logger } from '../src/log.ts';
import type { BuildProgress } from '../build/build.ts';
import type { BuildingStatus } from '../gateway/building-page.ts';
import type { BuildMessage, BuildRequest } from './build-channel.ts';

const PKGCAT = fileURLToPath(new URL('../bin/pkgcat.js', import.meta.url));

/** The longest wait before trying a failed tip again (s). */
const MAX_RETRY_SECONDS = 60;

export interface FollowOptions {
  repo: string;
  out: string;
  pollSeconds: number;
  /**
   * How long the build process stays up after a build for the next one, holding the catalog in
   * memory (0: a process per build). Default: it stays as long as this follower runs.
   */
  buildIdleSeconds?: number;
  /** The public site URL the builds write into each release (`build --site-url`). */
  siteUrl: string;
  /** Where each build exports the release for a static host (`build --export`); none: no export. */
  exportDir?: string;
  /** The build process's environment; default: this process's. */
  buildEnv?: Record<string, string | undefined>;
  log: Logger;
  /** Where the repository and the disk are reported (shared with the gateway's `/healthz`); default: its own, logging to `log`. */
  dependencies?: Dependencies;
  /** Where each build's result, duration and figures are counted. */
  metrics?: GatewayMetrics;
  /** Called once, when the first build succeeds (`npm start` then says where to go). */
  onFirstPublished?: () => void;
}

/** System errors that say the output's disk is full. */
const DISK_FULL = new Set(['ENOSPC', 'EDQUOT']);

/** How a build child ended. */
interface BuildOutcome {
  code: number;
  /** The tip it published (or found published), from its `done` message. */
  tip: string | null;
  /** Its one-line reason, from its `failed` message. */
  failure: string | null;
  /** The code of the system call that failed, from its `failed` message. */
  failureCode: string | null;
  /** Whether it published a release, and its figures, from its `done` message. */
  published: boolean;
  figures: BuildFigures | null;
}

export class MainFollower {
  readonly #options: FollowOptions;
  /** The tip the last successful build published. */
  #built: string | null = null;
  #running: Promise<void> | null = null;
  #again = false;
  /** The build process, kept between builds once one succeeded. */
  #child: ChildProcess | null = null;
  /** Ends an idle build process (buildIdleSeconds). */
  #idle: NodeJS.Timeout | null = null;
  /** The build running now: where the child's answer goes. */
  #pending: { outcome: BuildOutcome; started: number; resolve: (outcome: BuildOutcome) => void } | null = null;
  #waitingFor: number | null = null;
  #lastFailure: string | null = null;
  /** How far the running build has got, from its `progress` messages. */
  #progress: BuildProgress | null = null;
  /** The tip whose build failed, how many times in a row, and when to try it again (ms). */
  #failed: { tip: string; times: number; retryAt: number } | null = null;
  #stopped = false;
  #timer: NodeJS.Timeout | null = null;
  #watchers: FSWatcher[] = [];
  readonly #repository: DependencyReporter;
  readonly #disk: DependencyReporter;

  constructor(options: FollowOptions) {
    this.#options = options;
    const dependencies = options.dependencies ?? new Dependencies(options.log);
    this.#repository = dependencies.reporter('repository');
    this.#disk = dependencies.reporter('disk');
  }

  /** Starts following: the first build of what main holds now starts at once, in the background. */
  async start(): Promise<void> {
    const gitDir = await gitDirectory(this.#options.repo);
    for (const dir of [gitDir, join(gitDir, 'refs', 'heads')]) {
      try {
        this.#watchers.push(watch(dir, () => this.check()));
      } catch {
        // Polling alone still follows main.
      }
    }
    this.#timer = setInterval(() => this.check(), this.#options.pollSeconds * 1000);
    this.#timer.unref();
    this.check();
  }

  /** For `/healthz`. */
  status(): BuildStatus {
    return { running: this.#pending !== null, waitingFor: this.#waitingFor, lastFailure: this.#lastFailure };
  }

  /** For the page a person sees before the first release has pages (gateway/building-page.ts). */
  building(): BuildingStatus {
    const progress = this.#progress;
    return {
      running: this.#pending !== null,
      composed: progress?.phase === 'composing' ? { done: progress.done, total: progress.total } : undefined,
      publishing: progress?.phase === 'publishing',
      failed: this.#lastFailure !== null,
    };
  }

  /** Starts a build when main moved; one build at a time, and one more if it moved meanwhile. */
  check(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#rebuildIfMoved().finally(() => {
      this.#running = null;
      if (this.#again) {
        this.#again = false;
        this.check();
      }
    });
  }

  async #rebuildIfMoved(): Promise<void> {
    const tip = await readMainSha(this.#options.repo);
    if (tip === null) {
      // No main: the repository moved away, was deleted, or lost its branch. Serving goes on.
      const problem = await repositoryProblem(this.#options.repo);
      if (problem) this.#repository.degraded(`the catalog repository is unusable: ${problem}`);
      return;
    }
    this.#repository.ok();
    if (tip === this.#built) return;
    if (this.#failed?.tip === tip && Date.now() < this.#failed.retryAt) return;
    const first = this.#built === null && this.#failed === null;
    if (this.#failed?.tip === tip) this.#options.log.info('follow.retrying', `building ${tip.slice(0, 12)} again`, { tip });
    else if (!first) this.#options.log.info('follow.main_moved', `main moved to ${tip.slice(0, 12)}; building`, { tip });
    // The first build shows its progress; the later ones, a line when they are done.
    const outcome = await this.#build(!first);
    if (this.#stopped) return;
    if (outcome.code === 0) {
      if (this.#built === null) this.#options.onFirstPublished?.();
      this.#built = outcome.tip ?? tip;
      this.#lastFailure = null;
      this.#failed = null;
      this.#disk.ok();
      return;
    }
    if (outcome.failureCode !== null && DISK_FULL.has(outcome.failureCode)) this.#disk.degraded(`the disk of ${this.#options.out} is full: ${outcome.failure}`);
    const times = this.#failed?.tip === tip ? this.#failed.times + 1 : 1;
    const retrySeconds = Math.min(this.#options.pollSeconds * 2 ** (times - 1), MAX_RETRY_SECONDS);
    this.#failed = { tip, times, retryAt: Date.now() + retrySeconds * 1000 };
    this.#lastFailure = outcome.failure ?? `the build exited with status ${outcome.code}`;
    this.#options.log.error(
      'follow.build_failed',
      `the build of ${tip.slice(0, 12)} failed (exit ${outcome.code}); still serving the previous release; ` +
        `trying again in ${retrySeconds} s, or when main moves`,
      { tip, exitCode: outcome.code, reason: this.#lastFailure, retrySeconds },
    );
  }

  /** Runs a build in the child bound to this process (`pkgcat build --wait`, started when there is none); resolves when it has ended. */
  #build(quiet: boolean): Promise<BuildOutcome> {
    return new Promise((resolve) => {
      const outcome: BuildOutcome = { code: 1, tip: null, failure: null, failureCode: null, published: false, figures: null };
      this.#pending = { outcome, started: performance.now(), resolve };
      if (this.#idle) clearTimeout(this.#idle);
      if (this.#child?.connected) this.#child.send({ kind: 'build', quiet } satisfies BuildRequest);
      else this.#spawn(quiet);
    });
  }

  /** Starts the build process; its first build starts with it. */
  #spawn(quiet: boolean): void {
    const { repo, out, siteUrl, exportDir } = this.#options;
    // The build logs in the same format as this process, to the same stderr.
    const args = [
      PKGCAT, 'build', '--repo', repo, '--out', out, '--site-url', siteUrl, '--log-format', logFormat(), '--wait',
      ...(exportDir ? ['--export', exportDir] : []), ...(quiet ? ['--quiet'] : []),
    ];
    // --expose-gc: its build thread collects its garbage once after each build, while it waits (cli/build-worker.ts).
    const child = spawn(process.execPath, ['--expose-gc', ...args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: this.#options.buildEnv });
    this.#child = child;
    child.on('message', (message: BuildMessage) => {
      const outcome = this.#pending?.outcome;
      // A process let go while idle has no say in the next build's.
      if (!outcome || this.#child !== child) return;
      if (message.kind === 'waiting') this.#waitingFor = message.holder;
      else if (message.kind === 'progress') this.#progress = message.progress;
      else if (message.kind === 'failed') Object.assign(outcome, { failure: message.reason, failureCode: message.code ?? null });
      else if (message.kind === 'done') {
        Object.assign(outcome, { tip: message.tip, published: message.releaseId !== null, figures: message.figures });
        this.#ended(0);
      }
    });
    child.once('error', (error) => {
      if (this.#pending) this.#pending.outcome.failure = `cannot start a build: ${error.message}`;
      this.#gone(child, 1);
    });
    // A failed build's process exits: its answer is its exit status.
    child.once('close', (code) => this.#gone(child, code ?? 1));
  }

  #gone(child: ChildProcess, code: number): void {
    // A process let go while idle ends after the next build may have started another.
    if (this.#child !== child) return;
    this.#child = null;
    this.#ended(code === 0 ? 1 : code);
  }

  /** Lets the build process go once it has stayed idle for buildIdleSeconds: the memory it holds is given back, and the next build starts another. */
  #idleFor(seconds: number | undefined): void {
    const child = this.#child;
    if (seconds === undefined || !child) return;
    this.#idle = setTimeout(() => {
      this.#child = null;
      child.kill('SIGTERM');
    }, seconds * 1000);
    this.#idle.unref();
  }

  /** The running build ended with `code` (0: done): counted, and its caller told. */
  #ended(code: number): void {
    const pending = this.#pending;
    if (!pending) return;
    this.#pending = null;
    this.#waitingFor = null;
    this.#progress = null;
    const { outcome } = pending;
    const result = code !== 0 ? 'failed' : outcome.published ? 'published' : 'unchanged';
    this.#options.metrics?.build(result, (performance.now() - pending.started) / 1000, code === 0 ? outcome.figures : null);
    if (code === 0) this.#idleFor(this.#options.buildIdleSeconds);
    pending.resolve({ ...outcome, code });
  }

  /** Resolves when no build is running (for tests and shutdown). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  /** Stops following, ends a running build (it leaves only temporary files), and resolves once it has. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    if (this.#idle) clearTimeout(this.#idle);
    for (const watcher of this.#watchers) watcher.close();
    this.#watchers = [];
    this.#child?.kill('SIGTERM');
    await this.idle();
    await this.#exited();
  }

  /** Resolves once the build process has exited (at once when there is none). */
  async #exited(): Promise<void> {
    const child = this.#child;
    if (child && child.exitCode === null && child.signalCode === null) await new Promise((resolve) => child.once('exit', resolve));
  }
}

/** Why `repo` cannot be read as a catalog now (CatalogRepo.open's one line), or null when it can. */
async function repositoryProblem(repo: string): Promise<string | null> {
  try {
    (await CatalogRepo.open(repo)).close();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message.split('\n')[0]! : String(error);
  }
}
