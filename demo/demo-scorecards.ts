/**
 * OpenSSF Scorecard results for the demo catalog, in the shape `scorecard --format=json` prints.
 *
 * ILLUSTRATIVE DEMO DATA. These are not results of running Scorecard against the real projects:
 * the check scores are invented to give the demo a spread of values. Every file says so:
 * `scorecard.version` is "demo", `scorecard.commit` and `repo.commit` are deterministic
 * stand-ins (sha1 of a label), and the overall `score` is the plain mean of the checks that have
 * a score (real Scorecard weights checks by risk).
 */
import { createHash } from 'node:crypto';

/** The checks Scorecard runs, with a one-line summary of each in our own words. */
export const SCORECARD_CHECKS: readonly { name: string; short: string }[] = [
  { name: 'Binary-Artifacts', short: 'Looks for compiled binaries committed to the source repository.' },
  { name: 'Branch-Protection', short: 'Checks whether the default and release branches are protected against force pushes and unreviewed changes.' },
  { name: 'CI-Tests', short: 'Checks whether changes run through automated tests before they are merged.' },
  { name: 'CII-Best-Practices', short: 'Checks whether the project holds an OpenSSF Best Practices badge.' },
  { name: 'Code-Review', short: 'Checks whether changes are reviewed by someone other than their author before merging.' },
  { name: 'Contributors', short: 'Checks whether recent contributors come from several organizations.' },
  { name: 'Dangerous-Workflow', short: 'Looks for CI workflow patterns that let untrusted input run with privileges.' },
  { name: 'Dependency-Update-Tool', short: 'Checks whether an automated dependency update tool is configured.' },
  { name: 'Fuzzing', short: 'Checks whether the project is fuzzed, for example by OSS-Fuzz.' },
  { name: 'License', short: 'Checks whether the repository declares a license.' },
  { name: 'Maintained', short: 'Checks for commit and issue activity in the last 90 days.' },
  { name: 'Packaging', short: 'Checks whether the project publishes packages through a release workflow.' },
  { name: 'Pinned-Dependencies', short: 'Checks whether build and CI dependencies are pinned to exact versions or hashes.' },
  { name: 'SAST', short: 'Checks whether static analysis runs on changes.' },
  { name: 'Security-Policy', short: 'Checks whether the project explains how to report vulnerabilities.' },
  { name: 'Signed-Releases', short: 'Checks whether release artifacts are signed or carry provenance.' },
  { name: 'Token-Permissions', short: 'Checks whether CI tokens are limited to the permissions they need.' },
  { name: 'Vulnerabilities', short: 'Checks for open, unfixed vulnerabilities in the project or its dependencies.' },
];

/** Scores per check, in SCORECARD_CHECKS order; -1 means the check could not run. */
export type CheckScores = readonly number[];

function standIn(label: string): string {
  return createHash('sha1').update(`pkgcat-demo:${label}`).digest('hex');
}

function reasonFor(check: string, score: number): string {
  if (score < 0) return 'internal error: demo data, the check did not run';
  if (score === 10) return `demo data: no problems found for ${check}`;
  if (score === 0) return `demo data: ${check} not satisfied`;
  return `demo data: ${check} partially satisfied -- score normalized to ${score}`;
}

function mean(scores: CheckScores): number {
  const known = scores.filter((score) => score >= 0);
  if (known.length === 0) return -1;
  return Math.round((known.reduce((sum, score) => sum + score, 0) / known.length) * 10) / 10;
}

/**
 * One scorecard.json document. `repo` is the repository as Scorecard names it
 * (`github.com/owner/name`); `overall` overrides the computed mean (e.g. -1 for "unknown").
 */
export function demoScorecard(repo: string, date: string, scores: CheckScores, overall?: number): Record<string, unknown> {
  if (scores.length !== SCORECARD_CHECKS.length) {
    throw new Error(`scorecard for ${repo}: expected ${SCORECARD_CHECKS.length} check scores, got ${scores.length}`);
  }
  return {
    date,
    repo: { name: repo, commit: standIn(`${repo}@${date}`) },
    scorecard: { version: 'demo', commit: standIn('scorecard') },
    score: overall ?? mean(scores),
    checks: SCORECARD_CHECKS.map((check, index) => {
      const score = scores[index]!;
      return {
        name: check.name,
        score,
        reason: reasonFor(check.name, score),
        details: score >= 0 && score < 10 ? [`Info: illustrative demo data for ${repo}, not a real Scorecard finding`] : null,
        documentation: {
          short: check.short,
          url: `https://github.com/ossf/scorecard/blob/main/docs/checks.md#${check.name.toLowerCase()}`,
        },
      };
    }),
  };
}

//                                 Bin Bra CI  CII Rev Con Dan Dep Fuz Lic Mai Pac Pin SAS Sec Sig Tok Vul
export const SCORES = {
  curl:              [10, 8, 10, 10, 9, 10, 10, 10, 10, 10, 10, -1, 6, 10, 10, 8, 9, 10],
  openssl:           [10, 7, 10, 10, 9, 10, 10, 0, 10, 10, 10, -1, 4, 0, 10, 8, 3, 10],
  zlibFirst:         [10, 0, 7, 10, 0, 8, 10, 0, 10, 10, 8, -1, 0, 0, 10, 0, 0, 10],
  zlibRescored:      [10, 3, 9, 10, 2, 8, 10, 10, 10, 10, 10, -1, 3, 0, 10, 0, 4, 10],
  libpng:            [10, 0, 5, 0, 3, 9, 10, 0, 10, 10, 6, -1, 0, 0, 10, 0, 0, 10],
  sqlite:            [10, 0, 0, 0, 0, 3, 10, 0, 10, 10, 10, -1, 0, 0, 0, 0, 10, 10],
  'llama.cpp':       [8, 6, 10, 0, 8, 10, 10, 0, 0, 10, 10, 10, 3, 0, 10, 0, 0, 10],
  grpc:              [9, 9, 10, 0, 10, 10, 10, 10, 10, 10, 10, -1, 5, 0, 10, 0, 5, 6],
  protobuf:          [10, 8, 10, 0, 10, 10, 10, 10, 10, 10, 10, 10, 7, 0, 10, 0, 9, 7],
  onnxruntime:       [7, 8, 10, 0, 10, 10, 10, 10, 0, 10, 10, 10, 6, 10, 10, 0, 0, 9],
  lmdbUnknown:       [-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1],
} as const satisfies Record<string, CheckScores>;
