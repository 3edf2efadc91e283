/**
 * The examples of the OpenAPI document (src/compose/openapi.ts): bodies of the catalog's tip,
 * composed by the same functions as the bodies served, about one package chosen for having the
 * most to show. Long lists are cut to their first few items (the document says so), so that the
 * document stays small whatever the catalog's size; a cut body still matches its schema.
 *
 * Pure: a function of the state and its analysis.
 */
import { compareNames, isReservedName } from '../grammar.ts';
import { CONTENT_TYPE, mediaTypeOf } from '../http/content-types.ts';
import { fillTemplate, surface, type SurfaceId } from '../surfaces/registry.ts';
import { resolveQuery } from '../surfaces/query.ts';
import type { Diff, PackageRecord } from '../schemas/wire.ts';
import { advisoryMap, transitiveAdvisories } from './advisories.ts';
import type { CatalogAnalysis } from './analysis.ts';
import { allCategories, fullBundle, listingBundle } from './bundles.ts';
import { closureExceeds, packageClosure, type PackageClosure } from './closure.ts';
import { composeRecentCommits } from './commits.ts';
import type { ApiExamples } from './openapi.ts';
import { composeCard, composeDeps, composeEnvelope, composeRecord, composeVersions } from './package.ts';
import { composeSbom } from './sbom/index.ts';
import { badgeOptions, composeBadge } from './badge.ts';
import type { CatalogState, CommitInfo } from './types.ts';

/** How many items an example keeps of a list that grows with the catalog or its history. */
export const EXAMPLE_ITEMS = 3;

/**
 * The most packages an SBOM example's closure holds. An SBOM lists its whole closure (a cut one
 * would misstate it), so the SBOM examples are of the example package when its closure is this
 * small, else of the package of its closure with the largest closure that is (the first,
 * breadth-first, among equals).
 */
export const SBOM_EXAMPLE_CLOSURE = 20;

/** The name the examples use when the tip has no package to show. */
const PLACEHOLDER_NAME = 'example';

/**
 * The package the examples are about: the one with the most to show (an active advisory of its
 * own, a direct dependency carrying one, dependencies of both kinds, a scorecard), the first by
 * name among equals. A name shadowed by a fixed route has no record of its own: never it.
 */
export function examplePackage(state: CatalogState, analysis: CatalogAnalysis): string | null {
  let best: { key: string; name: string; score: number } | null = null;
  for (const [key, { manifest, scorecard }] of state.packages) {
    if (isReservedName(manifest.name)) continue;
    const score =
      (analysis.activeIds.has(key) ? 8 : 0) +
      ((analysis.edges.get(key) ?? []).some((dependency) => analysis.activeIds.has(dependency)) ? 4 : 0) +
      (manifest.dependencies.build.length > 0 && manifest.dependencies.runtime.length > 0 ? 2 : 0) +
      (scorecard ? 1 : 0);
    if (!best || score > best.score || (score === best.score && compareNames(manifest.name, best.name) < 0)) best = { key, name: manifest.name, score };
  }
  return best?.key ?? null;
}

const first = <T>(items: readonly T[]) => items.slice(0, EXAMPLE_ITEMS);

/** `diff` with each of its lists cut. */
function abridgedDiff(diff: Diff): Diff {
  return {
    ...diff,
    added: first(diff.added),
    removed: first(diff.removed),
    versionChanges: first(diff.versionChanges),
    advisoryChanges: first(diff.advisoryChanges),
  };
}

/** The closure the SBOM examples describe (SBOM_EXAMPLE_CLOSURE). */
async function sbomExampleClosure(lookup: (key: string) => PackageRecord | null, key: string): Promise<PackageClosure> {
  const closure = (await packageClosure(lookup, key))!;
  if (closure.packages.size <= SBOM_EXAMPLE_CLOSURE) return closure;
  let best: PackageClosure | null = null;
  for (const candidate of closure.packages.keys()) {
    // Walking each candidate's whole closure would cost the square of a cycle's length.
    if (closureExceeds(lookup, candidate, SBOM_EXAMPLE_CLOSURE)) continue;
    const smaller = await packageClosure(lookup, candidate);
    if (smaller && smaller.packages.size <= SBOM_EXAMPLE_CLOSURE && smaller.packages.size > (best?.packages.size ?? -1)) best = smaller;
  }
  return best ?? closure;
}

/**
 * The examples at `state` (the tip). `chain` is main's first-parent chain, newest first;
 * `tipDiff` the tip's diff against `base` (its parent, or itself on a one-commit catalog).
 *
 * A route that becomes served adds its bodies here (one per media type):
 * tests/contract/openapi-document.test.ts reports the responses of a served route without one.
 */
export async function composeApiExamples(
  state: CatalogState,
  analysis: CatalogAnalysis,
  chain: readonly CommitInfo[],
  tipDiff: Diff,
): Promise<ApiExamples> {
  const { commit } = state;
  const json = (id: SurfaceId, value: unknown) => [id, { [mediaTypeOf(surface(id).contentType)]: value }] as const;
  const bodies = [json('recent-commits', composeRecentCommits(chain, EXAMPLE_ITEMS)), json('diff', abridgedDiff(tipDiff))];
  const key = examplePackage(state, analysis);
  if (key === null) {
    bodies.push(json('listing-bundle', listingBundle(commit, [], allCategories(state))), json('full-bundle', fullBundle(commit, [], {}, [])));
  } else {
    const record = composeRecord(state, analysis, key);
    const transitive = first(transitiveAdvisories(state, analysis, key));
    const ids = new Set([...record.advisories.map((advisory) => advisory.id), ...transitive.map((entry) => entry.advisoryId)]);
    const advisories = Object.fromEntries(Object.entries(advisoryMap(state, analysis)).filter(([id]) => ids.has(id)));
    const versions = composeVersions(state, key, record.name);
    bodies.push(
      json('package', composeEnvelope(commit, record)),
      json('listing-bundle', listingBundle(commit, [composeCard(state, analysis, key)], allCategories(state))),
      json('full-bundle', fullBundle(commit, [record], advisories, transitive)),
      json('pinned-deps', composeDeps(state, analysis, key)),
      json('pinned-versions', { ...versions, versions: first(versions.versions) }),
    );
    // The floating SBOM is the pinned one of the tip: one example for both (the document shares it).
    const records = new Map<string, PackageRecord | null>();
    const lookup = (name: string) => {
      if (!records.has(name)) records.set(name, state.packages.has(name) ? composeRecord(state, analysis, name) : null);
      return records.get(name)!;
    };
    const closure = await sbomExampleClosure(lookup, key);
    const sboms = Object.fromEntries(
      (['cyclonedx', 'spdx'] as const).map((format) => [mediaTypeOf(CONTENT_TYPE[format]), composeSbom(format, commit, closure)]),
    );
    bodies.push(['pinned-sbom', sboms], ['package-sbom', sboms]);
    // The badge in its defaults: the file the build writes for the package.
    const badge = surface('package-badge');
    bodies.push(['package-badge', { [mediaTypeOf(badge.contentType)]: composeBadge(record, badgeOptions(resolveQuery(badge, {}))) }]);
  }
  return {
    name: key === null ? PLACEHOLDER_NAME : state.packages.get(key)!.manifest.name,
    sha: commit.sha,
    base: tipDiff.base,
    bodies: Object.fromEntries(bodies),
  };
}
