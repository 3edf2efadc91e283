/**
 * The writers of a release's public files: one per registry row that has a `publicFile`
 * (src/surfaces/registry.ts), keyed by row id. A writer yields the row's template parameters and
 * the body for each file; publish.ts places it at the row's public file and validate.ts checks it
 * against the row's wire schema. A new static surface is a registry row, a pure compose
 * function, and one writer here.
 */
import { RawJson, serialize } from '../src/serialize.ts';
import { composeEnvelope } from '../src/compose/package.ts';
import { composeRecentCommits } from '../src/compose/commits.ts';
import { badgeFace, badgeOptions, drawBadge, type BadgeSource } from '../src/compose/badge.ts';
import { isReservedName } from '../src/grammar.ts';
import { resolveQuery } from '../src/surfaces/query.ts';
import { publicFileTemplates, queryDefault, surface } from '../src/surfaces/registry.ts';
import type { CommitInfo, Diagnostic } from '../src/compose/types.ts';

/** Everything a release is made from (the tip's composed items, the chain, the settings). */
export interface ReleaseContent {
  tip: CommitInfo;
  /** Newest first. */
  chain: CommitInfo[];
  /** Serialized package records at the tip, by name key. */
  records: ReadonlyMap<string, string>;
  /** Keys whose records this build composed anew; the others were published (and checked) by an earlier build. */
  recomposedRecords: ReadonlySet<string>;
  /** Canonical names at the tip, by name key. */
  names: ReadonlyMap<string, string>;
  diagnostics: readonly Diagnostic[];
  /** The public address of the site, without a trailing slash (sitemap, feeds, llms.txt, SPDX namespaces). */
  siteUrl: string;
}

export interface PublicBody {
  /** Values of the row's `publicFile` template parameters. */
  readonly params: Readonly<Record<string, string>>;
  /** The query values it answers, when it is a variant file (registry.ts publicFileTemplates); none: the row's own file. */
  readonly query?: Readonly<Record<string, string>>;
  readonly body: string;
  /** Many files have these very bytes (a badge is one of a few hundred): publish.ts stores them once and links. */
  readonly shared?: boolean;
}

/** The packages of the release whose `/api/pkgs/{name}...` files are written: a fixed route wins over a package of the same name (DECISIONS.md 4). */
function* publishedPackages(content: ReleaseContent): Iterable<{ name: string; record: string }> {
  for (const [key, record] of content.records) {
    const name = content.names.get(key)!;
    if (!isReservedName(name)) yield { name, record };
  }
}

export type Writer = (content: ReleaseContent) => Iterable<PublicBody>;

export const WRITERS: Readonly<Record<string, Writer>> = {
  /** `/api/pkgs/recent-commits.json` with the default limit (the gateway composes other limits). */
  'recent-commits': function* (content) {
    const limit = queryDefault(surface('recent-commits'), 'limit') as number;
    yield { params: {}, body: serialize(composeRecentCommits(content.chain, limit)) };
  },
  /** `/api/pkgs/{name}.json` of every package at the tip, in its canonical spelling. */
  package: function* (content) {
    for (const { name, record } of publishedPackages(content)) {
      yield { params: { name }, body: serialize(composeEnvelope(content.tip, new RawJson(record))) };
    }
  },
  /**
   * `/api/pkgs/{name}/badge.svg` in the default style and label, for each metric (the score's is
   * the row's own file, the others its variant files). Badges repeat (a score is one of 101), so
   * each distinct one is drawn once.
   */
  'package-badge': function* (content) {
    const row = surface('package-badge');
    const files = publicFileTemplates(row).map((file) => ({ query: file.query, options: badgeOptions(resolveQuery(row, file.query)) }));
    const drawn = new Map<string, string>();
    for (const { name, record } of publishedPackages(content)) {
      const source = JSON.parse(record) as BadgeSource;
      for (const { query, options } of files) {
        const face = badgeFace(source, options.metric, options.label);
        const key = `${options.style}\u0000${face.label}\u0000${face.message}\u0000${face.color}`;
        let body = drawn.get(key);
        if (body === undefined) drawn.set(key, (body = drawBadge(face, options.style)));
        yield { params: { name }, query, body, shared: true };
      }
    }
  },
};
