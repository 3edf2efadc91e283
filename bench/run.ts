/**
 * Benchmarks (not part of `npm test`):
 *
 *   npm run bench                      every suite, in registry order
 *   npm run bench -- build [options]   one suite
 *   npm run bench -- --help
 *
 * The vcpkg corpus bundles are not in the repository: `--corpus-dir <dir>` (or PKGCAT_CORPUS_DIR)
 * names the folder that holds them. `--synthetic` needs none.
 *
 * Work happens in a fresh directory under os.tmpdir(), removed at the end unless --keep. Raw
 * results go to bench/results/<suite>-<target>.json (committed as the record); the figures
 * with the machine they ran on are written up in docs/benchmarks.md.
 */
import { existsSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import type { Suite } from './suite.ts';

/** The suites, in the order `npm run bench` runs them. Adding one is one line. */
const SUITES: Record<string, () => Promise<{ suite: Suite }>> = {
  build: () => import('./build.ts'),
  serve: () => import('./serve.ts'),
  reads: () => import('./reads.ts'),
  load: () => import('./load.ts'),
  follow: () => import('./follow.ts'),
  mcp: () => import('./mcp.ts'),
  'mcp-sizes': () => import('./mcp-sizes.ts'),
  packs: () => import('./packs.ts'),
};

const ROOT = resolve(import.meta.dirname, '..');

const GLOBAL_OPTIONS: ParseArgsOptionsConfig = {
  keep: { type: 'boolean' },
  'corpus-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

const CORPUS_SOURCE =
  'the vcpkg corpus bundles (vcpkg-300.bundle, vcpkg-5000.bundle, vcpkg-16193.bundle: git bundles of a catalog derived from the history of microsoft/vcpkg) ' +
  "are distributed with the project's benchmark data, not in this repository; --synthetic needs no corpus";

/**
 * The corpus folder: `--corpus-dir`, else PKGCAT_CORPUS_DIR, else none. A relative path is read
 * from the directory `npm run` was started in (npm itself runs the script in the project root).
 */
function corpusDirectory(option: unknown): string | null {
  const dir = typeof option === 'string' && option !== '' ? option : process.env.PKGCAT_CORPUS_DIR || null;
  return dir === null ? null : resolve(process.env.INIT_CWD ?? process.cwd(), dir);
}

/** Resolves a corpus bundle, or throws one line saying which file is expected and where to get it. */
function corpusFinder(dir: string | null): (name: string) => string {
  return (name) => {
    if (dir === null) {
      throw new Error(`this run needs the corpus file ${name}: pass --corpus-dir <dir> (or set PKGCAT_CORPUS_DIR) to the folder that holds it; ${CORPUS_SOURCE}`);
    }
    const file = join(dir, name);
    if (!existsSync(file)) throw new Error(`this run needs the corpus file ${file}, which is missing: the corpus folder must hold ${name}; ${CORPUS_SOURCE}`);
    return file;
  };
}

async function main(argv: string[]): Promise<number> {
  const suites: Suite[] = [];
  for (const load of Object.values(SUITES)) suites.push((await load()).suite);

  const options: ParseArgsOptionsConfig = { ...GLOBAL_OPTIONS };
  for (const suite of suites) {
    for (const [name, option] of Object.entries(suite.options)) {
      if (options[name] && options[name].type !== option.type) throw new Error(`suites disagree on the type of --${name}`);
      options[name] = option;
    }
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    const lines = ['usage: npm run bench [-- <suite>] [options]', '', 'suites (all run, in this order, when none is named):'];
    for (const suite of suites) lines.push(`  ${suite.name.padEnd(10)} ${suite.description}`, ...suite.usage.map((line) => `      ${line}`));
    lines.push(
      '',
      'options:',
      '  --corpus-dir <dir>  the folder holding the vcpkg corpus bundles (vcpkg-300.bundle, vcpkg-5000.bundle);',
      '                      default: the environment variable PKGCAT_CORPUS_DIR, else none. The bundles are',
      "                      distributed with the project's benchmark data, not in this repository;",
      '                      --synthetic needs no corpus',
      '  --keep              keep the temporary work directory',
      '  -h, --help          this help',
    );
    process.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  }
  if (positionals.length > 1) {
    process.stderr.write(`bench: one suite at a time (got ${positionals.join(', ')})\n`);
    return 2;
  }
  const named = positionals[0];
  const selected = named === undefined ? suites : suites.filter((suite) => suite.name === named);
  if (selected.length === 0) {
    process.stderr.write(`bench: unknown suite "${named}"; suites: ${suites.map((suite) => suite.name).join(', ')}\n`);
    return 2;
  }

  const work = await mkdtemp(join(tmpdir(), 'pkgcat-bench-'));
  const keep = values.keep === true;
  const cleanUp = () => {
    if (keep) process.stderr.write(`bench: kept ${work}\n`);
    else rmSync(work, { recursive: true, force: true });
  };
  const onSignal = (signal: NodeJS.Signals) => {
    cleanUp();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.stdout.write(`bench: working in ${work}${keep ? ' (kept: --keep)' : ' (removed at the end; --keep keeps it)'}\n`);
  process.stdout.write(`bench: node ${process.version}, project ${ROOT}\n`);

  try {
    for (const suite of selected) {
      const suiteWork = join(work, suite.name);
      await mkdir(suiteWork, { recursive: true });
      await suite.run({
        root: ROOT,
        work: suiteWork,
        values,
        selected: named !== undefined,
        corpusFile: corpusFinder(corpusDirectory(values['corpus-dir'])),
        resultsDir: join(ROOT, 'bench', 'results'),
        log: (line) => process.stdout.write(`${line}\n`),
      });
    }
    return 0;
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n`);
    return 1;
  } finally {
    cleanUp();
  }
}

if (Number(process.versions.node.split('.')[0]) < 24) {
  process.stderr.write(`bench: needs Node 24 (the project's devDependency); this is ${process.version}. Run it with npm run bench.\n`);
  process.exitCode = 1;
} else {
  process.exitCode = await main(process.argv.slice(2));
}
