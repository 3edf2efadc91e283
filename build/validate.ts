/**
 * The build checks its own output before publishing it: a staged release that would answer a
 * request wrongly (a missing state, object or file, a body of the wrong length or shape, an
 * envelope of another commit, a file no surface serves) stops the build with the list of
 * problems, and `current` is not switched.
 *
 * Shapes are checked against the wire schemas (src/schemas/wire.ts): every JSON document the
 * release rendered (its manifest's files, with the tip's values in their holes) against its
 * registry row's schema, as publishing stores it (DocumentChecks), and the tip's bodies of every stored
 * kind (listing and full bundles, one deps.json and one versions.json, the diff against its parent).
 */
import { fullBundleSegments, lookupPackage, paths, readJson, readObject, readStateRoot, TRANSITIVE_ENTRY_START, type ChunkRef, type ReleaseInfo, type StateRoot, type StoredBody } from '../src/store/layout.ts';
import { carriesTip, documentBytes, documentSources, readManifest, type DocumentSources, type ManifestEntry } from '../src/store/manifest.ts';
import { openObjects } from '../src/store/objects.ts';
import type { CommitInfo } from '../src/compose/types.ts';
import { isReservedName, nameKey } from '../src/grammar.ts';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { z } from 'zod';
import { PackageCard, schemaProblems, TransitiveAdvisory, WIRE, wireProblems, type WireName } from '../src/schemas/wire.ts';
import { memoizedOn } from '../src/memo.ts';
import { fillTemplate, PUBLIC_SURFACE_IDS, publicFileOwner, publicFileTemplates, queryDefault, SERVED, surface, templateParams, type SurfaceRow } from '../src/surfaces/registry.ts';
import { CONTENT_TYPE, mediaTypeOf } from '../src/http/content-types.ts';
import { API_ROWS, API_VERSION, exampleValues, OPENAPI_VERSION, type OpenApiDocument } from '../src/compose/openapi.ts';
import { PARTIAL_ROWS } from './writers.ts';

export class BuildValidationError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`the built output failed its checks, nothing was published: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? `; and ${problems.length - 5} more` : ''}`);
    this.name = 'BuildValidationError';
    this.problems = problems;
  }
}

/**
 * The files every package of the tip not shadowed under /api/pkgs/ has, for a row `written`: its
 * record, its SBOM, its badges (each variant too), ... (rows under /api/pkgs/ whose file has the one parameter `{name}`).
 */
function perPackageFiles(written: ReadonlySet<string>): string[] {
  const rows = SERVED.filter((row: SurfaceRow) => written.has(row.id) && !PARTIAL_ROWS.has(row.id) && row.publicFile?.startsWith('api/pkgs/') && templateParams(row.publicFile).join() === 'name');
  return rows.flatMap((row) => publicFileTemplates(row).map((file) => file.template));
}

/**
 * What a body without a wire schema must look like, by its Content-Type. An SVG badge is drawn by
 * badge-maker; this catches a file cut short or written empty (the tests parse every badge as XML).
 */
const BODY_CHECKS: Readonly<Record<string, (text: string) => boolean>> = {
  [CONTENT_TYPE.svg]: (text) => text.startsWith('<svg xmlns="http://www.w3.org/2000/svg"') && text.endsWith('</svg>'),
};

/** A JSON body parsed and checked against a wire schema: its value, or its problem as one line. */
function shapeChecked(what: string, name: WireName, text: string): { value: unknown; problem?: undefined } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: `${what} is not JSON` };
  }
  const problems = problemsOf(WIRE[name], value);
  return problems ? { problem: `${what} does not match the ${name} schema: ${problems}` } : { value };
}

/** A JSON body's problem against a wire schema, as one line, or null. */
const shapeProblem = (what: string, name: WireName, text: string): string | null => shapeChecked(what, name, text).problem ?? null;

/** The objects a stored body is made of (a chunk can repeat), and the bytes of its literal text. */
function objectsAndText(body: StoredBody): { objects: string[]; text: number } {
  const objects: string[] = [];
  let text = 0;
  for (const segment of body.segments) {
    if (typeof segment === 'string') text += Buffer.byteLength(segment);
    else objects.push(segment.object);
  }
  return { objects, text };
}

/**
 * A wire schema compiled by ajv from its JSON Schema (made from the zod schema, as the OpenAPI
 * document's are), on first use: ajv's check allocates nothing for a value that conforms, zod's
 * parse copies what it checks. A release checks every envelope it renders (20,000 at 20,000
 * packages), the listing bundle (a card per package) and the tip's new transitive entries (500,000
 * on an advisory's commit at 20,000 packages: checked by zod, in some runs V8 let their garbage
 * reach the old generation, and the build's peak went from 1.2 to 2.1 GiB; docs/benchmarks.md).
 */
const compiledCheck = memoizedOn((schema: z.ZodType): ValidateFunction => {
  const ajv = new Ajv2020({ allErrors: true });
  // A timestamp is a `date-time` (the package's types miss its callable default export).
  (ajvFormats as unknown as (instance: Ajv2020) => Ajv2020)(ajv);
  return ajv.compile(z.toJSONSchema(schema, { target: 'draft-2020-12' }));
});

/**
 * Values of a schema checked by zod alone before its compiled check is made. Compiling takes 10 to
 * 60 ms a schema, what zod takes for about a hundred envelopes, and a leaf's commit checks a few
 * bodies of each kind: it would pay for compiling every time.
 */
const CHECKED_BEFORE_COMPILING = 100;
const checkedByZod = new WeakMap<z.ZodType, number>();

/**
 * A parsed value's problems against a schema, as one line, or null: checked by the schema
 * compiled (once it pays), and only a value that fails it by zod, which has the last word (a JSON
 * Schema format can be stricter than zod's check) and whose messages name what is wrong (an
 * unknown key by its name).
 */
function problemsOf(schema: z.ZodType, value: unknown): string | null {
  const checked = checkedByZod.get(schema) ?? 0;
  if (checked < CHECKED_BEFORE_COMPILING) {
    checkedByZod.set(schema, checked + 1);
    return schemaProblems(schema, value);
  }
  return compiledCheck(schema)(value) ? null : schemaProblems(schema, value);
}

/** Where each transitive entry but the first starts in a chunk's bytes. */
const ENTRY_SEPARATOR = Buffer.from(`,${TRANSITIVE_ENTRY_START}`);

/**
 * The first problem of a transitive chunk's entries (`chunk` names it), or null. Each entry is cut
 * from the bytes and parsed alone, never the chunk's whole text, so that its objects die young.
 */
function transitiveChunkProblem(bytes: Buffer, chunk: string): string | null {
  let index = 0;
  for (let at = 0; at < bytes.length; index++) {
    const next = bytes.indexOf(ENTRY_SEPARATOR, at);
    const end = next < 0 ? bytes.length : next;
    let entry: unknown;
    try {
      entry = JSON.parse(bytes.toString('utf8', at, end));
    } catch {
      return `the tip's full-bundle is not JSON: ${chunk} is not, from its entry ${index}`;
    }
    const problems = problemsOf(TransitiveAdvisory, entry);
    if (problems) return `the tip's full-bundle does not match the FullBundle schema: ${chunk}, entry ${index}: ${problems}`;
    at = end + 1;
  }
  return null;
}

/**
 * The tip's full bundle, a piece at a time: whole, it is every record and every transitive entry
 * of the catalog (348 MB at 20,000 packages; past V8's longest string from about 25,000). Its
 * length; the bundle without its records and entries against the FullBundle schema, then each
 * transitive entry; each record chunk is JSON (its records are the very chunks the
 * envelopes were written from, checked there).
 *
 * Only the chunks `checked` (the tip of the release this one replaces, checked when it was
 * published) does not hold are read: a chunk is named by its content, so one it holds is the same
 * bytes, checked then. The length follows from `checked`'s and the chunks that came and went.
 */
async function fullBundleProblems(out: string, tip: StateRoot, checked: StateRoot | null): Promise<string[]> {
  const problems: string[] = [];
  const { added, lengthSince } = chunksSince(out, tip.full, checked?.full ?? null);
  const bare = fullBundleSegments({ commit: tip.commit, records: [], transitive: [], full: tip.full });
  const parts: string[] = [];
  for (const segment of bare) parts.push(typeof segment === 'string' ? segment : (await readObject(out, segment.object)).toString('utf8'));
  let skeleton: unknown;
  try {
    skeleton = JSON.parse(parts.join(''));
  } catch {
    return [...problems, 'the tip\'s full-bundle is not JSON'];
  }
  const found = wireProblems('FullBundle', skeleton);
  if (found) problems.push(`the tip's full-bundle does not match the FullBundle schema: ${found}`);
  // Each chunk that came is read once, for its items and its length; a transitive chunk's entries
  // one at a time. At 20,000 packages an advisory adds 600 chunks of 500 KB: each checked whole,
  // in a copy of the skeleton with every advisory, made gigabytes of garbage.
  const fresh = new Set(added);
  const lengths = new Map<string, number>();
  for (const [kind, chunks] of [['record', tip.records], ['transitive', tip.transitive]] as const) {
    for (const chunk of chunks) {
      if (!fresh.has(chunk.object) || lengths.has(chunk.object)) continue;
      const bytes = await readObject(out, chunk.object);
      lengths.set(chunk.object, bytes.length);
      const name = `its ${kind} chunk ${chunk.object}`;
      if (kind === 'transitive') {
        const problem = transitiveChunkProblem(bytes, name);
        if (problem) problems.push(problem);
        continue;
      }
      try {
        JSON.parse(`[${bytes.toString('utf8')}]`);
      } catch {
        problems.push(`the tip's full-bundle is not JSON: ${name} is not`);
      }
    }
  }
  if ((await lengthSince(lengths)) !== tip.full.length) problems.push('the tip\'s full-bundle does not have its recorded length');
  return problems;
}

/**
 * The chunks a stored body holds that `checked` (the same body at the tip of the release this one
 * replaces, checked when it was published; null: none) does not: a chunk is named by its content,
 * so one it holds is the same bytes, checked then. `lengthSince` gives the body's length from
 * `checked`'s and the chunks that came and went (`lengths`: those of chunks read already).
 */
function chunksSince(out: string, body: StoredBody, checked: StoredBody | null): { added: string[]; lengthSince: (lengths: ReadonlyMap<string, number>) => Promise<number> } {
  const now = objectsAndText(body);
  const before = checked ? objectsAndText(checked) : { objects: [], text: 0 };
  const left = new Map<string, number>();
  for (const object of before.objects) left.set(object, (left.get(object) ?? 0) + 1);
  const added: string[] = [];
  for (const object of now.objects) {
    const count = left.get(object) ?? 0;
    if (count > 0) left.set(object, count - 1);
    else added.push(object);
  }
  const removed = [...left].flatMap(([object, count]) => Array<string>(count).fill(object));
  const lengthSince = async (lengths: ReadonlyMap<string, number>) => {
    const lengthOf = async (objects: readonly string[]) => {
      let bytes = 0;
      for (const object of objects) bytes += lengths.get(object) ?? (await readObject(out, object)).length;
      return bytes;
    };
    return (checked ? checked.length - before.text - (await lengthOf(removed)) : 0) + now.text + (await lengthOf(added));
  };
  return { added, lengthSince };
}

/**
 * The tip's listing bundle, a chunk of cards at a time: whole, it is a card per package (22 MB at
 * 100,000 packages, read back from 3,000 chunks on every commit). Its text without the cards
 * against the ListingBundle schema (each chunk stands where one `null` does), and each card of a
 * chunk `checked` does not hold against the PackageCard schema; its length as for the full bundle.
 */
async function listingProblems(out: string, tip: StateRoot, checked: StateRoot | null): Promise<string[]> {
  const what = 'the tip\'s listing-bundle';
  const { added, lengthSince } = chunksSince(out, tip.listing, checked?.listing ?? null);
  let skeleton: { packages?: unknown };
  try {
    skeleton = JSON.parse(tip.listing.segments.map((segment) => (typeof segment === 'string' ? segment : 'null')).join('')) as { packages?: unknown };
  } catch {
    return [`${what} is not JSON`];
  }
  const chunks = tip.listing.segments.filter((segment) => typeof segment !== 'string').length;
  if (!Array.isArray(skeleton.packages) || skeleton.packages.length !== chunks || skeleton.packages.some((item) => item !== null)) return [`${what} holds chunks outside its packages`];
  const problems: string[] = [];
  const found = wireProblems('ListingBundle', { ...skeleton, packages: [] });
  if (found) problems.push(`${what} does not match the ListingBundle schema: ${found}`);
  const lengths = new Map<string, number>();
  for (const object of new Set(added)) {
    const bytes = await readObject(out, object);
    lengths.set(object, bytes.length);
    let cards: unknown[];
    try {
      cards = JSON.parse(`[${bytes.toString('utf8')}]`) as unknown[];
    } catch {
      problems.push(`${what} is not JSON: its chunk ${object} is not`);
      continue;
    }
    for (const [index, card] of cards.entries()) {
      const problem = problemsOf(PackageCard, card);
      if (!problem) continue;
      problems.push(`${what} does not match the ListingBundle schema: its chunk ${object}, card ${index}: ${problem}`);
      break;
    }
  }
  if ((await lengthSince(lengths)) !== tip.listing.length) problems.push(`${what} does not have its recorded length`);
  return problems;
}

/**
 * The OpenAPI document: its version, its path set (the registry's JSON API rows), and each example
 * of a wire body against the wire schema (the full check, with the OpenAPI validator and linter,
 * runs in the tests: they are development tools, and take a third of a second).
 */
function openApiProblems(text: string): string[] {
  let document: OpenApiDocument;
  try {
    document = JSON.parse(text) as OpenApiDocument;
  } catch {
    return ['the OpenAPI document is not JSON'];
  }
  const problems: string[] = [];
  if (document.openapi !== OPENAPI_VERSION || document.info?.version !== API_VERSION) problems.push(`the OpenAPI document is not version ${OPENAPI_VERSION} of API ${API_VERSION}`);
  const paths = Object.keys(document.paths ?? {}).sort();
  const rows = API_ROWS.map((row) => row.path).sort();
  if (JSON.stringify(paths) !== JSON.stringify(rows)) problems.push(`the OpenAPI document's paths are not the registry's JSON API routes: ${paths.join(', ')}`);
  for (const row of API_ROWS) {
    for (const [status, response] of Object.entries(document.paths?.[row.path]?.get?.responses ?? {})) {
      const schemaName = status === '200' ? row.body : Number(status) >= 400 ? 'ErrorBody' : undefined;
      if (!schemaName) continue;
      for (const media of Object.values(response.content ?? {})) {
        for (const example of exampleValues(document, media)) {
          const problem = wireProblems(schemaName, example);
          if (problem) problems.push(`the OpenAPI example of ${status} on ${row.path} does not match the ${schemaName} schema: ${problem}`);
        }
      }
    }
  }
  return problems;
}

/** The tip's stored bodies of every kind, each against its schema. */
async function checkStoredKinds(out: string, tip: StateRoot, checked: StateRoot | null, problems: string[]): Promise<void> {
  const objects = openObjects(out);
  for (const [id, body] of [['listing-bundle', tip.listing], ['full-bundle', tip.full]] as const) {
    const named = body.segments.flatMap((segment) => (typeof segment === 'string' ? [] : [segment.object]));
    const missing = (await Promise.all(named.map((hash) => objects.has(hash)))).filter((found) => !found);
    if (missing.length > 0) {
      problems.push(`the tip's ${id} refers to ${missing.length} missing objects`);
      continue;
    }
    problems.push(...(await (id === 'full-bundle' ? fullBundleProblems : listingProblems)(out, tip, checked)));
  }
  for (const chunk of [...tip.packages, ...tip.records, ...tip.transitive]) {
    if (!(await objects.has(chunk.object))) problems.push(`chunk ${chunk.object} of the tip is missing`);
  }
  // One deps.json and one versions.json: the first package of the index that has each.
  const first = tip.packages[0] && (await lookupPackage(out, tip, tip.packages[0].first));
  for (const [id, member] of [['pinned-deps', 'deps'], ['pinned-versions', 'versions']] as const) {
    const hash = first?.[member];
    if (!hash) continue;
    const problem = shapeProblem(`${id} of ${first.name} at the tip`, surface(id).body!, ((await objects.get(hash)) ?? '').toString());
    if (problem) problems.push(problem);
  }
  if (tip.parent) {
    const diff = tip.parentDiff === null ? null : await objects.get(tip.parentDiff);
    if (!diff) problems.push('the tip has no diff against its parent');
    else {
      const problem = shapeProblem('the tip\'s diff against its parent', surface('diff').body!, diff.toString('utf8'));
      if (problem) problems.push(problem);
    }
  }
}

/** What a release's documents are checked against besides their rows: its tip, the tip's records (a floating SBOM's components) and its chain's length. */
export class DocumentChecks {
  readonly tip: CommitInfo;
  readonly chainLength: number;
  readonly #sources: DocumentSources;
  /** Bodies many files share (a badge is one of a few hundred) are checked once. */
  readonly #checkedBodies = new Map<string, boolean>();

  constructor(tip: CommitInfo, chainLength: number, sources: DocumentSources) {
    this.tip = tip;
    this.chainLength = chainLength;
    this.#sources = sources;
  }

  /**
   * The problems of the file `file` of the release, stored as `stored` under `entry`: its row's
   * schema (or body check), the envelope's commit and name, the recent commits' count.
   */
  async problems(file: string, entry: ManifestEntry, stored: Buffer): Promise<string[]> {
    const owner = publicFileOwner(file);
    if (!owner) return [`${file} is no surface's file`];
    // The body is made only for a check: a part of llms-full joins thousands of mirrors, each read
    // back from the packs (at 100,000 packages, most of what publishing read), and has none.
    const text = async () => (await documentBytes(entry, stored, this.tip, file, this.#sources)).toString('utf8');
    if (owner.row.id === 'openapi') return openApiProblems(await text());
    if (!owner.row.body) {
      const check = BODY_CHECKS[owner.row.contentType];
      if (!check) return [];
      let passed = carriesTip(entry) ? undefined : this.#checkedBodies.get(entry.object);
      if (passed === undefined) this.#checkedBodies.set(entry.object, (passed = check(await text())));
      return passed ? [] : [`${file} is not an ${mediaTypeOf(owner.row.contentType)} body`];
    }
    const checked = shapeChecked(file, owner.row.body, await text());
    if (checked.problem !== undefined) return [checked.problem];
    const value = checked.value as { commitSha?: string; package?: { name?: string } } | unknown[];
    if (owner.row.id === 'package' && !Array.isArray(value) && (value.commitSha !== this.tip.sha || value.package?.name !== owner.params.name)) {
      return [`${file} is not ${owner.params.name} at the tip`];
    }
    if (owner.row.id === 'recent-commits' && Array.isArray(value) && value.length !== Math.min(queryDefault(surface('recent-commits'), 'limit') as number, this.chainLength)) {
      return ['recent-commits.json is short'];
    }
    return [];
  }
}

/**
 * What a release's manifest changed from the one it replaces, when that one was checked whole by
 * the same code (a builder that stays up publishes release after release): the files whose entry
 * it set (new or changed) and those it dropped, and the names of the release it replaces.
 */
export interface ManifestChanges {
  readonly files: ReadonlySet<string>;
  readonly dropped: readonly string[];
  readonly previousNames: ReadonlyMap<string, string>;
}

/** The problems of the files a package's name must have and `entries` lacks: its files under /api/pkgs/ (a reserved name has none there) and its markdown mirror. */
function missingFiles(name: string, entries: ReadonlyMap<string, ManifestEntry>, perPackage: readonly string[], written: ReadonlySet<string>): string[] {
  const problems = isReservedName(name) ? [] : perPackage.map((template) => fillTemplate(template, { name })).filter((file) => !entries.has(file)).map((file) => `${file} is missing`);
  // Every package has its markdown mirror (reserved names too: they are shadowed under /api/pkgs/ only).
  if (written.has('package-markdown') && !entries.has(fillTemplate(surface('package-markdown').publicFile!, { name }))) problems.push(`the markdown mirror of ${name} is missing`);
  return problems;
}

/**
 * The names whose files are checked: every name, or, given what changed from a release checked
 * whole, the names that are new and those a dropped file belonged to. A file of any other name was
 * there in that release and was not dropped, so it is there still.
 */
function namesToCheck(names: Record<string, string>, changes: ManifestChanges | undefined): Iterable<string> {
  if (!changes) return Object.values(names);
  const toCheck = new Set<string>();
  for (const key in names) if (changes.previousNames.get(key) !== names[key]) toCheck.add(names[key]);
  for (const file of changes.dropped) {
    const name = publicFileOwner(file)?.params.name;
    if (name !== undefined && names[nameKey(name)] === name) toCheck.add(name);
  }
  return toCheck;
}

/**
 * Every file of the manifest is some row's, of the tip, and of its row's shape; every file the tip
 * must have is there. Given `changes`, a file or name the release it replaces had, and which did
 * not change, is not looked at again.
 */
async function checkManifest(
  out: string,
  entries: ReadonlyMap<string, ManifestEntry>,
  info: ReleaseInfo,
  names: Record<string, string>,
  chain: CommitInfo[],
  problems: string[],
  checked: boolean,
  changes: ManifestChanges | undefined,
  tipRoot: StateRoot | null,
): Promise<void> {
  const objects = openObjects(out);
  const written = new Set(info.publicSurfaces ?? PUBLIC_SURFACE_IDS);
  const perPackage = perPackageFiles(written);
  for (const name of namesToCheck(names, changes)) problems.push(...missingFiles(name, entries, perPackage, written));
  // A row whose public file has no parameter is one file every release holds (llms.txt, sitemap.xml, the feeds, ...).
  for (const row of SERVED) {
    if (row.publicFile && written.has(row.id) && templateParams(row.publicFile).length === 0 && !entries.has(row.publicFile)) problems.push(`${row.publicFile} is missing`);
  }
  // A tip without a state is reported by validateRelease; its documents cannot be read without it.
  if (!info.tip || !tipRoot) return;
  const unowned = (file: string): boolean => {
    if (publicFileOwner(file)) return false;
    problems.push(`${file} is no surface's file`);
    return true;
  };
  // Each document checked already, as it was rendered or by the release that rendered it: only whose file it is, without a promise for each of hundreds of thousands.
  if (checked) {
    for (const file of changes?.files ?? entries.keys()) unowned(file);
    return;
  }
  const documents = new DocumentChecks(info.tip, chain.length, documentSources(objects, tipRoot));
  const checkFile = async (file: string, entry: ManifestEntry): Promise<void> => {
    if (unowned(file)) return;
    const stored = await objects.get(entry.object);
    if (!stored) {
      problems.push(`${file} names object ${entry.object}, which is missing`);
      return;
    }
    problems.push(...(await documents.problems(file, entry, stored)));
  };
  const checks: Promise<void>[] = [];
  for (const [file, entry] of entries) {
    checks.push(checkFile(file, entry));
    if (checks.length >= 64) await Promise.all(checks.splice(0));
  }
  await Promise.all(checks);
}

export interface ValidateOptions {
  /**
   * The problems of the documents as publishing stored them (DocumentChecks, on the bytes it
   * rendered; a kept document was checked by the release that rendered it). Present: the
   * manifest's files are checked to be listed and some row's, and none is read back. Absent:
   * every file is read and checked.
   */
  readonly documentProblems?: readonly string[];
  /**
   * The manifest as the build just stored it, so that it is not read back (the chunks it names are
   * checked to be there). Absent: read from the release.
   */
  readonly manifest?: ReadonlyMap<string, ManifestEntry>;
  /**
   * The commits whose states this build wrote: they are checked to be in the packs (the states of
   * earlier commits were checked by the builds that wrote them). Absent: every commit of the chain.
   */
  readonly writtenStates?: readonly string[];
  /**
   * The tip of the release this one replaces: the chunks of the full bundle it shares with it
   * were checked when it was published, and are not read again. Absent: every chunk.
   */
  readonly checkedTip?: StateRoot | null;
  /** What the manifest changed from a release this code checked whole (with `documentProblems`): only that is looked at. Absent: all of it. */
  readonly changes?: ManifestChanges;
}

export async function validateRelease(out: string, releaseDir: string, options: ValidateOptions = {}): Promise<void> {
  const problems: string[] = [];
  const info = await readJson<ReleaseInfo>(paths.releaseInfo(releaseDir));
  const chain = await readJson<CommitInfo[]>(paths.chain(releaseDir));
  const names = await readJson<Record<string, string>>(paths.names(releaseDir));
  await readJson<unknown[]>(paths.diagnostics(releaseDir));

  if (!info.tip || chain[0]?.sha !== info.tip.sha) problems.push('release.json tip is not the newest commit of chain.json');
  if (info.commitCount !== chain.length) problems.push(`release.json counts ${info.commitCount} commits, chain.json has ${chain.length}`);
  const objects = openObjects(out);
  for (const sha of options.writtenStates ?? chain.map((commit) => commit.sha)) if (!(await objects.hasRoot(sha))) problems.push(`commit ${sha} has no state`);
  if (info.tip && !(await objects.hasRoot(info.tip.sha))) problems.push(`the tip ${info.tip.sha} has no state`);
  const tip = info.tip ? await readStateRoot(out, info.tip.sha) : null;
  if (tip) await checkStoredKinds(out, tip, options.checkedTip ?? null, problems);
  const manifest = await readJson<ChunkRef[]>(paths.manifest(releaseDir)).catch(() => null);
  if (!manifest) problems.push('the release has no manifest');
  else {
    const missing = (await Promise.all(manifest.map(async ({ object }) => ((await objects.has(object)) ? [] : [object])))).flat();
    if (missing.length > 0) problems.push(`the manifest names ${missing.length} missing chunks`);
    const entries = options.manifest ?? new Map((await readManifest(objects, manifest)).flatMap(({ entries: chunk }) => chunk));
    if (options.documentProblems) problems.push(...options.documentProblems);
    await checkManifest(out, entries, info, names, chain, problems, options.documentProblems !== undefined, options.documentProblems && options.changes, tip);
  }

  if (problems.length > 0) throw new BuildValidationError(problems);
}
