/**
 * A page per advisory active at the latest state (`/advisories/{id}`, beyond SPEC.md): the
 * advisory, the packages it affects directly (each with its version and the versions that fix
 * it), and its blast radius: every package that reaches one of them through build and runtime
 * dependencies, with the path. The paths are the transitive rollups' (DECISIONS.md 2: shortest,
 * ties broken by name), so the page says what `/api/pkgs/bundle/{sha}/full.json` says.
 */
import { compareNames } from '../grammar.ts';
import type { PackageCard, PackageRecord, TransitiveAdvisory } from '../schemas/wire.ts';
import { advisoryHref, advisoryMarkdownHref, pageFrame, type PageFrame } from './frame.ts';
import { capped, plural } from './format.ts';
import { BLAST_RADIUS_SHOWN } from '../compose/documents.ts';
import { fillTemplate, surface } from '../surfaces/registry.ts';
import { advisoryRow, packageRef, type AdvisoryRow, type PackageRef } from './package-page.ts';

export interface AffectedRow extends PackageRef {
  readonly version: string;
  readonly fixedIn: readonly string[];
}

export interface ReachRow extends PackageRef {
  /** From the package to the directly affected one, both included. */
  readonly path: readonly PackageRef[];
}

export interface AdvisoryPageView {
  readonly kind: 'advisory';
  readonly frame: PageFrame;
  readonly advisory: AdvisoryRow;
  readonly affected: readonly AffectedRow[];
  /** The blast radius, nearest first (the shortest path, then by name), the first BLAST_RADIUS_SHOWN of it (src/compose/documents.ts). */
  readonly reached: readonly ReachRow[];
  /** How many more packages reach it. */
  readonly reachedMore: number;
  /** Where the whole blast radius is (the full bundle of the tip, signed in). */
  readonly wholeReach: string | null;
  readonly summaryText: string;
}

export interface AdvisoryPagesInput {
  /** Every package record at the tip. */
  readonly records: Iterable<PackageRecord>;
  /** Every transitive entry at the tip (any order). */
  readonly transitive: Iterable<TransitiveAdvisory>;
  readonly cards: ReadonlyMap<string, PackageCard>;
  readonly siteUrl: string;
  /** The tip's sha: a blast radius cut short links to the tip's full bundle, which lists it whole (only such a page names the tip). */
  readonly tipSha: string;
}

/** One view per advisory active at the tip, by id order. */
export function advisoryPageViews(input: AdvisoryPagesInput): AdvisoryPageView[] {
  const affected = new Map<string, { advisory: AdvisoryRow; rows: AffectedRow[] }>();
  for (const record of input.records) {
    for (const advisory of record.advisories) {
      const entry = affected.get(advisory.id) ?? { advisory: advisoryRow(advisory), rows: [] };
      entry.rows.push({ ...packageRef(record.name, input.cards), version: record.version, fixedIn: advisory.fixedIn });
      affected.set(advisory.id, entry);
    }
  }
  const reached = new Map<string, TransitiveAdvisory[]>();
  for (const entry of input.transitive) {
    if (!affected.has(entry.advisoryId)) continue;
    const entries = reached.get(entry.advisoryId) ?? [];
    entries.push(entry);
    reached.set(entry.advisoryId, entries);
  }
  const byName = (a: PackageRef, b: PackageRef) => compareNames(a.name, b.name);
  const nearestFirst = (a: TransitiveAdvisory, b: TransitiveAdvisory) => a.culpritPath.length - b.culpritPath.length || compareNames(a.culpritPath[0], b.culpritPath[0]);
  return [...affected.keys()].sort().map((id) => {
    const { advisory, rows } = affected.get(id)!;
    const reach = (reached.get(id) ?? []).sort(nearestFirst);
    const direct = rows.sort(byName);
    const names = direct.map((row) => row.name).join(', ');
    const path = advisoryHref(id);
    return {
      kind: 'advisory',
      frame: pageFrame({
        title: `${id} · pkgcat`,
        description: `${advisory.summary ?? id}: affects ${names} directly and ${plural(reach.length, 'more package')} through dependencies.`,
        path,
        section: 'advisory',
        siteUrl: input.siteUrl,
        alternates: [{ href: advisoryMarkdownHref(id), type: 'text/markdown', title: `${id} (markdown)` }],
      }),
      advisory,
      affected: direct,
      // Rows for the shown entries only: a blast radius of thousands, each with a path, is the page's largest list.
      reached: capped(reach, BLAST_RADIUS_SHOWN).items.map((entry): ReachRow => {
        const path = entry.culpritPath.map((name) => packageRef(name, input.cards));
        return { ...path[0], path };
      }),
      reachedMore: Math.max(0, reach.length - BLAST_RADIUS_SHOWN),
      wholeReach: reach.length > BLAST_RADIUS_SHOWN ? fillTemplate(surface('full-bundle').path, { sha: input.tipSha }) : null,
      summaryText: `Affects ${plural(direct.length, 'package')} directly; ${plural(reach.length, 'more package')} ${reach.length === 1 ? 'reaches' : 'reach'} ${direct.length === 1 ? 'it' : 'one of them'} through dependencies.`,
    };
  });
}
