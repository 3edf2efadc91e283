/**
 * Publishing a tip: the release directory (chain, names, diagnostics and the anonymous public
 * tree) is written under a temporary name, renamed into place, and `current` is switched to it
 * with an atomic symlink rename. Readers see the old release or the new one, never a mix.
 */
import { mkdir, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { countWritten, linkFile, linkFileTree } from '../src/store/atomic.ts';
import { contentHash } from '../src/store/hash.ts';
import { serialize } from '../src/serialize.ts';
import { currentReleaseId, LAYOUT_VERSION, paths, type ReleaseInfo } from '../src/store/layout.ts';
import { fillTemplate, PUBLIC_SURFACE_IDS, publicFileFor, publicFileOwner, SERVED, type SurfaceRow } from '../src/surfaces/registry.ts';
import { renderHeadersFile, renderNginxRules } from '../src/http/static-rules.ts';
import { validateRelease } from './validate.ts';
import { CARRIED_ROWS, DEFERRED_ROWS, WRITERS, type ReleaseContent } from './writers.ts';

export type { ReleaseContent };

/** Releases kept besides the current one, so requests that started on them can finish. */
const KEEP_RELEASES = 3;

async function nextReleaseId(out: string, tip: string): Promise<string> {
  const existing = await readdir(paths.releases(out)).catch(() => [] as string[]);
  const numbers = existing.map((name) => Number.parseInt(name, 10)).filter(Number.isFinite);
  const next = (numbers.length > 0 ? Math.max(...numbers) : 0) + 1;
  return `${String(next).padStart(6, '0')}-${tip.slice(0, 12)}`;
}

/** Directories made by this process: a release writes thousands of files into a few directories. */
const made = new Set<string>();

async function makeDirectory(file: string): Promise<void> {
  const dir = dirname(file);
  if (!made.has(dir)) {
    await mkdir(dir, { recursive: true });
    made.add(dir);
  }
}

async function writeText(file: string, text: string | Uint8Array): Promise<void> {
  await makeDirectory(file);
  await writeFile(file, text);
  countWritten(text);
}

/**
 * Bodies many public files share (PublicBody `shared`): each is written once into the release
 * (`shared/<hash>`) and every file is a hard link to it. A link costs a tenth of a write and no
 * data block. Not objects/: what objects/ holds must not depend on which tips were published.
 */
class SharedBodies {
  readonly #releaseDir: string;
  readonly #written = new Map<string, Promise<string>>();

  constructor(releaseDir: string) {
    this.#releaseDir = releaseDir;
  }

  async #store(hash: string, body: string | Uint8Array): Promise<string> {
    const file = paths.sharedBody(this.#releaseDir, hash);
    await writeText(file, body);
    return file;
  }

  async write(file: string, body: string | Uint8Array): Promise<void> {
    const hash = contentHash(body);
    let stored = this.#written.get(hash);
    if (!stored) this.#written.set(hash, (stored = this.#store(hash, body)));
    await makeDirectory(file);
    await linkFile(await stored, file);
  }
}

/**
 * Publishes the release of `content`. The rows of DEFERRED_ROWS (a document per package composed
 * from its closure: seconds on a large catalog; the documents for agents, crawlers and feed
 * readers) follow in a second release that links every other file of the first: the JSON surfaces
 * of a new commit go live as soon as they are written, and the rest a few seconds later. Until
 * then the gateway composes a missing floating SBOM on request (the same bytes), and the first
 * release carries the previous release's documents (CARRIED_ROWS). Resolves with the id of the
 * last release published.
 */
export async function publishRelease(out: string, content: ReleaseContent, onLive: (id: string, complete: boolean) => void = () => {}): Promise<string> {
  const rows = SERVED.filter((row) => row.publicFile !== undefined);
  const immediate = rows.filter((row) => !DEFERRED_ROWS.has(row.id));
  const previous = await currentReleaseId(out);
  const first = await writeRelease(out, content, immediate, null, previous && CARRIED_ROWS.size > 0 ? previous : null);
  onLive(first, immediate.length === rows.length);
  let last = first;
  if (immediate.length < rows.length) {
    last = await writeRelease(out, content, rows.filter((row) => DEFERRED_ROWS.has(row.id)), { id: first, rows: immediate }, null);
    onLive(last, true);
  }
  // Once, when everything is live: removing a release unlinks its thousands of files.
  await pruneReleases(out, last);
  return last;
}

/**
 * Writes a release with the files of `rows` (and, linked, every public file of `base`, and the
 * files of CARRIED_ROWS of the release `carried`), validates it, and switches `current` to it.
 */
async function writeRelease(
  out: string,
  content: ReleaseContent,
  rows: readonly SurfaceRow[],
  base: { id: string; rows: readonly SurfaceRow[] } | null,
  carried: string | null,
): Promise<string> {
  const id = await nextReleaseId(out, content.tip.sha);
  const staging = join(paths.releases(out), `.staging-${id}`);
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });

  const published = new Set([...rows, ...(base?.rows ?? [])].map((row) => row.id));
  const publicSurfaces = PUBLIC_SURFACE_IDS.filter((rowId) => published.has(rowId));
  const info: ReleaseInfo = { layout: LAYOUT_VERSION, id, tip: content.tip, commitCount: content.chain.length, siteUrl: content.siteUrl, publicSurfaces };
  await writeText(paths.releaseInfo(staging), serialize(info));
  await writeText(paths.chain(staging), serialize(content.chain));
  await writeText(paths.names(staging), serialize(Object.fromEntries([...content.names].sort(([a], [b]) => (a < b ? -1 : 1)))));
  await writeText(paths.diagnostics(staging), serialize(content.diagnostics));

  const publicDir = paths.public(staging);
  // Hard links: a published file is never written again, so sharing it with the next release is safe.
  // Not the files of the rows written here (the first release's carried documents): writing through a link would change them in every release.
  const writing = new Set(rows.map((row) => row.id));
  if (base) await linkFileTree(paths.public(paths.release(out, base.id)), publicDir, (file) => !writing.has(publicFileOwner(file)?.row.id ?? ''));
  // The previous commit's documents, until the second release writes this commit's (writers.ts CARRIED_ROWS).
  if (carried) await carryDocuments(paths.public(paths.release(out, carried)), publicDir);
  const shared = new SharedBodies(staging);
  // The rows' writers run side by side: the pages are laid out in a worker thread while this one
  // composes the SBOMs and documents, so the second release takes about its longest row, not their sum.
  await Promise.all(
    rows.map(async (row) => {
      const writer = WRITERS[row.id];
      if (!writer) throw new Error(`the registry publishes ${row.id} as ${row.publicFile} but the build has no writer for it`);
      const writes: Promise<void>[] = [];
      for await (const { params, query, body, shared: isShared } of writer(content)) {
        const file = join(publicDir, fillTemplate(publicFileFor(row, query ?? {}), params));
        writes.push(isShared ? shared.write(file, body) : writeText(file, body));
        if (writes.length >= 64) await Promise.all(writes.splice(0));
      }
      await Promise.all(writes);
    }),
  );
  // Header rules for serving public/ from a static host (docs/deployment.md); linked from `base`.
  if (!base) await writeText(join(publicDir, paths.publicFile.headers()), renderHeadersFile());
  await writeText(paths.staticRules.nginx(staging), renderNginxRules());
  await writeText(paths.staticRules.nginxGateway(staging), renderNginxRules({ flavour: 'gateway' }));

  await validateRelease(out, staging, { recomposedRecords: content.recomposedRecords, writtenRows: writing, writtenStates: content.writtenStates, storedChecked: base !== null });
  const final = paths.release(out, id);
  await rename(staging, final);
  const link = `${paths.current(out)}.next-${process.pid}`;
  await rm(link, { force: true });
  await symlink(join('releases', id), link);
  await rename(link, paths.current(out));
  return id;
}

/**
 * Top-level folders of public/ that hold files of carried rows only (`pkgs/`: the pages, mirrors
 * and feeds; `advisories/`), and those that hold some (none today, but a row may come).
 */
const topFolderOf = (row: SurfaceRow) => (row.publicFile!.includes('/') ? row.publicFile!.split('/')[0] : null);
const FOLDERS_WITH_CARRIED = new Set(SERVED.filter((row) => row.publicFile && CARRIED_ROWS.has(row.id)).map(topFolderOf).filter((folder) => folder !== null));
const CARRIED_FOLDERS = new Set(
  [...FOLDERS_WITH_CARRIED].filter((folder) => SERVED.every((row) => !row.publicFile || topFolderOf(row) !== folder || CARRIED_ROWS.has(row.id))),
);

/**
 * The previous release's documents (CARRIED_ROWS) in the first release of a build, until the
 * second one brings this commit's. A folder that holds only such files is one symbolic link to the
 * previous release's folder (thousands of hard links took a second of the time a new commit takes
 * to go live); other files of carried rows are hard-linked. The links are relative and stay inside
 * releases/; the previous release outlives the first one's time as `current` (pruning keeps it).
 */
async function carryDocuments(from: string, publicDir: string): Promise<void> {
  const carried = (file: string) => CARRIED_ROWS.has(publicFileOwner(file)?.row.id ?? '');
  await mkdir(publicDir, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(publicDir, entry.name);
    if (entry.isDirectory() && CARRIED_FOLDERS.has(entry.name)) await symlink(relative(publicDir, source), target);
    else if (entry.isDirectory() && FOLDERS_WITH_CARRIED.has(entry.name)) await linkFileTree(source, target, (file) => carried(`${entry.name}/${file}`));
    else if (entry.isFile() && carried(entry.name)) await linkFile(source, target);
  }
}

/** Removes staging leftovers of killed builds and all but the newest releases. */
export async function pruneReleases(out: string, keep: string): Promise<void> {
  const entries = (await readdir(paths.releases(out)).catch(() => [] as string[])).sort();
  const releases = entries.filter((name) => !name.startsWith('.'));
  const old = releases.filter((name) => name !== keep).slice(0, Math.max(0, releases.length - 1 - KEEP_RELEASES));
  const staging = entries.filter((name) => name.startsWith('.staging-') && name !== `.staging-${keep}`);
  await Promise.all([...old, ...staging].map((name) => rm(join(paths.releases(out), name), { recursive: true, force: true })));
}
