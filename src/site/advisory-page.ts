/**
 * A page per advisory active at the latest state (`/advisories/{id}`, beyond SPEC.md): the
 * advisory, the packages it affects directly (each with its version and the versions that fix
 * it), and its blast radius: every package that reaches one of them through build and runtime
 * dependencies, with the path. The paths are the transitive rollups' (DECISIONS.md 2: shortest,
 * ties broken by name), so the page says what `/api/pkgs/bundle/{sha}/full.json` says.
 */
import { compareNames } from '../grammar.ts';
import type { PackageRecord } from '../schemas/wire.ts';
import { advisoryHref, advisoryMarkdownHref, pageFrame, type PageFrame } from './frame.ts';
import { plural } from './format.ts';
import type { AdvisoryReach } from '../compose/documents.ts';
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
  /** How far each advisory reaches: its nearest packages and how many there are (src/compose/documents.ts advisoryReach). */
  readonly reach: ReadonlyMap<string, Pick<AdvisoryReach, 'nearest' | 'reachCount'>>;
  /** The canonical name of every package at the tip, by name key. */
  readonly names: ReadonlyMap<string, string>;
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
      entry.rows.push({ ...packageRef(record.name, input.names), version: record.version, fixedIn: advisory.fixedIn });
      affected.set(advisory.id, entry);
    }
  }
  const byName = (a: PackageRef, b: PackageRef) => compareNames(a.name, b.name);
  return [...affected.keys()].sort().map((id) => {
    const { advisory, rows } = affected.get(id)!;
    const { nearest, reachCount } = input.reach.get(id) ?? { nearest: [], reachCount: 0 };
    const direct = rows.sort(byName);
    const names = direct.map((row) => row.name).join(', ');
    const path = advisoryHref(id);
    return {
      kind: 'advisory',
      frame: pageFrame({
        title: `${id} · pkgcat`,
        description: `${advisory.summary ?? id}: affects ${names} directly and ${plural(reachCount, 'more package')} through dependencies.`,
        path,
        section: 'advisory',
        siteUrl: input.siteUrl,
        alternates: [{ href: advisoryMarkdownHref(id), type: 'text/markdown', title: `${id} (markdown)` }],
      }),
      advisory,
      affected: direct,
      reached: nearest.map((entry): ReachRow => {
        const path = entry.culpritPath.map((name) => packageRef(name, input.names));
        return { ...path[0], path };
      }),
      reachedMore: reachCount - nearest.length,
      wholeReach: reachCount > nearest.length ? fillTemplate(surface('full-bundle').path, { sha: input.tipSha }) : null,
      summaryText: `Affects ${plural(direct.length, 'package')} directly; ${plural(reachCount, 'more package')} ${reachCount === 1 ? 'reaches' : 'reach'} ${direct.length === 1 ? 'it' : 'one of them'} through dependencies.`,
    };
  });
}
