/**
 * The OpenAPI document's examples at the tip (src/compose/api-examples.ts): composed from the
 * tip's state, with the tip's diff against its parent as the build stored it.
 */
import { analyze } from '../src/compose/analysis.ts';
import { composeApiExamples } from '../src/compose/api-examples.ts';
import { composeDiff } from '../src/compose/diff.ts';
import type { ApiExamples } from '../src/compose/openapi.ts';
import type { CatalogState, CommitInfo } from '../src/compose/types.ts';
import type { Diff } from '../src/schemas/wire.ts';
import { readParentDiff, readStateRoot } from '../src/store/layout.ts';
import type { Composer } from './composer.ts';

/** `chain`: main's first-parent chain, newest first, `state` the state of its first commit. */
export async function tipExamples(out: string, state: CatalogState, composer: Composer, chain: readonly CommitInfo[]): Promise<ApiExamples> {
  const parent = chain[1]?.sha;
  // A one-commit catalog has no parent: its example diff is the tip against itself.
  const tipDiff = parent ? await storedDiff(out, state.commit.sha) : composeDiff(composer.diffSide(state.commit), composer.diffSide(state.commit));
  return composeApiExamples(state, composer.currentAnalysis ?? analyze(state), chain, tipDiff);
}

async function storedDiff(out: string, sha: string): Promise<Diff> {
  const root = await readStateRoot(out, sha);
  const bytes = root && (await readParentDiff(out, root));
  if (!bytes) throw new Error(`commit ${sha} has no stored diff against its parent`);
  return JSON.parse(bytes.toString('utf8')) as Diff;
}
