/**
 * Fixture catalogs on disk: temporary git repositories written with the demo's catalog writer,
 * built with the real build, and read back through the layout the surfaces use.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { buildCatalog, type BuildResult } from '../../build/build.ts';
import { exportRelease } from '../../build/export.ts';
import { assembleBody, currentReleaseId, lookupPackage, paths, readJson, readObject, readStateRoot, type ChunkRef, type ReleaseInfo } from '../../src/store/layout.ts';
import { documentBytes, manifestEntries, documentSources, type ManifestEntry } from '../../src/store/manifest.ts';
import { openObjects } from '../../src/store/objects.ts';
import { createHash } from 'node:crypto';

const cleanup: string[] = [];
// Under Vitest, a test file's directories go when it ends. `npm run screenshots` and `npm run
// lighthouse` import these helpers outside Vitest, where there is no suite to hook.
if (process.env.VITEST) {
  afterAll(async () => {
    await Promise.all(cleanup.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
}

/** A temporary directory removed after the test file. */
export async function temporaryDirectory(prefix = 'pkgcat-test-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  cleanup.push(dir);
  return dir;
}

/** A valid manifest (CATALOG-FORMAT.md), with overrides. */
export function manifest(name: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const version = (overrides.version as string | undefined) ?? '1.0.0';
  return {
    name,
    version,
    description: `${name}, a fixture package.`,
    license: 'MIT',
    homepage: `https://example.org/${name}`,
    archive: { url: `https://example.org/${name}-${version}.tar.gz`, sha256: createHash('sha256').update(`${name}@${version}`).digest('hex') },
    ...overrides,
  };
}

/** An OSV advisory naming one package. */
export function advisory(
  id: string,
  options: { package: string; introduced?: string; fixed?: string; severity?: string; withdrawn?: string; modified?: string },
): Record<string, unknown> {
  const events: Record<string, string>[] = [{ introduced: options.introduced ?? '0' }];
  if (options.fixed) events.push({ fixed: options.fixed });
  return {
    id,
    modified: options.modified ?? '2026-01-01T00:00:00Z',
    published: '2026-01-01T00:00:00Z',
    summary: `${id} in ${options.package}`,
    affected: [{ package: { name: options.package, ecosystem: 'fixture' }, ranges: [{ type: 'ECOSYSTEM', events }] }],
    ...(options.severity ? { database_specific: { severity: options.severity } } : {}),
    ...(options.withdrawn ? { withdrawn: options.withdrawn } : {}),
  };
}

/** A commit time `n` hours after a fixed start, so fixture shas are stable. */
export function hoursLater(n: number): string {
  return new Date(Date.UTC(2026, 0, 1) + n * 3_600_000).toISOString().replace('.000Z', 'Z');
}

export async function build(repo: string, out: string): Promise<BuildResult> {
  return buildCatalog({ repo, out, progress: false, log: () => {} });
}

/** Every sha-pinned body of a commit, as the gateway would serve it. */
export async function pinnedBodies(out: string, sha: string): Promise<Map<string, string>> {
  const root = await readStateRoot(out, sha);
  if (!root) throw new Error(`no state for ${sha}`);
  const bodies = new Map<string, string>();
  bodies.set('listing', (await assembleBody(out, root.listing)).toString('utf8'));
  bodies.set('full', (await assembleBody(out, root.full)).toString('utf8'));
  for (const chunk of root.packages) {
    const entries = JSON.parse((await readObject(out, chunk.object)).toString('utf8')) as Record<string, { deps?: string; versions?: string }>;
    for (const [key, entry] of Object.entries(entries)) {
      if (entry.deps) bodies.set(`deps:${key}`, (await readObject(out, entry.deps)).toString('utf8'));
      if (entry.versions) bodies.set(`versions:${key}`, (await readObject(out, entry.versions)).toString('utf8'));
    }
  }
  if (root.parentDiff) bodies.set('diff', (await readObject(out, root.parentDiff)).toString('utf8'));
  return bodies;
}

export async function pinnedJson<T = any>(out: string, sha: string, which: 'listing' | 'full'): Promise<T> {
  return JSON.parse((await pinnedBodies(out, sha)).get(which)!) as T;
}

export async function depsOf(out: string, sha: string, name: string): Promise<any> {
  const root = (await readStateRoot(out, sha))!;
  const entry = await lookupPackage(out, root, name.toLowerCase());
  return entry?.deps ? JSON.parse((await readObject(out, entry.deps)).toString('utf8')) : null;
}

export async function versionsOf(out: string, sha: string, name: string): Promise<any> {
  const root = (await readStateRoot(out, sha))!;
  const entry = await lookupPackage(out, root, name.toLowerCase());
  return entry?.versions ? JSON.parse((await readObject(out, entry.versions)).toString('utf8')) : null;
}

/** The static export of each published release (`pkgcat export`), made once per release. */
const exports = new Map<string, Promise<string>>();

/** The directory `pkgcat export` wrote the published release of `out` into; null when nothing is published. */
export async function exported(out: string): Promise<string | null> {
  const id = await currentReleaseId(out);
  if (!id) return null;
  let dir = exports.get(`${out}\0${id}`);
  if (!dir) {
    dir = temporaryDirectory('pkgcat-export-').then(async (made) => (await exportRelease(out, made), made));
    exports.set(`${out}\0${id}`, dir);
  }
  return dir;
}

/** One anonymous file of the published release, as `pkgcat export` writes it for a static host. */
export async function exportedFile(out: string, file: string): Promise<Buffer> {
  return readFile(join(paths.public((await exported(out))!), file));
}

/**
 * The anonymous files of the published release, path → text, as `pkgcat export` writes them for a
 * static host (its `public/` tree, `_headers` included).
 */
export async function publicFiles(out: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const dir = await exported(out);
  if (!dir) return files;
  const root = paths.public(dir);
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    files.set(file.slice(root.length + 1), await readFile(file, 'utf8'));
  }
  return files;
}

export async function releaseFile(out: string, name: 'chain.json' | 'names.json' | 'diagnostics.json' | 'release.json'): Promise<any> {
  const id = await currentReleaseId(out);
  return JSON.parse(await readFile(join(paths.release(out, id!), name), 'utf8'));
}

/** The manifest of the release `release` of `out`: path → entry (src/store/manifest.ts). */
export async function releaseManifest(out: string, release: string): Promise<Map<string, ManifestEntry>> {
  const entries = new Map<string, ManifestEntry>();
  for await (const [path, entry] of manifestEntries(openObjects(out), await readJson<ChunkRef[]>(paths.manifest(paths.release(out, release))))) entries.set(path, entry);
  return entries;
}

/** The body of `path` as the release `release` serves it: the stored bytes with the release's tip in their holes and its components in their markers (what the gateway and the export do). */
export async function releaseDocument(out: string, release: string, path: string): Promise<string> {
  const entry = (await releaseManifest(out, release)).get(path)!;
  const { tip } = await readJson<ReleaseInfo>(paths.releaseInfo(paths.release(out, release)));
  const sources = documentSources(openObjects(out), (await readStateRoot(out, tip!.sha))!);
  return (await documentBytes(entry, await readObject(out, entry.object), tip!, path, sources)).toString('utf8');
}
