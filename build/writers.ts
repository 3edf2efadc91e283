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
import { composeOpenApi, type ApiExamples } from '../src/compose/openapi.ts';
import { isReservedName } from '../src/grammar.ts';
import { packageClosure } from '../src/compose/closure.ts';
import { composeSbom, type ComponentCache } from '../src/compose/sbom/index.ts';
import { fillTemplate, surface } from '../src/surfaces/registry.ts';
import type { CommitInfo, Diagnostic } from '../src/compose/types.ts';
import type { PackageRecord } from '../src/schemas/wire.ts';

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
  /** The public address of the site, without a trailing slash (sitemap, feeds, llms.txt, SPDX namespaces, the OpenAPI server). */
  siteUrl: string;
  /** Bodies of the tip for the OpenAPI document's examples (src/compose/api-examples.ts). */
  examples: ApiExamples;
}

export interface PublicBody {
  /** Values of the row's `publicFile` template parameters. */
  readonly params: Readonly<Record<string, string>>;
  readonly body: string;
}

export type Writer = (content: ReleaseContent) => Iterable<PublicBody> | AsyncIterable<PublicBody>;

/** The tip's records parsed on first use (a closure walk visits few of them per package). */
function recordLookup(records: ReadonlyMap<string, string>): (key: string) => PackageRecord | null {
  const parsed = new Map<string, PackageRecord>();
  return (key) => {
    let record = parsed.get(key);
    if (!record) {
      const text = records.get(key);
      if (text === undefined) return null;
      record = JSON.parse(text) as PackageRecord;
      parsed.set(key, record);
    }
    return record;
  };
}

/**
 * Rows with a document per package composed from its closure: seconds on a large catalog. They
 * are published in a second release right after the first (build/publish.ts), so a new commit's
 * JSON surfaces do not wait for them.
 */
export const DEFERRED_ROWS: ReadonlySet<string> = new Set(['package-sbom']);

export const WRITERS: Readonly<Record<string, Writer>> = {
  /** `/api/pkgs/recent-commits.json` with the default limit (the gateway composes other limits). */
  'recent-commits': function* (content) {
    const limit = surface('recent-commits').query![0].default as number;
    yield { params: {}, body: serialize(composeRecentCommits(content.chain, limit)) };
  },
  /** `/api/pkgs/{name}.json` of every package at the tip, in its canonical spelling. */
  package: function* (content) {
    for (const [key, record] of content.records) {
      const name = content.names.get(key)!;
      // A fixed route wins over a package of the same name (DECISIONS.md 4): its file is not written.
      if (isReservedName(name)) continue;
      yield { params: { name }, body: serialize(composeEnvelope(content.tip, new RawJson(record))) };
    }
  },
  /**
   * `/api/pkgs/{name}/sbom.json` of every package at the tip in the default format (CycloneDX),
   * the same bytes as the sha-pinned SBOM at the tip (src/compose/sbom/).
   */
  'package-sbom': async function* (content) {
    const lookup = recordLookup(content.records);
    const cache: ComponentCache = new WeakMap();
    for (const [key, name] of content.names) {
      if (isReservedName(name)) continue;
      const closure = await packageClosure(lookup, key);
      if (!closure) continue;
      const pinnedUrl = content.siteUrl + fillTemplate(surface('pinned-sbom').path, { sha: content.tip.sha, name });
      yield { params: { name }, body: serialize(composeSbom('cyclonedx', content.tip, closure, pinnedUrl, cache)) };
    }
  },
  /** `/api/pkgs/openapi.json`: the OpenAPI document, prerendered (SPEC.md Endpoints rule 4). */
  openapi: function* (content) {
    yield { params: {}, body: serialize(composeOpenApi({ siteUrl: content.siteUrl, examples: content.examples })) };
  },
};
