/**
 * `pkgcat build`: turns every first-parent commit of a catalog's main into the files the
 * surfaces serve. Incremental (a commit already built is never composed again; a new commit
 * recomposes only what it reaches), deterministic, and atomic (see publish.ts).
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CatalogRepo, type LoggedCommit } from '../src/catalog/git.ts';
import { serialize } from '../src/serialize.ts';
import {
  LAYOUT_VERSION, layoutFile, otherLayout, currentReleaseId, paths, readJson, readListing, readStateRoot, type ReleaseInfo, type StateRootFile,
} from '../src/store/layout.ts';
import type { CommitInfo, Diagnostic } from '../src/compose/types.ts';
import { writeFileAtomic } from '../src/store/atomic.ts';
import { acquireLock } from '../src/store/lock.ts';
import { PUBLIC_SURFACE_IDS } from '../src/surfaces/registry.ts';
import type { CatalogModel } from './model.ts';
import type { Composer } from './composer.ts';
import type { HeldRelease, PublishCounts } from './publish.ts';
import { Checkpoints, checkpointDirectory } from './checkpoints.ts';

export interface BuildOptions {
  repo: string;
  out: string;
  /** Receives one line per diagnostic (with the diagnostic) and per notable step (default: stderr). */
  log?: (line: string, diagnostic?: Diagnostic) => void;
  /** Told how far the build has got: each commit read (`done` of `total`), then `publishing` (the first-build page shows it). */
  onProgress?: (progress: BuildProgress) => void;
  /** Show progress on long builds (default true). */
  progress?: boolean;
  /**
   * The public address the site is served at (`pkgcat build --site-url`, PKGCAT_SITE_URL): an
   * absolute http(s) URL without a trailing slash, for the surfaces that print absolute URLs
   * (the sitemap, feeds, llms.txt, mirrors, pages). Default DEFAULT_SITE_URL, the default address of
   * `pkgcat serve`, whatever address serve listens on (docs/decisions.md "The site URL").
   */
  siteUrl?: string;
  /**
   * When another build holds the output directory's lock: wait for it to finish (this is told
   * once, with its pid) instead of failing. A lock of a process that died is taken over either way.
   */
  waitForLock?: (holder: number | null) => void;
  /** Told when the build's release goes live (`current` switched to it). For the benchmark's timings. */
  onLive?: (releaseId: string) => void;
  /** Commits between spaced checkpoints (checkpoints.ts SPACINGS); tests make them short. */
  checkpointSpacings?: readonly number[];
}

/** The site URL when none is given: the address `pkgcat serve` listens on by default. */
export const DEFAULT_SITE_URL = 'http://127.0.0.1:8080';

const siteUrlOf = (options: BuildOptions) => (options.siteUrl ?? DEFAULT_SITE_URL).replace(/\/+$/, '');

export type BuildProgress = { readonly phase: 'composing'; readonly done: number; readonly total: number } | { readonly phase: 'publishing' };

export interface BuildResult {
  tip: string;
  /** Commits on the first-parent chain. */
  commits: number;
  /** Commits composed by this run. */
  composed: number;
  /**
   * Commits this run read from git and applied to the model: those after the checkpoint it
   * resumed from (all of them when it had none on the chain); 0 when nothing changed.
   */
  applied: number;
  /** The commit whose checkpoint this run started from (or whose state a Builder kept from its last build); null: from the root (or nothing to do). */
  resumedFrom: string | null;
  /** The release published by this run, or null when nothing changed. */
  releaseId: string | null;
  /** Diagnostics raised by the commits this run read. */
  diagnostics: Diagnostic[];
  /** What publishing the release cost (documents rendered and kept; files and bytes written); null when nothing changed. */
  published: PublishCounts | null;
}

/** One build at a time per output directory (a killed build's lock is taken over). */
const lockFile = (out: string) => join(paths.buildPrivate(out), 'lock');

async function ensureLayout(out: string): Promise<void> {
  await mkdir(out, { recursive: true });
  const problem = await otherLayout(out);
  if (problem) throw new Error(problem);
  if (!existsSync(layoutFile(out))) await writeFileAtomic(layoutFile(out), serialize({ layout: LAYOUT_VERSION }));
}

async function currentRelease(out: string): Promise<{ info: ReleaseInfo; chain: CommitInfo[] } | null> {
  const id = await currentReleaseId(out);
  if (!id) return null;
  const dir = paths.release(out, id);
  try {
    return { info: await readJson<ReleaseInfo>(paths.releaseInfo(dir)), chain: await readJson<CommitInfo[]>(paths.chain(dir)) };
  } catch {
    return null;
  }
}

/** The model and the composer at the tip a Builder last built, and the output it built it in. */
interface WarmState {
  readonly out: string;
  readonly sha: string;
  readonly model: CatalogModel;
  readonly composer: Composer;
  /** The release it published: the next one starts from its manifest and input table (publish.ts HeldRelease). */
  readonly release: HeldRelease;
}

/**
 * Builds an output again and again in one process (the build process of `serve --repo`). It keeps
 * the model and the composer at the tip it last published, and that release's manifest and input
 * table, so that the next build starts from them instead of reading a checkpoint and the release
 * back, and the loaded modules, the compiled code and the site's render workers are there already.
 * A build that fails drops them: the next one starts from a checkpoint.
 */
export class Builder {
  /** Whether it keeps its state for a next build (a build run once does not: it lets go of what it no longer needs). */
  readonly #keeps: boolean;
  #warm: WarmState | null = null;
  /**
   * The catalog repository of the last build, with its git processes (a builder that keeps its
   * state keeps them too: starting a process costs more the more memory this one holds).
   */
  #repo: CatalogRepo | null = null;

  constructor(keeps = true) {
    this.#keeps = keeps;
  }

  async build(options: BuildOptions): Promise<BuildResult> {
    let failed = true;
    try {
      const result = await this.#build(options);
      failed = false;
      return result;
    } finally {
      if (failed || !this.#keeps) this.close();
    }
  }

  /** Ends the git processes it keeps (a builder that keeps its state; the next build starts them again). */
  close(): void {
    this.#repo?.close();
    this.#repo = null;
  }

  /** The repository at `path` and its main: the one kept while main can be read there, else opened (failing with the reason). */
  async #open(path: string): Promise<{ repo: CatalogRepo; tip: string }> {
    const kept = this.#repo?.path === path ? this.#repo : null;
    const keptTip = kept && (await kept.mainSha().catch(() => null));
    if (kept && keptTip) return { repo: kept, tip: keptTip };
    this.close();
    const repo = (this.#repo = await CatalogRepo.open(path));
    return { repo, tip: await repo.mainSha() };
  }

  async #build(options: BuildOptions): Promise<BuildResult> {
    const { out } = options;
    const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
    const { repo, tip } = await this.#open(options.repo);
    await ensureLayout(out);
    let previous = await currentRelease(out);
    if (upToDate(previous, tip, options)) return nothingToDo(tip, previous!);
    let waited = false;
    const unlock = await acquireLock(lockFile(out), {
      waitMs: options.waitForLock ? Infinity : 0,
      pollMs: 200,
      onWait: (holder) => {
        waited = true;
        options.waitForLock?.(holder);
      },
      busyError: (holder) => new Error(`another build (pid ${holder ?? 'unknown'}) is writing this output directory; wait for it to finish`),
    });
    try {
      if (waited) {
        // The build we waited for may have published this very tip.
        previous = await currentRelease(out);
        if (upToDate(previous, tip, options)) return nothingToDo(tip, previous!);
      }
      // Kept only while the output's release is the one this builder published last (no other build published since).
      const warm = this.#warm?.out === out && this.#warm.sha === previous?.info.tip?.sha ? this.#warm : null;
      this.#warm = null;
      const built = await buildLocked(repo, tip, previous?.chain ?? [], options, log, warm, this.#keeps);
      this.#warm = built.warm;
      return built.result;
    } finally {
      await unlock();
    }
  }
}

/** Builds every commit of main not built yet in `options.out`, then publishes the tip (one build, in a builder of its own). */
export const buildCatalog = (options: BuildOptions): Promise<BuildResult> => new Builder(false).build(options);

/**
 * Whether `tip` is published for this site URL with every surface this version publishes (a new
 * URL, or a pkgcat with new surfaces, republishes without composing).
 */
function upToDate(previous: { info: ReleaseInfo } | null, tip: string, options: BuildOptions): boolean {
  const sameSurfaces = previous?.info.publicSurfaces?.join() === PUBLIC_SURFACE_IDS.join();
  return previous?.info.tip?.sha === tip && previous.info.siteUrl === siteUrlOf(options) && sameSurfaces;
}

function nothingToDo(tip: string, previous: { info: ReleaseInfo }): BuildResult {
  return { tip, commits: previous.info.commitCount, composed: 0, applied: 0, resumedFrom: null, releaseId: null, diagnostics: [], published: null };
}

/**
 * What a build starts from: the state a warm builder kept, when its commit is on main (the release
 * it published is the current one); else the newest checkpoint on the chain; else nothing (the
 * root). A function of its own so that the parsed checkpoint is let go once the model and the
 * composer are made from it: held in the build's frame, it stayed through publishing (9 MB at
 * 20,000 packages).
 */
async function startingPoint(
  warm: WarmState | null,
  chain: readonly string[],
  checkpoints: Checkpoints,
  classes: { CatalogModel: typeof CatalogModel; Composer: typeof Composer },
): Promise<{ model: CatalogModel; composer: Composer; startedFrom: string | null }> {
  if (warm && chain.includes(warm.sha)) return { model: warm.model, composer: warm.composer, startedFrom: warm.sha };
  const resume = await checkpoints.newest();
  if (!resume) return { model: new classes.CatalogModel(), composer: new classes.Composer(), startedFrom: null };
  const model = classes.CatalogModel.restore(resume.model);
  const composer = new classes.Composer(resume.composer);
  composer.resumeAt(model.state());
  return { model, composer, startedFrom: resume.sha };
}

async function buildLocked(
  repo: CatalogRepo,
  tip: string,
  previousChain: CommitInfo[],
  options: BuildOptions,
  log: (line: string, diagnostic?: Diagnostic) => void,
  warm: WarmState | null,
  keeps: boolean,
): Promise<{ result: BuildResult; warm: WarmState | null }> {
  const { out } = options;
  // git walks the chain (from the current release's tip on) while the modules load.
  const chainRead = repo.chain(tip, previousChain.map(({ sha }) => sha));
  // Loaded here, not at the top: the no-op path (the tip already published) needs none of them.
  const [{ CatalogModel }, { Composer }, { ObjectStore }, { publishRelease }, { createProgress }, { composeDiff }, { tipExamples }, { readRecentChanges }, { loadSite }] = await Promise.all([
    import('./model.ts'),
    import('./composer.ts'),
    import('./objects.ts'),
    import('./publish.ts'),
    import('./progress.ts'),
    import('../src/compose/diff.ts'),
    import('./examples.ts'),
    import('./changes.ts'),
    import('./site.ts'),
  ]);
  const chain = await chainRead;
  const store = new ObjectStore(out);
  // Started now, as they wait on the disk and on other threads for most of their time, and the
  // checkpoint read and git's answers below do too: the packs' index (read at the first lookup) and
  // the site's render workers (each loads the compiled site before its first page). A failure
  // shows where the build next uses them.
  void Promise.all([store.hasRoot(tip), loadSite()]).catch(() => {});
  // After a force-push, the newest checkpoint still on main: a few commits back, not the root.
  const checkpoints = new Checkpoints(out, store, chain, options.checkpointSpacings);
  const { model, composer, startedFrom } = await startingPoint(warm, chain, checkpoints, { CatalogModel, Composer });

  const logged = await repo.log(tip, startedFrom);
  const infos = await repo.commitInfos(logged);
  const known = new Map<string, CommitInfo>(previousChain.map((info) => [info.sha, info]));
  for (const info of infos) known.set(info.sha, info);

  const progress = options.progress === false ? { tick() {}, stop() {} } : createProgress(logged.length, 'pkgcat build');
  const diagnostics: Diagnostic[] = [];
  const backlog = new WriteBacklog(BACKLOG_COMMITS);
  /** The commits this run composed and wrote a state for. */
  const writtenStates: string[] = [];
  /** The commit whose state the composer holds, for diffing the next commit against its parent cheaply. */
  let composedCommit: CommitInfo | null = startedFrom ? model.state().commit : null;
  /** The packages that shipped a version: their history changed. */
  const shipped = new Set<string>();

  for (let index = 0; index < logged.length; index++) {
    const commit = logged[index];
    const info = infos[index];
    const applied = await model.apply(info, commit.changes, (id) => repo.readObject(id));
    await recordShipping(repo, model, commit, applied.shipped);
    for (const { key } of applied.shipped) shipped.add(key);
    for (const diagnostic of applied.diagnostics) {
      diagnostics.push(diagnostic);
      log(`diagnostic ${diagnostic.level}: commit ${diagnostic.commit.slice(0, 12)} ${diagnostic.path}: ${diagnostic.message}`, diagnostic);
    }
    const state = model.state();
    composer.note(state, applied);

    const built = await store.hasRoot(commit.sha);
    // A checkpoint holds the composer's items, so it is taken right after composing that commit
    // (again, for a commit already built: the spaced ones are few). The tip's is saved once it is live.
    const checkpointHere = commit.sha !== tip && checkpoints.spaced(commit.sha) && !checkpoints.has(commit.sha);
    if (!built || checkpointHere) {
      const composedParent = commit.parent !== null && composedCommit?.sha === commit.parent ? composedCommit : null;
      const bodies = await composer.compose(state, store);
      composedCommit = info;
      if (!built) {
        let diff: string | null = null;
        if (commit.parent !== null) {
          if (composedParent) diff = serialize(composer.diffOfLastCompose(composedParent, info));
          else {
            await backlog.drain();
            const parentListing = await readListing(out, commit.parent);
            if (!parentListing) throw new Error(`commit ${commit.parent}, the parent of ${commit.sha}, was never built; remove ${checkpointDirectory(out)} and build again`);
            diff = serialize(composeDiff(parentListing, composer.diffSide(info)));
          }
        }
        // The diff endpoint's body, served whole: an object like the others, named by the state root.
        const parentDiff = diff === null ? null : await store.put(diff, { served: true });
        const root = serialize({ layout: LAYOUT_VERSION, commit: info, parent: commit.parent, parentDiff, ...bodies, diagnostics: applied.diagnostics } satisfies StateRootFile);
        // The state root names this commit's objects: putRoot stores it once they are in the packs.
        await backlog.add(store.putRoot(commit.sha, root));
        writtenStates.push(commit.sha);
      }
      if (checkpointHere) {
        // A checkpoint says every commit up to it is built.
        await backlog.drain();
        await checkpoints.save({ layout: LAYOUT_VERSION, sha: commit.sha, model: model.snapshot(), composer: composer.snapshot() });
      }
    }
    progress.tick();
    options.onProgress?.({ phase: 'composing', done: index + 1, total: logged.length });
  }
  progress.stop();
  options.onProgress?.({ phase: 'publishing' });

  // Bring the composer up to the tip even if every commit was already built (e.g. a resumed,
  // interrupted publish): the public files are rendered from its items.
  if (composedCommit?.sha !== tip) await composer.compose(model.state(), store);
  await backlog.drain();
  await store.settled();

  const tipState = model.state();

  const chainInfos: CommitInfo[] = [];
  for (const sha of chain) {
    const info = known.get(sha) ?? (await readStateRoot(out, sha))?.commit;
    if (!info) throw new Error(`commit ${sha} is on main but was never built; remove ${checkpointDirectory(out)} and build again`);
    chainInfos.push(info);
  }
  const names = new Map([...tipState.packages].map(([key, pkg]) => [key, pkg.manifest.name]));
  const published = await publishRelease(out, store, {
    tip: tipState.commit,
    chain: chainInfos,
    records: composer.recordTexts,
    writtenStates,
    names,
    diagnostics: model.diagnostics,
    siteUrl: siteUrlOf(options),
    examples: await tipExamples(out, tipState, composer, chainInfos),
    transitive: composer.rollups,
    history: tipState.history,
    recentChanges: await readRecentChanges(out, chainInfos),
    log,
    listing: composer.listingText((await readStateRoot(out, tip))!.listing),
  }, { onLive: options.onLive, held: warm && heldWithChanges(warm.release, composer, shipped), hold: keeps });
  // The release now held is the composer's state: what the next build's commits set is noted from here.
  if (keeps) composer.noteChanges();
  // After publishing, so the new commit goes live without waiting for it (a build killed before
  // it starts from an older checkpoint, whose later commits are built: nothing is lost). A builder
  // that stays up holds this very state for its next build: it saves it only at a spaced depth, so
  // that a restart reads at most a spacing's commits again (checkpoints.ts).
  if (!keeps || checkpoints.spaced(tip)) await checkpoints.save({ layout: LAYOUT_VERSION, sha: tip, model: model.snapshot(), composer: composer.snapshot() });
  await checkpoints.prune();
  // Last: merging the small packs may rewrite hundreds of MB, and the new commit is live already.
  await store.close({ keepIndex: keeps });
  const result = { tip, commits: chain.length, composed: writtenStates.length, applied: logged.length, resumedFrom: startedFrom, releaseId: published.id, diagnostics, published: published.counts };
  return { result, warm: published.held && { out, sha: tip, model, composer, release: published.held } };
}

/**
 * The release a warm builder held, with the packages whose own items its commits have set since
 * (the composer notes its records, cards and rollups from the moment it was published; `shipped`:
 * the histories): the next release hashes only their inputs of those kinds (build/inputs.ts).
 */
function heldWithChanges(held: HeldRelease, composer: Composer, shipped: ReadonlySet<string>): HeldRelease {
  const changed = composer.changedPackages();
  if (!changed) return held;
  for (const key of shipped) changed.add(key);
  return { ...held, inputs: { ...held.inputs, changedPackages: changed } };
}

/** Commits whose files may still be being written while the next ones compose. */
const BACKLOG_COMMITS = 8;

/**
 * The writes of the last few commits, running while the next ones compose (the thread pool
 * writes while the main thread composes). A failed write fails the build at the next add or drain.
 */
class WriteBacklog {
  readonly #limit: number;
  #queue: Promise<void>[] = [];
  #failure: { error: unknown } | null = null;

  constructor(limit: number) {
    this.#limit = limit;
  }

  async add(write: Promise<void>): Promise<void> {
    this.#queue.push(write.catch((error: unknown) => void (this.#failure ??= { error })));
    if (this.#queue.length > this.#limit) await this.#queue.shift();
    if (this.#failure) throw this.#failure.error;
  }

  async drain(): Promise<void> {
    await Promise.all(this.#queue.splice(0));
    if (this.#failure) throw this.#failure.error;
  }
}

/** Each shipping event with the diff stats of its package's folder since its previous version. */
async function recordShipping(
  repo: CatalogRepo,
  model: CatalogModel,
  commit: LoggedCommit,
  shipped: { key: string; dir: string }[],
): Promise<void> {
  // All asked at once: a commit that ships thousands (a catalog's first) lists their folders once.
  const stats = await repo.diffStats(commit.sha, shipped.map(({ key, dir }) => ({ dir, from: model.lastShipped(key) })));
  const state = model.state();
  shipped.forEach(({ key }, index) => {
    const { manifest } = state.packages.get(key)!;
    model.recordShipping(key, {
      version: manifest.version,
      sha: commit.sha,
      pushedAt: state.commit.pushedAt,
      ...stats[index],
      dependencies: manifest.dependencies,
    });
  });
}
