/** Per-package payloads: the record, its envelope, the listing card, deps and versions. */
import type { RawJson } from '../serialize.ts';
import { SCHEMA_VERSION } from '../schemas/version.ts';
import type { Dependencies, PackageCard, PackageRecord, VersionHistory } from '../schemas/wire.ts';
import { compareNames, nameKey } from '../grammar.ts';
import { packageLinks } from '../surfaces/registry.ts';
import { directAdvisories, highestSeverity, slimAdvisories } from './advisories.ts';
import type { CatalogAnalysis } from './analysis.ts';
import type { CatalogState, CommitInfo, Scorecard } from './types.ts';

/** The scorecard as published, plus its overall score on the badge's 0 to 100 scale (null when unknown). */
export function composeScorecard(scorecard: Scorecard | null) {
  if (!scorecard) return null;
  return { ...scorecard, normalizedScore: scorecard.score < 0 ? null : Math.round(scorecard.score * 10) };
}

/** The composed package record: the `package` of the envelope and an item of the full bundle. */
export function composeRecord(state: CatalogState, analysis: CatalogAnalysis, key: string): PackageRecord {
  const { manifest, scorecard } = state.packages.get(key)!;
  return {
    name: manifest.name,
    version: manifest.version,
    description: manifest.description,
    license: manifest.license,
    homepage: manifest.homepage ?? null,
    repository: manifest.repository ?? null,
    categories: manifest.categories,
    stars: manifest.stars,
    archive: manifest.archive,
    dependencies: manifest.dependencies,
    reverseDependencies: (analysis.dependents.get(key) ?? []).map((dependent) => state.packages.get(dependent)!.manifest.name),
    advisories: directAdvisories(state, analysis, key),
    scorecard: composeScorecard(scorecard),
    links: packageLinks(manifest.name),
  };
}

export type { PackageCard, PackageRecord };

/** `/api/pkgs/{name}.json`: the record at one commit. */
export function composeEnvelope(commit: CommitInfo, record: PackageRecord | RawJson) {
  return { schemaVersion: SCHEMA_VERSION, commitSha: commit.sha, pushedAt: commit.pushedAt, package: record };
}

/** The card of the listing bundle (and the search tool's listing tier). */
export function composeCard(state: CatalogState, analysis: CatalogAnalysis, key: string): PackageCard {
  const { manifest } = state.packages.get(key)!;
  const advisories = slimAdvisories(state, analysis, key);
  return {
    name: manifest.name,
    version: manifest.version,
    description: manifest.description,
    license: manifest.license,
    categories: manifest.categories,
    stars: manifest.stars,
    advisories,
    maxSeverity: highestSeverity(advisories),
  };
}

/** `.../{name}/deps.json`: direct dependencies enriched as of the commit (no sha inside: the URL pins it). */
export function composeDeps(state: CatalogState, analysis: CatalogAnalysis, key: string): Dependencies {
  const { manifest } = state.packages.get(key)!;
  const scopes = new Map<string, { name: string; scopes: ('build' | 'runtime')[] }>();
  for (const scope of ['build', 'runtime'] as const) {
    for (const dep of manifest.dependencies[scope]) {
      const entry = scopes.get(nameKey(dep)) ?? { name: dep, scopes: [] };
      if (!entry.scopes.includes(scope)) entry.scopes.push(scope);
      scopes.set(nameKey(dep), entry);
    }
  }
  const dependencies = [...scopes.entries()]
    .map(([depKey, { name, scopes: depScopes }]) => {
      const dep = state.packages.get(depKey);
      if (!dep) return { name, scopes: depScopes, missing: true, version: null, license: null, advisories: [], maxSeverity: null };
      const advisories = slimAdvisories(state, analysis, depKey);
      return {
        name: dep.manifest.name,
        scopes: depScopes,
        missing: false,
        version: dep.manifest.version,
        license: dep.manifest.license,
        advisories,
        maxSeverity: highestSeverity(advisories),
      };
    })
    .sort((a, b) => compareNames(a.name, b.name));
  return { schemaVersion: SCHEMA_VERSION, name: manifest.name, dependencies };
}

/** `.../{name}/versions.json`: every version shipped up to the commit, newest first. */
export function composeVersions(state: CatalogState, key: string, name: string): VersionHistory {
  const events = state.history.get(key) ?? [];
  return {
    schemaVersion: SCHEMA_VERSION,
    name,
    versions: [...events].reverse().map((event) => ({
      version: event.version,
      sha: event.sha,
      pushedAt: event.pushedAt,
      filesChanged: event.filesChanged,
      linesAdded: event.linesAdded,
      linesRemoved: event.linesRemoved,
      dependencies: event.dependencies,
    })),
  };
}
