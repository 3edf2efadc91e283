/**
 * What the tools read, through the same resolvers and catalog reads as the HTTP surfaces
 * (gateway/answers/, gateway/catalog.ts), so a tool answers with the same stored bodies.
 */
import { isPackageName, nameKey } from '../../src/grammar.ts';
import type { CommitInfo } from '../../src/compose/types.ts';
import type { StateRoot } from '../../src/store/layout.ts';
import type { Release } from '../release.ts';
import type { Answer, Failure, Resolver } from '../surface.ts';
import { failureOf, noCommitsFailure, noReleaseFailure, pinnedStateFailure, resolveShaArgument, unknownPackageFailure } from './failures.ts';
import { ToolFailure, type ToolContext } from './tool.ts';
import { quoted } from '../../src/quote.ts';

/** The latest state, as one call reads it. */
export interface Latest {
  readonly release: Release;
  readonly tip: CommitInfo;
  readonly root: StateRoot;
}

/** The release's tip and its state root; a ToolFailure when nothing is published or main has no commits. */
export async function latest(context: ToolContext): Promise<Latest> {
  const release = await context.release();
  if (!release) throw noReleaseFailure();
  const tip = release.info.tip;
  if (!tip) throw noCommitsFailure();
  const root = await context.catalog.stateRoot(tip.sha);
  // The release lists only built commits: a missing root is a broken output directory, not the caller's mistake.
  if (!root) throw new Error(`the release's tip ${tip.sha} has no state root in the packs`);
  return { release, tip, root };
}

/** The canonical spelling of `name` among the packages at the tip; a ToolFailure with the closest names otherwise. */
export function packageAtTip(release: Release, name: string): string {
  const canonical = isPackageName(name) ? release.names.get(nameKey(name)) : undefined;
  if (canonical === undefined) throw unknownPackageFailure(release, name);
  return canonical;
}

/** The bytes of a resolver's body answer. */
export async function answerBytes(context: ToolContext, answer: Answer): Promise<Buffer> {
  switch (answer.kind) {
    case 'bytes':
      return answer.bytes;
    case 'assembled':
      // Bounded and shared with the HTTP routes: a copy kept for plain clients is used, none is made.
      return answer.assemble();
    case 'object': {
      const bytes = await context.catalog.storedObject(answer.hash);
      if (!bytes) throw new Error(`object ${answer.hash} is missing from the object store`);
      return bytes;
    }
    case 'redirect':
      throw new Error(`a tool read a redirect to ${answer.location}`);
  }
}

/**
 * Runs the resolver of a sha-pinned row per package (deps.json, versions.json, ...) at the latest
 * commit, as the HTTP route would after its parameters and gate: the body's bytes, or a ToolFailure.
 */
export async function pinnedAtTip(context: ToolContext, state: Latest, resolve: Resolver, name: string, query: Record<string, string> = {}): Promise<Buffer> {
  if (!isPackageName(name)) throw unknownPackageFailure(state.release, name);
  const result: Answer | Failure = await resolve({
    catalog: context.catalog,
    release: async () => state.release,
    params: { sha: state.tip.sha, name },
    packageKey: nameKey(name),
    query,
  });
  if (result.kind === 'failure') throw failureOf(result, state.release);
  return answerBytes(context, result);
}

/**
 * A `sha` argument of a per-package tool (SPEC.md "Tool server" rule 3): always a ToolFailure. The
 * sha is checked first (malformed, unknown, ambiguous), then that the package has the body there
 * (`member` of its index entry), and only then is the pinned body's URL given.
 */
export async function refuseSha(
  context: ToolContext,
  state: Latest,
  tool: string,
  sha: string,
  name: string,
  pinnedUrl: (sha: string, canonical: string) => string,
  member: 'deps' | 'versions' = 'deps',
): Promise<never> {
  const full = resolveShaArgument(state.release, sha);
  const root = await context.catalog.stateRoot(full);
  const entry = root && isPackageName(name) ? await context.catalog.packageEntry(root, nameKey(name)) : null;
  if (!entry?.[member]) {
    throw new ToolFailure(
      `No package named ${quoted(name)} at commit ${full.slice(0, 12)}. Call ${tool} without \`sha\` for the latest commit, or search_packages to find a package.`,
    );
  }
  return pinnedStateFailure(state.release, tool, pinnedUrl(full, entry.name));
}
