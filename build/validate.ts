/**
 * The build checks its own output before publishing it: a staged release that would answer a
 * request wrongly (a missing state, object or file, a body of the wrong length, an envelope of
 * another commit) stops the build with the list of problems, and `current` is not switched.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { assembleBody, paths, readJson, readStateRoot, type ReleaseInfo } from '../src/store/layout.ts';
import type { CommitInfo } from '../src/compose/types.ts';
import { isReservedName } from '../src/grammar.ts';

export class BuildValidationError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`the built output failed its checks, nothing was published: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? `; and ${problems.length - 5} more` : ''}`);
    this.name = 'BuildValidationError';
    this.problems = problems;
  }
}

export async function validateRelease(out: string, releaseDir: string): Promise<void> {
  const problems: string[] = [];
  const info = await readJson<ReleaseInfo>(paths.releaseInfo(releaseDir));
  const chain = await readJson<CommitInfo[]>(paths.chain(releaseDir));
  const names = await readJson<Record<string, string>>(paths.names(releaseDir));
  await readJson<unknown[]>(paths.diagnostics(releaseDir));

  if (!info.tip || chain[0]?.sha !== info.tip.sha) problems.push('release.json tip is not the newest commit of chain.json');
  if (info.commitCount !== chain.length) problems.push(`release.json counts ${info.commitCount} commits, chain.json has ${chain.length}`);
  for (const { sha } of chain) if (!existsSync(paths.state(out, sha))) problems.push(`commit ${sha} has no state`);

  const tip = info.tip && (await readStateRoot(out, info.tip.sha));
  if (tip) {
    for (const body of [tip.listing, tip.full]) {
      const missing = body.segments.filter((segment) => typeof segment !== 'string' && !existsSync(paths.object(out, segment.object)));
      if (missing.length > 0) problems.push(`a tip bundle refers to ${missing.length} missing objects`);
      else if ((await assembleBody(out, body)).length !== body.length) problems.push('a tip bundle does not have its recorded length');
    }
    for (const chunk of tip.packages) if (!existsSync(paths.object(out, chunk.object))) problems.push(`index chunk ${chunk.object} is missing`);
  }

  const publicDir = paths.public(releaseDir);
  for (const name of Object.values(names).filter((name) => !isReservedName(name))) {
    const file = join(publicDir, paths.publicFile.packageRecord(name));
    try {
      const envelope = JSON.parse(await readFile(file, 'utf8')) as { commitSha?: string; package?: { name?: string } };
      if (envelope.commitSha !== info.tip?.sha || envelope.package?.name !== name) problems.push(`${file} is not ${name} at the tip`);
    } catch {
      problems.push(`${file} is missing or not JSON`);
    }
  }
  const recent = await readJson<CommitInfo[]>(join(publicDir, paths.publicFile.recentCommits())).catch(() => null);
  if (!recent || recent.length !== Math.min(30, chain.length)) problems.push('recent-commits.json is missing or short');

  if (problems.length > 0) throw new BuildValidationError(problems);
}
