/** Advisory payloads: the full object, the slim card form, the bundle map and transitive rollups. */
import { nameKey } from '../grammar.ts';
import { fixedVersions } from './versions.ts';
import { maxSeverity } from './severity.ts';
import { transitiveRollups } from './transitive.ts';
import type { AdvisoryFacts, CatalogAnalysis } from './analysis.ts';
import type { CatalogState, OsvRecord, Severity } from './types.ts';
import type { FullAdvisory, TransitiveAdvisory } from '../schemas/wire.ts';

export interface SlimAdvisory {
  id: string;
  severity: Severity;
  summary: string | null;
}

/** The full advisory object, as seen from one affected package. */
export function composeAdvisory(osv: OsvRecord, facts: AdvisoryFacts, affectedPackage: string): FullAdvisory {
  return {
    id: osv.id,
    summary: osv.summary ?? null,
    details: osv.details ?? null,
    aliases: osv.aliases ?? [],
    published: osv.published ?? null,
    modified: osv.modified,
    severity: facts.severity,
    cvss: facts.cvss,
    affectedPackage,
    fixedIn: fixedVersions(osv, nameKey(affectedPackage)),
    references: osv.references ?? [],
  };
}

export type { FullAdvisory };

/** Full active direct advisories of a package, by id. */
export function directAdvisories(state: CatalogState, analysis: CatalogAnalysis, key: string): FullAdvisory[] {
  const name = state.packages.get(key)!.manifest.name;
  return (analysis.activeIds.get(key) ?? []).map((id) => composeAdvisory(state.advisories.get(id)!, analysis.advisories.get(id)!, name));
}

export function slimAdvisories(state: CatalogState, analysis: CatalogAnalysis, key: string): SlimAdvisory[] {
  return (analysis.activeIds.get(key) ?? []).map((id) => ({
    id,
    severity: analysis.advisories.get(id)!.severity,
    summary: state.advisories.get(id)!.summary ?? null,
  }));
}

/** The highest severity among slim advisories (null when there are none). */
export function highestSeverity(advisories: readonly { severity: Severity }[]): Severity | null {
  return maxSeverity(advisories.map((advisory) => advisory.severity));
}

/**
 * The full bundle's advisory map: every advisory active at this state, once, as seen from the
 * alphabetically first package it is active on (SPEC.md full bundle rule 2, DECISIONS.md 3).
 */
export function advisoryMap(state: CatalogState, analysis: CatalogAnalysis): Record<string, FullAdvisory> {
  const map: Record<string, FullAdvisory> = {};
  for (const id of [...analysis.advisories.keys()].sort()) {
    const facts = analysis.advisories.get(id)!;
    map[id] = composeAdvisory(state.advisories.get(id)!, facts, facts.activeOn[0]);
  }
  return map;
}

export type { TransitiveAdvisory };

/** The advisories one package reaches through its build and runtime dependencies (src/compose/transitive.ts). */
export function transitiveAdvisories(state: CatalogState, analysis: CatalogAnalysis, key: string): TransitiveAdvisory[] {
  const [[, entries]] = transitiveRollups(state, analysis, [key]);
  return entries;
}
