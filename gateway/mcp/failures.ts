/**
 * Every failure a tool answers with, as a ToolFailure whose message says what was wrong and what
 * to call instead (SPEC.md Errors: "tool result with `isError: true` and an actionable message").
 * The tool-server counterpart of gateway/errors.ts: resolver Failures map here (failureOf) as they
 * map to HTTP errors there (httpErrorOf).
 */
import { closestNames } from '../../src/compose/search.ts';
import { fillTemplate, surface, type SurfaceId } from '../../src/surfaces/registry.ts';
import type { Release } from '../release.ts';
import { resolveSha } from '../sha.ts';
import type { Failure } from '../surface.ts';
import { ToolFailure } from './tool.ts';
import { quoted } from '../../src/quote.ts';

export const noReleaseFailure = () =>
  new ToolFailure('No catalog state is published yet: the first build of the catalog has not finished. Try the same call again in a minute.');

export const noCommitsFailure = () =>
  new ToolFailure('The catalog repository has no commits on main yet, so there is no state to answer from. Try again once a commit has been built.');

/** `name` is not a package at the latest commit: with the closest names there, if any. */
export function unknownPackageFailure(release: Release, name: string): ToolFailure {
  const closest = closestNames(release.names.values(), name);
  const suggestion =
    closest.length > 0
      ? `Closest names: ${closest.join(', ')}. Call the tool again with one of them, or search_packages to find a package by words of its name or description.`
      : 'Call search_packages with a word of its name or description to find the package.';
  return new ToolFailure(`No package named ${quoted(name)} in the catalog at its latest commit (${release.info.tip!.sha.slice(0, 12)}). ${suggestion}`);
}

/** A resolver's Failure (gateway/surface.ts), as the tool answers it. */
export function failureOf(failure: Failure, release: Release): ToolFailure {
  switch (failure.reason) {
    case 'unknown-package':
      return unknownPackageFailure(release, failure.name);
    case 'no-commits':
      return noCommitsFailure();
    case 'unknown-advisory':
      return new ToolFailure(`No advisory ${quoted(failure.id)} is active at the latest commit. get_advisories lists a package's advisories.`);
    case 'unknown-part':
      return new ToolFailure(`No part ${quoted(failure.part)} of llms-full.txt at the latest commit.`);
  }
}

/** `sha` as a full sha on the release's chain; a ToolFailure saying why not (malformed, unknown, ambiguous). */
export function resolveShaArgument(release: Release, sha: string, argument = 'sha'): string {
  const text = sha.trim().toLowerCase();
  const resolved = resolveSha(release.sortedShas, text);
  switch (resolved.kind) {
    case 'exact':
    case 'prefix':
      return resolved.sha;
    case 'ambiguous':
      return fail(`\`${argument}\` ${JSON.stringify(sha)} is a prefix of ${resolved.matches} commits of main: give more of its hex characters.`);
    case 'unknown':
      return fail(`\`${argument}\` ${JSON.stringify(sha)} is no commit of the catalog's main branch. list_catalog_commits lists the newest commits.`);
    case 'malformed':
      return fail(`\`${argument}\` must be 7 to 40 hex characters of a commit of the catalog's main branch; got ${quoted(sha)}.`);
  }
}

function fail(message: string): never {
  throw new ToolFailure(message);
}

/** Where a signed-in HTTP client fetches a pinned body: the registry row's path at the release's site. */
export function pinnedUrl(release: Release, id: SurfaceId, params: Record<string, string>, query = ''): string {
  return `${release.info.siteUrl}${fillTemplate(surface(id).path, params)}${query}`;
}

/** How a program with a session fetches a pinned body (SPEC.md Authentication 2). */
function withSession(release: Release, url: string): string {
  return `Fetch ${url} over HTTP with a signed-in session instead (sign in at ${release.info.siteUrl}/auth/login, then send the session cookie).`;
}

/**
 * Any `sha` argument (SPEC.md "Tool server" rule 3): the tool server cannot present a session, so
 * a pinned state is out of its reach. Always throws; the message gives the HTTP URL of the pinned body.
 */
export function pinnedStateFailure(release: Release, tool: string, url: string): never {
  throw new ToolFailure(
    `${tool} answers only for the latest commit: a given \`sha\` needs a signed-in session, which this tool server cannot present. ` +
      `${withSession(release, url)} Or call ${tool} again without \`sha\` for the latest commit (${release.info.tip!.sha.slice(0, 12)}).`,
  );
}

/** Every diff_catalog call (SPEC.md "Tool server" rule 3). Always throws. */
export function diffFailure(release: Release, url: string): never {
  throw new ToolFailure(
    `diff_catalog cannot answer: a diff is sha-pinned, and needs a signed-in session, which this tool server cannot present. ${withSession(release, url)} ` +
      'Without a session, list_catalog_commits lists what was committed and get_package_versions gives a package\'s versions with the commits that shipped them.',
  );
}
