/**
 * Publishing a tip: one release per build. The release directory (chain, names, diagnostics and
 * the anonymous public tree) is written under a temporary name, validated, renamed into place, and
 * `current` is switched to it with an atomic symlink rename. Readers see the old release or the
 * new one, never a mix; a build that fails or is killed before the switch leaves the old one.
 *
 * Work follows the change: a document yielded as a Rendition (build/writers.ts) is rendered only
 * when the digest of its inputs differs from the one the current release recorded for its file
 * (`renditions.json`). Otherwise the file is kept: hard-linked as it is, or, for a document that
 * carries the tip, copied with this tip's values spliced into its holes. Nothing is composed or
 * rendered again for a new tip alone.
 */
import { readdir, readFile, mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { countWritten, linkFile } from '../src/store/atomic.ts';
import { contentHash } from '../src/store/hash.ts';
import { serialize } from '../src/serialize.ts';
import { currentReleaseId, LAYOUT_VERSION, paths, readJson, type ReleaseInfo } from '../src/store/layout.ts';
import { fillTemplate, PUBLIC_SURFACE_IDS, publicFileFor, SERVED } from '../src/surfaces/registry.ts';
import { renderHeadersFile, renderNginxRules } from '../src/http/static-rules.ts';
import { validateRelease } from './validate.ts';
import { siteSourceHash } from './site.ts';
import { isRendition, WRITERS, type Pieces, type ReleaseContent, type Rendition, type WriterContext } from './writers.ts';

export type { ReleaseContent };

/** Releases kept besides the current one, so requests that started on them can finish. */
const KEEP_RELEASES = 3;

/** What one release cost: the claim "a commit costs what it changes", counted. */
export interface PublishCounts {
  /** Documents composed or rendered for this release (new inputs, or a document of the whole catalog). */
  rendered: number;
  /** Documents kept from the previous release as they are (a hard link). */
  reused: number;
  /** Documents that carry the tip, kept from the previous release with this tip's values spliced in (and the envelopes: the tip around a stored record). */
  spliced: number;
  /** Files written, and their bytes (the release's own files included). */
  filesWritten: number;
  bytesWritten: number;
  /** Files hard-linked (kept documents; the files that share one body, such as badges). */
  filesLinked: number;
}

export interface Published {
  readonly id: string;
  readonly counts: PublishCounts;
}

/** Where the tip's values sit in a kept file: [byte offset, byte length, hole name], in order. */
type HoleSpan = [number, number, string];

/** `renditions.json`: the kept documents of a release, by path under public/. */
interface RenditionsFile {
  readonly layout: number;
  readonly files: Record<string, { key: string; reads?: readonly string[]; holes?: HoleSpan[] }>;
}

async function nextReleaseId(out: string, tip: string): Promise<string> {
  const existing = await readdir(paths.releases(out)).catch(() => [] as string[]);
  const numbers = existing.map((name) => Number.parseInt(name, 10)).filter(Number.isFinite);
  const next = (numbers.length > 0 ? Math.max(...numbers) : 0) + 1;
  return `${String(next).padStart(6, '0')}-${tip.slice(0, 12)}`;
}

const SOURCES = fileURLToPath(new URL('../src/', import.meta.url));
const WRITERS_FILE = fileURLToPath(new URL('./writers.ts', import.meta.url));
/** The versions of the libraries that compose (CycloneDX, the sitemap and feed writers, badge-maker, ...). */
const LOCK_FILE = fileURLToPath(new URL('../package-lock.json', import.meta.url));

let codeVersionOnce: Promise<string> | null = null;

/**
 * The version of the code that composes and renders the documents: every source of src/ and of
 * the site (build/site.ts), the writers and the locked libraries. Another version renders every
 * document again.
 */
function codeVersion(): Promise<string> {
  codeVersionOnce ??= (async () => {
    const files = (await readdir(SOURCES, { recursive: true })).filter((file) => file.endsWith('.ts')).sort();
    const parts = [await siteSourceHash(), await readFile(WRITERS_FILE, 'utf8'), await readFile(LOCK_FILE, 'utf8').catch(() => 'no lock file')];
    for (const file of files) parts.push(`${file}\n${await readFile(join(SOURCES, file), 'utf8')}`);
    return contentHash(parts.join('\0'));
  })();
  return codeVersionOnce;
}

/** The body of `pieces` with `values` in its holes, and where they sit. */
function fillHoles(pieces: Pieces, values: Readonly<Record<string, string>>): { bytes: Buffer; holes: HoleSpan[] } {
  const parts: Buffer[] = [];
  const holes: HoleSpan[] = [];
  let at = 0;
  pieces.pieces.forEach((piece, index) => {
    const bytes = Buffer.from(piece, 'utf8');
    parts.push(bytes);
    at += bytes.length;
    if (index === pieces.holes.length) return;
    const value = Buffer.from(holeValue(values, pieces.holes[index]), 'utf8');
    holes.push([at, value.length, pieces.holes[index]]);
    parts.push(value);
    at += value.length;
  });
  return { bytes: Buffer.concat(parts), holes };
}

/** A kept file with `values` in place of the previous tip's, and where they now sit. */
function spliceHoles(previous: Buffer, spans: readonly HoleSpan[], values: Readonly<Record<string, string>>): { bytes: Buffer; holes: HoleSpan[] } {
  const parts: Buffer[] = [];
  const holes: HoleSpan[] = [];
  let from = 0;
  let at = 0;
  for (const [start, length, hole] of spans) {
    parts.push(previous.subarray(from, start));
    at += start - from;
    const value = Buffer.from(holeValue(values, hole), 'utf8');
    holes.push([at, value.length, hole]);
    parts.push(value);
    at += value.length;
    from = start + length;
  }
  parts.push(previous.subarray(from));
  return { bytes: Buffer.concat(parts), holes };
}

function holeValue(values: Readonly<Record<string, string>>, hole: string): string {
  const value = values[hole];
  if (value === undefined) throw new Error(`a document has a hole "${hole}" its writer gives no value for`);
  return value;
}

/** The files of one release being staged, and what writing them cost. */
class Stage {
  readonly counts: PublishCounts = { rendered: 0, reused: 0, spliced: 0, filesWritten: 0, bytesWritten: 0, filesLinked: 0 };
  /** Files this release wrote (validate.ts reads them); the others are links to checked files. */
  readonly written = new Set<string>();
  readonly renditions: RenditionsFile = { layout: LAYOUT_VERSION, files: {} };
  readonly #dir: string;
  readonly #previous: { publicDir: string; renditions: RenditionsFile } | null;
  /** Directories made: a release writes thousands of files into a few directories. */
  readonly #made = new Set<string>();
  /** Bodies many files share (PublicBody `shared`), by hash: written once into `shared/`, linked. */
  readonly #shared = new Map<string, Promise<string>>();

  constructor(dir: string, previous: { publicDir: string; renditions: RenditionsFile } | null) {
    this.#dir = dir;
    this.#previous = previous;
  }

  get publicDir(): string {
    return paths.public(this.#dir);
  }

  async #directory(file: string): Promise<void> {
    const dir = dirname(file);
    if (!this.#made.has(dir)) {
      await mkdir(dir, { recursive: true });
      this.#made.add(dir);
    }
  }

  /** Writes a file of the release (`path` under the release directory). */
  async write(file: string, body: string | Uint8Array): Promise<void> {
    await this.#directory(file);
    await writeFile(file, body);
    countWritten(body);
    this.counts.filesWritten++;
    this.counts.bytesWritten += typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  }

  async #link(existing: string, file: string): Promise<void> {
    await this.#directory(file);
    await linkFile(existing, file);
    this.counts.filesLinked++;
  }

  /**
   * A body many public files share: written once into the release (`shared/<hash>`) and every
   * file a hard link to it (a link costs a tenth of a write and no data block). Not objects/: what
   * objects/ holds must not depend on which tips were published.
   */
  async linkShared(file: string, body: string | Uint8Array): Promise<void> {
    const hash = contentHash(body);
    let stored = this.#shared.get(hash);
    if (!stored) {
      const sharedFile = paths.sharedBody(this.#dir, hash);
      this.#shared.set(hash, (stored = this.write(sharedFile, body).then(() => sharedFile)));
      // Awaited below, after other awaits: a failure (a full disk) must not count as unhandled meanwhile.
      stored.catch(() => {});
    }
    await this.#link(await stored, join(this.publicDir, file));
  }

  /** A public file composed for this release. */
  async writePublic(file: string, body: string | Uint8Array, spliced = false): Promise<void> {
    await this.write(join(this.publicDir, file), body);
    this.written.add(file);
    if (spliced) this.counts.spliced++;
    else this.counts.rendered++;
  }

  /** A document kept from the previous release when its inputs did not change; rendered otherwise. */
  async place(file: string, rendition: Rendition): Promise<void> {
    const kept = this.#previous?.renditions.files[file];
    const key = kept ? rendition.key(kept.reads) : null;
    if (kept && key !== null && key === kept.key) {
      const previousFile = join(this.#previous!.publicDir, file);
      if (!kept.holes?.length) {
        await this.#link(previousFile, join(this.publicDir, file));
        this.counts.reused++;
        this.renditions.files[file] = kept;
        return;
      }
      const { bytes, holes } = spliceHoles(await readFile(previousFile), kept.holes, rendition.holes ?? {});
      await this.write(join(this.publicDir, file), bytes);
      this.written.add(file);
      this.counts.spliced++;
      this.renditions.files[file] = { key, ...(kept.reads && { reads: kept.reads }), holes };
      return;
    }
    const { body, reads } = await rendition.render();
    const filled = typeof body === 'object' && 'pieces' in body ? fillHoles(body, rendition.holes ?? {}) : { bytes: body, holes: [] };
    await this.write(join(this.publicDir, file), filled.bytes);
    this.written.add(file);
    this.counts.rendered++;
    // Kept for the next release, unless it carries the tip without holes (rendered at the tip when its pieces could not be told apart).
    const newKey = rendition.key(reads);
    if (newKey !== null && (!rendition.holes || filled.holes.length > 0)) {
      this.renditions.files[file] = { key: newKey, ...(reads && { reads }), ...(filled.holes.length > 0 && { holes: filled.holes }) };
    }
  }
}

/** The current release's directory and kept documents, when it has them. */
async function previousRenditions(out: string): Promise<{ publicDir: string; renditions: RenditionsFile } | null> {
  const id = await currentReleaseId(out);
  if (!id) return null;
  const dir = paths.release(out, id);
  const renditions = await readJson<RenditionsFile>(paths.renditions(dir)).catch(() => null);
  return renditions?.layout === LAYOUT_VERSION ? { publicDir: paths.public(dir), renditions } : null;
}

/**
 * Publishes the release of `content`: writes it under a staging name, validates it, and switches
 * `current` to it (`onLive` is told then). Resolves with its id and what it cost.
 */
export async function publishRelease(out: string, content: ReleaseContent, onLive: (id: string) => void = () => {}): Promise<Published> {
  const rows = SERVED.filter((row) => row.publicFile !== undefined);
  const id = await nextReleaseId(out, content.tip.sha);
  const staging = join(paths.releases(out), `.staging-${id}`);
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  const stage = new Stage(staging, await previousRenditions(out));

  const info: ReleaseInfo = { layout: LAYOUT_VERSION, id, tip: content.tip, commitCount: content.chain.length, siteUrl: content.siteUrl, publicSurfaces: [...PUBLIC_SURFACE_IDS] };
  await stage.write(paths.releaseInfo(staging), serialize(info));
  await stage.write(paths.chain(staging), serialize(content.chain));
  await stage.write(paths.names(staging), serialize(Object.fromEntries([...content.names].sort(([a], [b]) => (a < b ? -1 : 1)))));
  await stage.write(paths.diagnostics(staging), serialize(content.diagnostics));

  // A row's files, once placed, for the writers that read them (llms-full.txt reads the mirrors).
  const done = new Map(rows.map((row) => [row.id, Promise.withResolvers<void>()]));
  // A row that fails fails the build below; a reader waiting on it fails with it, nobody else.
  for (const { promise } of done.values()) promise.catch(() => {});
  const context: WriterContext = {
    content,
    codeVersion: await codeVersion(),
    placed: async (rowId, params) => {
      const row = rows.find((candidate) => candidate.id === rowId)!;
      await done.get(rowId)!.promise;
      return readFile(join(stage.publicDir, fillTemplate(row.publicFile!, params)), 'utf8');
    },
  };
  // The rows' writers run side by side: the pages are laid out in worker threads while this one
  // composes the SBOMs and documents.
  await Promise.all(
    rows.map(async (row) => {
      const writer = WRITERS[row.id];
      try {
        if (!writer) throw new Error(`the registry publishes ${row.id} as ${row.publicFile} but the build has no writer for it`);
        const writes: Promise<void>[] = [];
        for await (const { params, query, body, shared, spliced } of writer(context)) {
          const file = fillTemplate(publicFileFor(row, query ?? {}), params);
          const write = isRendition(body) ? stage.place(file, body) : shared ? stage.linkShared(file, body) : stage.writePublic(file, body, spliced);
          // Awaited in batches while the writer composes the next bodies: a write that fails meanwhile
          // (a full disk) fails the build through Promise.all, not the process as an unhandled rejection.
          write.catch(() => {});
          writes.push(write);
          if (writes.length >= 64) await Promise.all(writes.splice(0));
        }
        await Promise.all(writes);
        done.get(row.id)!.resolve();
      } catch (error) {
        done.get(row.id)!.reject(error);
        throw error;
      }
    }),
  );
  // Header rules for serving public/ from a static host (docs/deployment.md).
  await stage.write(join(stage.publicDir, paths.publicFile.headers()), renderHeadersFile());
  await stage.write(paths.staticRules.nginx(staging), renderNginxRules());
  await stage.write(paths.staticRules.nginxGateway(staging), renderNginxRules({ flavour: 'gateway' }));
  await stage.write(paths.renditions(staging), JSON.stringify(stage.renditions));

  await validateRelease(out, staging, { recomposedRecords: content.recomposedRecords, writtenFiles: stage.written, writtenStates: content.writtenStates });
  const final = paths.release(out, id);
  await rename(staging, final);
  const link = `${paths.current(out)}.next-${process.pid}`;
  await rm(link, { force: true });
  await symlink(join('releases', id), link);
  await rename(link, paths.current(out));
  onLive(id);
  // Once live: removing a release unlinks its thousands of files.
  await pruneReleases(out, id);
  return { id, counts: stage.counts };
}

/** Removes staging leftovers of killed builds and all but the newest releases. */
export async function pruneReleases(out: string, keep: string): Promise<void> {
  const entries = (await readdir(paths.releases(out)).catch(() => [] as string[])).sort();
  const releases = entries.filter((name) => !name.startsWith('.'));
  const old = releases.filter((name) => name !== keep).slice(0, Math.max(0, releases.length - 1 - KEEP_RELEASES));
  const staging = entries.filter((name) => name.startsWith('.staging-') && name !== `.staging-${keep}`);
  await Promise.all([...old, ...staging].map((name) => rm(join(paths.releases(out), name), { recursive: true, force: true })));
}
