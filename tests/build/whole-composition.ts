/**
 * The incremental composer checked against whole composition, shared by the scenarios that
 * replay a history.
 */
import { expect } from 'vitest';
import { CatalogRepo } from '../../src/catalog/git.ts';
import { CatalogModel } from '../../build/model.ts';
import { analyze, reanalyze, type CatalogAnalysis } from '../../src/compose/analysis.ts';
import { composeFullBundle, composeListingBundle } from '../../src/compose/bundles.ts';
import { composeDiff, type DiffSide } from '../../src/compose/diff.ts';
import { serialize } from '../../src/serialize.ts';
import { pinnedBodies } from '../helpers/catalog.ts';

/**
 * Replays a repository commit by commit and checks every stored bundle against its whole
 * composition, and every stored diff against composeDiff of the two listings.
 */
export async function expectBundlesEqualWholeComposition(repo: string, tip: string, out: string): Promise<void> {
  const catalog = await CatalogRepo.open(repo);
  try {
    const model = new CatalogModel();
    const logged = await catalog.log(tip, null);
    const infos = await catalog.commitInfos(logged);
    let reanalyzed: CatalogAnalysis | null = null;
    let previous: CatalogAnalysis | null = null;
    let previousListing: DiffSide | null = null;
    for (const [index, commit] of logged.entries()) {
      const applied = await model.apply(infos[index], commit.changes, (id) => catalog.readObject(id));
      const state = model.state();
      const analysis = analyze(state);
      // The build analyzes each commit from the one before and what changed: it must equal analyzing the state whole.
      if (reanalyzed) {
        // reanalyze changes the analysis in place and gives back the graph as it was.
        const before = reanalyze(reanalyzed, state, applied);
        for (const key of new Set([...previous!.edges.keys(), ...analysis.edges.keys(), ...previous!.activeIds.keys(), ...analysis.activeIds.keys()])) {
          expect(before.edges.get(key), `edges of ${key} before commit ${index}`).toEqual(previous!.edges.get(key));
          expect(before.activeIds.get(key), `advisories of ${key} before commit ${index}`).toEqual(previous!.activeIds.get(key));
        }
      } else reanalyzed = analyze(state);
      expect(reanalyzed, `analysis of commit ${index}`).toEqual(analysis);
      previous = analysis;
      const bodies = await pinnedBodies(out, commit.sha);
      expect(bodies.get('listing'), `listing of commit ${index}`).toBe(serialize(composeListingBundle(state, analysis)));
      expect(bodies.get('full'), `full bundle of commit ${index}`).toBe(serialize(composeFullBundle(state, analysis)));
      const listing = JSON.parse(bodies.get('listing')!) as DiffSide;
      expect(bodies.get('diff'), `diff of commit ${index} against its parent`).toBe(previousListing ? serialize(composeDiff(previousListing, listing)) : undefined);
      previousListing = listing;
    }
  } finally {
    catalog.close();
  }
}
