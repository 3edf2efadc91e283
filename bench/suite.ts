/**
 * What a benchmark suite is. `bench/run.ts` keeps the registry of suites (one line each), parses
 * the command line with every suite's options, makes the temporary work directory and runs them.
 */
import type { ParseArgsOptionsConfig } from 'node:util';

/** Option values as node:util parseArgs returns them. */
export type OptionValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

export interface SuiteContext {
  /** The project root (the checkout holding package.json). */
  root: string;
  /** A fresh directory of this suite's own under the run's temporary directory. */
  work: string;
  /** Parsed options: the run's and every suite's (a suite reads the ones it declared). */
  values: OptionValues;
  /** Whether the suite was named on the command line (false when `npm run bench` runs them all). */
  selected: boolean;
  /**
   * Resolves a corpus file (`vcpkg-5000.bundle`) in the folder given by `--corpus-dir` or
   * PKGCAT_CORPUS_DIR; throws a one-line error saying what is expected when there is none.
   */
  corpusFile(name: string): string;
  /** Where raw results are written: `bench/results/`. */
  resultsDir: string;
  log(line: string): void;
}

export interface Suite {
  name: string;
  /** One line for `npm run bench -- --help`. */
  description: string;
  /** The suite's own command-line options (node:util parseArgs shape); merged with the others. */
  options: ParseArgsOptionsConfig;
  /** Lines of help describing the options. */
  usage: string[];
  run(context: SuiteContext): Promise<void>;
}
