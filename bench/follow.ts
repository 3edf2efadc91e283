/**
 * The follow benchmark: `pkgcat serve --repo` as an operator runs it, on a corpus, timed from the
 * outside over HTTP.
 *
 *   npm run bench -- follow --corpus-dir <dir>                       vcpkg-5000 (the recorded figures)
 *   npm run bench -- follow --corpus vcpkg-300 --corpus-dir <dir>    the small corpus
 *   npm run bench -- follow --synthetic --packages 20000 --commits 200   a synthetic catalog
 *   ... --built <out>                                                reuse an output built from the same corpus
 *
 * 1. restart: from spawning `serve` on a built output until it answers a package record (200), and
 *    until its /healthz says the build it started has finished (nothing to do);
 * 2. rewind: main goes back 5 commits; from the ref update until each dropped sha answers 404
 *    (the anonymous answer of a sha-pinned route: sha resolution comes before the session gate);
 * 3. restore: main goes forward to the old tip again (the commits are back, with their states);
 * 4. rewrite: main's last 5 commits are replaced by 5 others (the same trees, other messages); from
 *    the ref update until the 5 old ones answer 404 and /healthz shows the new tip;
 * 5. new commits: a leaf package's version bumped, twice, then the package the most others reach;
 *    from the commit until /healthz shows it as the tip (the release, every surface, is live).
 *
 * Each time includes what an operator waits for: the follower noticing main (file events on the git
 * directory), the build process's start-up when it has none (it stays between builds once one
 * succeeded), its build from the state it kept or the newest checkpoint still on main, the publish
 * and its checks. The build's own line (`built N new of M commits in S s`) is kept too.
 */
import { join } from 'node:path';
import { startServeProcess, type ServeProcess } from './helpers/serve-process.ts';
import { checkChild, git, machine, projectRevision, runChild, secs, table, writeResults } from './lib.ts';
import { appendBump, changedPackages, readPackages, SYNTHETIC_FLAGS, syntheticShape } from './build.ts';
import { makeSyntheticCatalog } from './synthetic.ts';
import type { Suite } from './suite.ts';

const CORPORA = ['vcpkg-300', 'vcpkg-5000', 'vcpkg-16193'];
const DEPTH = 5;
const LOOK_MS = 20;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Step {
  name: string;
  what: string;
  seconds: number;
  /** The build's own line for this step, when it printed one. */
  buildLine: string | null;
}

/**
 * How long a step may take. An hour: at 100,000 packages the build of one commit takes minutes,
 * and a limit of a minute stopped the benchmark after the full build it had waited 90 minutes for.
 */
const STEP_LIMIT_SECONDS = 3600;

/** Milliseconds from now until `done()` holds, looking every LOOK_MS. */
async function until(done: () => Promise<boolean>, limitSeconds = STEP_LIMIT_SECONDS): Promise<number> {
  const started = performance.now();
  while (!(await done())) {
    if (performance.now() - started > limitSeconds * 1000) throw new Error(`not reached within ${limitSeconds} s`);
    await sleep(LOOK_MS);
  }
  return performance.now() - started;
}

async function status(url: string): Promise<number> {
  return (await fetch(url, { headers: { 'accept-encoding': 'identity' } })).status;
}

async function health(base: string): Promise<{ tip: string | null; running: boolean }> {
  const body = (await (await fetch(`${base}/healthz`)).json()) as { tip: { sha: string } | null; build: { running: boolean } | null };
  return { tip: body.tip?.sha ?? null, running: body.build?.running ?? false };
}

/** The build lines the serve log gained since `from`. */
const buildLineSince = (serve: ServeProcess, from: number): string | null =>
  serve.log().slice(from).match(/^pkgcat: (built .*|.* is already built and published .*)$/m)?.[1] ?? null;

export const suite: Suite = {
  name: 'follow',
  description: 'serve --repo following main: restart, and a force-push (rewind of 5, rewrite of the last 5) until the dropped shas answer 404',
  options: {
    corpus: { type: 'string' },
    built: { type: 'string' },
    ...SYNTHETIC_FLAGS,
  },
  usage: [
    `--corpus ${CORPORA.join('|')}   the corpus (default vcpkg-5000)`,
    '--synthetic --packages N --commits N   a synthetic catalog instead (bench/synthetic.ts, as the build suite makes it)',
    '--built <out>                  an output already built from that corpus: skips the full build',
  ],
  async run(context) {
    const { values, work, log } = context;
    const synthetic = values.synthetic === true && values.corpus === undefined ? syntheticShape(values) : null;
    const corpus = synthetic?.label ?? (typeof values.corpus === 'string' ? values.corpus : 'vcpkg-5000');
    if (!synthetic && !CORPORA.includes(corpus)) throw new Error(`--corpus must be one of ${CORPORA.join(', ')}, not ${corpus}`);
    const repo = join(work, 'catalog');
    if (synthetic) await makeSyntheticCatalog(repo, synthetic.options);
    else git(work, ['clone', '-q', context.corpusFile(`${corpus}.bundle`), repo]);
    const pkgcat = join(context.root, 'bin/pkgcat.js');
    const out = typeof values.built === 'string' ? values.built : join(work, 'out');
    if (typeof values.built !== 'string') {
      log(`follow: building ${corpus} (once, to start from a published output)`);
      checkChild('pkgcat build', await runChild(process.execPath, [pkgcat, 'build', '--repo', repo, '--out', out, '--quiet'], { cwd: context.root }));
    }
    const tip = git(repo, ['rev-parse', 'main']).trim();
    const packages = readPackages(repo);
    const { leaf, popular } = changedPackages(packages);
    const dropped = git(repo, ['rev-list', `main~${DEPTH}..main`]).trim().split('\n');
    const base = git(repo, ['rev-parse', `main~${DEPTH}`]).trim();
    const steps: Step[] = [];

    // 1. restart on a built output.
    const spawned = performance.now();
    // The site URL `pkgcat build` wrote by default: a restart on the built output has nothing to publish.
    const serve = await startServeProcess(['--out', out, '--repo', repo, '--poll-seconds', '2', '--site-url', 'http://127.0.0.1:8080']);
    try {
      const record = `${serve.url}/api/pkgs/${packages.get(leaf)!.name}.json`;
      await until(async () => (await status(record)) === 200);
      steps.push({ name: 'restart', what: 'spawn until a package record answers 200', seconds: (performance.now() - spawned) / 1000, buildLine: null });
      await until(async () => !(await health(serve.url)).running && (await health(serve.url)).tip === tip);
      steps.push({ name: 'restart, build', what: 'spawn until /healthz says the build of the tip is done', seconds: (performance.now() - spawned) / 1000, buildLine: buildLineSince(serve, 0) });

      const pinned = (sha: string) => `${serve.url}/api/pkgs/bundle/${sha}.json`;
      const measure = async (name: string, what: string, moveMain: () => unknown, done: () => Promise<boolean>) => {
        const from = serve.log().length;
        const started = performance.now();
        await moveMain();
        await until(done);
        const seconds = (performance.now() - started) / 1000;
        // The build's line comes as it exits, a moment after it published.
        await until(async () => buildLineSince(serve, from) !== null && !(await health(serve.url)).running);
        steps.push({ name, what, seconds, buildLine: buildLineSince(serve, from) });
        log(`follow: ${name}: ${secs(seconds)} (${buildLineSince(serve, from)})`);
      };
      const allDropped = async (shas: string[]) => (await Promise.all(shas.map((sha) => status(pinned(sha))))).every((code) => code === 404);

      // 2. rewind by 5.
      await measure('rewind', `main back ${DEPTH} commits, until the ${DEPTH} dropped shas answer 404`, () => git(repo, ['update-ref', 'refs/heads/main', base]), () => allDropped(dropped));
      // 3. forward again.
      await measure('restore', `main forward ${DEPTH} commits again, until the old tip answers (401: known, signed-in only)`, () => git(repo, ['update-ref', 'refs/heads/main', tip]), async () => (await status(pinned(tip))) === 401);
      // 4. rewrite the last 5: the same trees, other messages (so other shas), on the same base.
      let parent = base;
      for (const sha of [...dropped].reverse()) {
        const tree = git(repo, ['rev-parse', `${sha}^{tree}`]).trim();
        const message = `${git(repo, ['log', '-1', '--format=%B', sha]).trim()}\n\n(rewritten)`;
        parent = git(repo, ['commit-tree', tree, '-p', parent, '-m', message]).trim();
      }
      const rewritten = parent;
      await measure('rewrite', `main's last ${DEPTH} commits replaced by ${DEPTH} others, until the old ones answer 404 and /healthz shows the new tip`, () => git(repo, ['update-ref', 'refs/heads/main', rewritten]), async () => (await allDropped(dropped)) && (await health(serve.url)).tip === rewritten);
      // 5. new commits as they land: a leaf package's version bumped (twice: the build process stays
      // between builds), then the package the most others reach. The release goes live whole: every
      // surface answers for the new tip once /healthz shows it.
      for (const [step, key] of [['leaf', leaf], ['leaf again', leaf], ['popular', popular]] as const) {
        const name = packages.get(key)!.name;
        let landed = '';
        const land = async () => {
          await appendBump(repo, name);
          landed = git(repo, ['rev-parse', 'main']).trim();
        };
        await measure(`new commit: ${step}`, `a commit bumping ${name} lands, until /healthz shows it as the tip (every surface live)`, land, async () => (await health(serve.url)).tip === landed);
      }
    } finally {
      await serve.stop();
    }

    log(table(['step', 'seconds', 'the build said'], steps.map((step) => [step.name, secs(step.seconds), step.buildLine ?? ''])));
    const file = await writeResults(context.resultsDir, `follow-${corpus}`, {
      corpus,
      depth: DEPTH,
      machine: machine(),
      project: projectRevision(context.root),
      steps,
    });
    log(`follow: results in ${file}`);
  },
};
