/**
 * The build output directory, shared by the build (which writes it) and the gateway and tool
 * server (which read it). Nothing here composes or writes: it names files and reads them.
 *
 *   <out>/objects/<id>.pack, <id>.idx   content-addressed bodies and chunks (each commit's diff
 *                                        against its parent among them), the precompressed copies
 *                                        of large served bodies, and one state root per built
 *                                        commit, found by its sha (StateRoot, readStateRoot), which
 *                                        names the commit's objects; in append-only packs (read
 *                                        and write them through objects.ts)
 *   <out>/releases/<id>/                 one per published tip (ReleaseInfo, chain, names, diagnostics)
 *   <out>/releases/<id>/manifest.json    the anonymous files: path -> object, in chunks (manifest.ts)
 *   <out>/current -> releases/<id>       swapped atomically (rename) when a build publishes
 *   <out>/build/                         the build's private state (checkpoints, temp files)
 *   <out>/cache/                         the gateway's, bounded by a size cap (least recently used
 *                                        deleted first; gateway/disk-cache.ts); the build never writes here:
 *   <out>/cache/diffs/<sha>/<base>.json    diffs of other pairs, composed on first request
 *   <out>/cache/sboms/<sha>/<key>.<format>.json
 *                                          sha-pinned and SPDX SBOMs, composed on first request
 *   <out>/cache/bodies/                    the X-Accel-Redirect mode: bodies that are no one file
 *                                          (bundles, compressed copies), written on first request
 */
import { readlinkSync } from 'node:fs';
import { readFile, readlink } from 'node:fs/promises';
import { objectsFolder, openObjects, readStoredObject } from './objects.ts';
import { join } from 'node:path';
import { serializeSegments, StoredArray, StoredValue, type Segment } from '../serialize.ts';
import { fullBundle } from '../compose/shapes.ts';
import { nameKey } from '../grammar.ts';
import type { CommitInfo, Diagnostic } from '../compose/types.ts';
import type { DiffSide } from '../compose/diff.ts';
import type { PackageRecord, TransitiveAdvisory } from '../schemas/wire.ts';

/**
 * Version of this on-disk layout; a build refuses an output directory of another version.
 * 2: state roots keep records and transitive rollups as keyed chunks (per-package reads at any sha).
 * 3: objects live in append-only packs (objects.ts), no longer one file each; a release is a
 *    manifest of objects (src/store/manifest.ts), not a tree of files.
 * 4: each commit's diff against its parent is an object its state root names (`parentDiff`), no
 *    longer a file under `diffs/`; the state roots are items of the packs, no longer files under
 *    `states/`.
 */
export const LAYOUT_VERSION = 4;

/** `<out>/layout.json`: the layout version of what the output holds. */
export const layoutFile = (out: string): string => join(out, 'layout.json');

/**
 * Why this pkgcat can neither build into nor serve `out`: it holds a build of another layout
 * version (null when it holds this one, or nothing yet). Says what to do about it.
 */
export async function otherLayout(out: string): Promise<string | null> {
  let layout: unknown;
  try {
    layout = (JSON.parse(await readFile(layoutFile(out), 'utf8')) as { layout?: unknown }).layout;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  if (layout === LAYOUT_VERSION) return null;
  return `${out} holds a build of layout ${String(layout)}; this pkgcat writes and serves layout ${LAYOUT_VERSION}: build the catalog again into a new output directory (pkgcat build --repo <catalog> --out <new directory>), or delete ${out} and build again`;
}

/** A body stored as literal text and chunk references (see serializeSegments). */
export interface StoredBody {
  /** Weak ETag identifying the body's bytes. */
  etag: string;
  /** Length of the assembled body in bytes. */
  length: number;
  segments: Segment[];
}

/** Per-package entry of a commit's package index. Absent members mean "no such body at this sha". */
export interface PackageIndexEntry {
  /** Canonical spelling of the name at this commit (or when last present). */
  name: string;
  /** Object hash of the dependency rollup; present iff the package exists at this commit. */
  deps?: string;
  /** Object hash of the version history; present iff the package has shipped a version by this commit. */
  versions?: string;
}

/**
 * One chunk of a keyed collection: the items of the name keys from `first` up to the next
 * chunk's `first`. Chunks are sorted, so a lookup reads one chunk.
 */
export interface ChunkRef {
  /** The smallest name key in the chunk. */
  first: string;
  object: string;
}

/** One chunk of a commit's package index: the object holds `{ [nameKey]: PackageIndexEntry }`. */
export type IndexChunkRef = ChunkRef;

/** A commit's state root as stored (in the packs, found by the commit's sha): everything the surfaces need to answer for one commit. */
export interface StateRootFile {
  layout: number;
  commit: CommitInfo;
  parent: string | null;
  /**
   * Object hash of the diff endpoint's body of this commit against `parent`
   * (`/api/pkgs/bundle/{sha}/diff/{parent}.json`, byte for byte); null for a root commit.
   */
  parentDiff: string | null;
  /** The listing bundle `/api/pkgs/bundle/{sha}.json`. */
  listing: StoredBody;
  /** The full bundle `/api/pkgs/bundle/{sha}/full.json`: its segments follow from `records`, `advisories` and `transitive`. */
  full: { etag: string; length: number; advisories: string };
  /** Package records (serialized, comma-joined, in listing order), by name key. */
  records: ChunkRef[];
  /** Transitive advisory entries (serialized, comma-joined), by the name key of the package they start at. */
  transitive: ChunkRef[];
  /** Index of every package present at, or shipped before, this commit. */
  packages: IndexChunkRef[];
  /** Problems in the catalog data that this commit introduced. */
  diagnostics: Diagnostic[];
}

/** A state root as read: the full bundle's segments filled in. */
export interface StateRoot extends Omit<StateRootFile, 'full'> {
  full: StoredBody & { advisories: string };
}

/** The full bundle of a state as segments: exactly `serialize(composeFullBundle(state))` once joined. */
export function fullBundleSegments(root: Pick<StateRootFile, 'commit' | 'records' | 'transitive'> & { full: { advisories: string } }): Segment[] {
  const chunks = (refs: readonly ChunkRef[]) => new StoredArray(refs.map((ref) => ref.object));
  return serializeSegments(fullBundle(root.commit, chunks(root.records), new StoredValue(root.full.advisories), chunks(root.transitive)));
}

/** A stored root with its derived parts filled in. */
export function hydrateStateRoot(file: StateRootFile): StateRoot {
  return { ...file, full: { ...file.full, segments: fullBundleSegments(file) } };
}

/** The package records of a records chunk, by name key. */
export function recordsOfChunk(text: string): Map<string, PackageRecord> {
  const records = JSON.parse(`[${text}]`) as PackageRecord[];
  return new Map(records.map((record) => [nameKey(record.name), record]));
}

/**
 * How each transitive entry's text starts. An entry is `{"advisoryId":"<id>","culpritPath":[...]}`
 * (serialize sorts keys), and inside a JSON string every quote is escaped, so in a rollup's or a
 * transitive chunk's comma-joined entries the text `,{"advisoryId":"` occurs only where an entry
 * starts; advisory ids hold no quote (src/grammar.ts).
 */
export const TRANSITIVE_ENTRY_START = '{"advisoryId":"';

/** The transitive entries of a transitive chunk, by the name key of the package they start at. */
export function transitiveOfChunk(text: string): Map<string, TransitiveAdvisory[]> {
  const byKey = new Map<string, TransitiveAdvisory[]>();
  for (const entry of JSON.parse(`[${text}]`) as TransitiveAdvisory[]) {
    const key = nameKey(entry.culpritPath[0]);
    byKey.set(key, [...(byKey.get(key) ?? []), entry]);
  }
  return byKey;
}

/** `releases/<id>/release.json`. */
export interface ReleaseInfo {
  layout: number;
  id: string;
  /** The latest main-branch commit, or null for a catalog with no commits. */
  tip: CommitInfo | null;
  /** Number of commits on the first-parent chain. */
  commitCount: number;
  /** The public address of the site the release was built for (the absolute URLs of the sitemap, feeds, llms.txt, mirrors, pages). */
  siteUrl: string;
  /**
   * The registry rows whose files `public/` holds (src/surfaces/registry.ts PUBLIC_SURFACE_IDS):
   * a pkgcat that publishes more surfaces republishes an unchanged tip. Absent in older releases.
   */
  publicSurfaces?: string[];
}

export const paths = {
  /** The packs of the object store (objects.ts); read objects through `openObjects`. */
  objects: objectsFolder,
  releases: (out: string) => join(out, 'releases'),
  release: (out: string, id: string) => join(out, 'releases', id),
  current: (out: string) => join(out, 'current'),
  buildPrivate: (out: string) => join(out, 'build'),
  /** Inside a release directory. */
  releaseInfo: (releaseDir: string) => join(releaseDir, 'release.json'),
  /** CommitInfo[] newest first: the whole first-parent chain at the release's tip. */
  chain: (releaseDir: string) => join(releaseDir, 'chain.json'),
  /** `{ [nameKey]: canonical name }` of the packages present at the tip. */
  names: (releaseDir: string) => join(releaseDir, 'names.json'),
  /** Diagnostic[] of every commit on the chain, oldest first. */
  diagnostics: (releaseDir: string) => join(releaseDir, 'diagnostics.json'),
  /** The release's manifest: its chunks, each `{ path: entry }` for the anonymous files (src/store/manifest.ts). */
  manifest: (releaseDir: string) => join(releaseDir, 'manifest.json'),
  /** What the release's traced documents read, with each input's hash: `{ epoch, chunks }` (build/inputs.ts). */
  inputs: (releaseDir: string) => join(releaseDir, 'inputs.json'),
  /** A static export (`pkgcat export`): the anonymous files as a static host serves them. */
  public: (exportDir: string) => join(exportDir, 'public'),
  /** Paths inside an export's `public/` besides the registry's public files: the header rules for Netlify / Cloudflare Pages. */
  publicFile: {
    headers: () => '_headers',
  },
  /** Header rules for nginx serving an export's `public/` (standalone, and with misses sent to the gateway). */
  staticRules: {
    nginx: (exportDir: string) => join(exportDir, 'static', 'nginx-anonymous.conf'),
    nginxGateway: (exportDir: string) => join(exportDir, 'static', 'nginx-anonymous-gateway.conf'),
  },
  /** The gateway's files, written on request and bounded by a size cap (gateway/disk-cache.ts). */
  cache: (out: string) => join(out, 'cache'),
  /** A diff of a pair the build did not store (any but a commit and its parent), composed on first request. */
  composedDiff: (out: string, sha: string, base: string) => join(out, 'cache', 'diffs', sha, `${base}.json`),
  /** A sha-pinned SBOM, composed by the gateway on its first request and kept. */
  sbom: (out: string, sha: string, key: string, format: string) => join(out, 'cache', 'sboms', sha, `${key}.${format}.json`),
  /** Bodies the gateway's X-Accel-Redirect mode writes once (gateway/accel.ts). */
  bodyCache: (out: string) => join(out, 'cache', 'bodies'),
} as const;

/** The id of the published release, or null when nothing has been published yet. */
export async function currentReleaseId(out: string): Promise<string | null> {
  try {
    const target = await readlink(paths.current(out));
    return target.split(/[\\/]/).pop() ?? null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * currentReleaseId as one readlink system call on this thread: the gateway reads `current` on every
 * request (DECISIONS.md 12), and a symlink read costs less than a thread-pool round trip.
 */
export function currentReleaseIdSync(out: string): string | null {
  try {
    return readlinkSync(paths.current(out)).split(/[\\/]/).pop() ?? null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

export async function readJson<T>(file: string): Promise<T> {
  return JSON.parse(await readFile(file, 'utf8')) as T;
}

/** The state root of commit `sha`; null when it was never built. */
export async function readStateRoot(out: string, sha: string): Promise<StateRoot | null> {
  const stored = await openObjects(out).getRoot(sha);
  return stored && hydrateStateRoot(JSON.parse(stored.toString('utf8')) as StateRootFile);
}

/** The bytes of an object of the output (objects.ts); throws when it is missing. */
export async function readObject(out: string, hash: string): Promise<Buffer> {
  return readStoredObject(openObjects(out), hash);
}

/** The diff of a commit against its parent, as the diff endpoint sends it; null for a root commit. */
export async function readParentDiff(out: string, root: Pick<StateRootFile, 'parentDiff'>): Promise<Buffer | null> {
  return root.parentDiff === null ? null : readObject(out, root.parentDiff);
}

/** Assembles a stored body into its bytes (the gateway may stream segments instead). */
export async function assembleBody(out: string, body: StoredBody): Promise<Buffer> {
  const parts = await Promise.all(
    body.segments.map((segment) =>
      typeof segment === 'string' ? Buffer.from(segment, 'utf8') : readObject(out, segment.object),
    ),
  );
  return Buffer.concat(parts);
}

/** Finds the chunk that would hold `key` (chunks are sorted by their first key). */
export function findChunk(chunks: readonly ChunkRef[], key: string): ChunkRef | null {
  let low = 0;
  let high = chunks.length - 1;
  let found: ChunkRef | null = null;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (chunks[middle].first <= key) {
      found = chunks[middle];
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found;
}

/** Looks a package up in a commit's index; null when the commit never knew the name. */
export async function lookupPackage(out: string, root: StateRoot, key: string): Promise<PackageIndexEntry | null> {
  const chunk = findChunk(root.packages, key);
  if (!chunk) return null;
  const entries = JSON.parse((await readObject(out, chunk.object)).toString('utf8')) as Record<string, PackageIndexEntry>;
  return Object.hasOwn(entries, key) ? entries[key] : null;
}

/** A commit's stored listing bundle, parsed: what a diff reads of a state. Null when not built. */
export async function readListing(out: string, sha: string): Promise<DiffSide | null> {
  const root = await readStateRoot(out, sha);
  return root ? (JSON.parse((await assembleBody(out, root.listing)).toString('utf8')) as DiffSide) : null;
}
