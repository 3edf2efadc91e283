/**
 * The site's HTML pages (docs/site.md). The Astro project in site/ is compiled once per version of
 * its sources, not per commit: `site/dist/<hash>/` holds the compiled app, where the hash covers
 * every file of site/ and src/site/ and Astro's version, so an edit recompiles on the next build
 * and nothing else does. The first build after a checkout (or `npm run site`) compiles it, under
 * a lock, so concurrent builds compile it once. Each build then renders every page of its release
 * by calling the compiled app (`app.render` with the page's view model in `Astro.locals.view`),
 * in worker threads of its own process (site-worker.ts) when it has more than one core: no
 * server, no per-page process.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { contentHash } from '../src/store/hash.ts';
import { acquireLock } from '../src/store/lock.ts';
import { log } from '../src/log.ts';
import type { PageView } from '../src/site/pages.ts';
import { loadCompiled, renderPage } from './site-render.ts';

const run = promisify(execFile);

/** The Astro project. */
export const SITE_ROOT = fileURLToPath(new URL('../site/', import.meta.url));
/** Compiled versions of it, one directory per source hash (not in the repository). */
const COMPILED_ROOT = join(SITE_ROOT, 'dist');
/** The pure view models the pages lay out; the search script bundles src/site/search-filter.ts. */
const VIEW_MODELS = fileURLToPath(new URL('../src/site/', import.meta.url));
/** Directories of site/ that are output, not source. */
const NOT_SOURCES = new Set(['dist', '.astro', 'node_modules']);

const require = createRequire(import.meta.url);

/** Every source file under `dir`, as sorted paths. */
async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && !relative(dir, join(entry.parentPath, entry.name)).split('/').some((part) => NOT_SOURCES.has(part)))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** The hash naming the compiled version of the current sources. */
export async function siteSourceHash(): Promise<string> {
  const astro = JSON.parse(await readFile(require.resolve('astro/package.json'), 'utf8')) as { version: string };
  const parts = [`astro ${astro.version}`];
  for (const root of [SITE_ROOT, VIEW_MODELS]) {
    for (const file of await sourceFiles(root)) parts.push(`${relative(SITE_ROOT, file)}\n${await readFile(file, 'utf8')}`);
  }
  return contentHash(parts.join('\0'));
}

/** The server entry of a compiled version. */
const entryOf = (dir: string) => join(dir, 'server', 'entry.mjs');

export interface CompileOptions {
  /** Told when a compile starts, as it takes seconds (default: stderr). */
  readonly log?: (line: string) => void;
}


/** The directory of the compiled site for the current sources, compiling it first if needed. */
export async function compileSite(options: CompileOptions = {}): Promise<string> {
  const hash = await siteSourceHash();
  const dir = join(COMPILED_ROOT, hash);
  if (existsSync(entryOf(dir))) return dir;
  await mkdir(COMPILED_ROOT, { recursive: true });
  const unlock = await acquireLock(join(COMPILED_ROOT, 'compile.lock'), { waitMs: 10 * 60_000, pollMs: 200 });
  try {
    if (existsSync(entryOf(dir))) return dir;
    const message = "compiling the site's pages (once per version of their sources, a few seconds)";
    if (options.log) options.log(`pkgcat: ${message}`);
    else log.info('build.site_compile', message);
    const staging = join(COMPILED_ROOT, `.staging-${hash}`);
    await rm(staging, { recursive: true, force: true });
    const astro = join(require.resolve('astro/package.json'), '..', 'bin', 'astro.mjs');
    try {
      await run(process.execPath, [astro, 'build', '--root', SITE_ROOT, '--outDir', staging, '--silent'], {
        env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' },
        maxBuffer: 16 * 1024 * 1024,
      });
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      throw new Error(`compiling the site (site/) failed:\n${[stderr, stdout].filter(Boolean).join('\n').trim()}`);
    }
    await rename(staging, dir);
    // Earlier versions are not needed any more (the cache directory is shared by all of them).
    for (const name of await readdir(COMPILED_ROOT)) {
      if (name !== hash && name !== '.cache' && name !== 'compile.lock') await rm(join(COMPILED_ROOT, name), { recursive: true, force: true });
    }
    return dir;
  } finally {
    await unlock();
  }
}

/** Renders the pages of a release. */
export interface SiteRenderer {
  /** The HTML of the page at `path` (site-relative), laying out `view`, as UTF-8 bytes. */
  render(path: string, view: PageView): Promise<Uint8Array>;
}

/**
 * Threads that render besides the build's own: one fewer than the cores (the build's thread
 * computes the views and writes the files meanwhile), at most 4; none on one core.
 */
export const RENDER_WORKERS = Math.min(4, availableParallelism() - 1);

interface Pending {
  resolve(html: Uint8Array): void;
  reject(error: Error): void;
}

/**
 * A render worker's young generation, in MB. V8's default lets it grow to 64 MB of semi-spaces,
 * and a worker that renders pages (short-lived garbage, 20 to 30 MB live) then holds 160 to 240 MB;
 * at 16 it holds 45 to 70 MB, rendering as fast (docs/benchmarks.md, "The render worker's heap").
 */
const RENDER_WORKER_YOUNG_MB = 16;

/** Worker threads that each load the compiled app once and render the pages posted to them. */
class RenderPool implements SiteRenderer {
  readonly #workers: { worker: Worker; pending: Map<number, Pending> }[];
  #next = 0;
  /** Why a worker died: every page after it fails with this, never waits on a worker that is gone. */
  #failure: Error | null = null;

  constructor(entry: string, size: number) {
    this.#workers = Array.from({ length: size }, () => {
      const worker = new Worker(new URL('./site-worker.ts', import.meta.url), {
        workerData: { entry },
        resourceLimits: { maxYoungGenerationSizeMb: RENDER_WORKER_YOUNG_MB },
      });
      const pending = new Map<number, Pending>();
      worker.on('message', ({ id, html, error }: { id: number; html?: Uint8Array; error?: string }) => {
        const waiting = pending.get(id)!;
        pending.delete(id);
        // An idle worker does not keep the build's process alive.
        if (pending.size === 0) worker.unref();
        if (error !== undefined) waiting.reject(new Error(error));
        else waiting.resolve(html!);
      });
      const fail = (cause: Error) => {
        const error = new Error(`rendering the site's pages failed: ${workerFailure(cause)}`);
        this.#failure ??= error;
        for (const waiting of pending.values()) waiting.reject(error);
        pending.clear();
      };
      worker.on('error', fail);
      worker.on('exit', (code) => fail(new Error(`a render worker exited with code ${code}`)));
      worker.unref();
      return { worker, pending };
    });
  }

  render(path: string, view: PageView): Promise<Uint8Array> {
    if (this.#failure) return Promise.reject(this.#failure);
    // The least busy worker.
    const target = this.#workers.reduce((best, candidate) => (candidate.pending.size < best.pending.size ? candidate : best));
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      target.pending.set(id, { resolve, reject });
      target.worker.ref();
      target.worker.postMessage({ id, path, view });
    });
  }
}

/** What became of a render worker, in a line: `a render worker ran out of memory`. */
function workerFailure(error: Error & { code?: string }): string {
  if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') return 'a render worker ran out of memory';
  return error.message.split('\n')[0]!;
}

let loaded: Promise<SiteRenderer> | null = null;

/** The compiled site, compiled first if its sources changed; loaded once per process. */
export function loadSite(options: CompileOptions = {}): Promise<SiteRenderer> {
  loaded ??= (async () => {
    const entry = entryOf(await compileSite(options));
    if (RENDER_WORKERS > 0) return new RenderPool(entry, RENDER_WORKERS);
    const site = await loadCompiled(entry);
    return { render: (path, view) => renderPage(site, path, view) };
  })();
  loaded.catch(() => (loaded = null));
  return loaded;
}
