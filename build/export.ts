/**
 * The static export: the published release's anonymous files as a tree a static host or a CDN
 * serves as it is (`pkgcat export`, `pkgcat build --export`; docs/deployment.md).
 *
 *   <dir>/public/          every file of the release's manifest, with the tip's values in its holes,
 *                          and `_headers` (the header rules for Netlify / Cloudflare Pages)
 *   <dir>/static/          the nginx includes for serving `public/` (src/http/static-rules.ts)
 *   <dir>/export.json      what the export holds: the tip, and the name of each file's bytes
 *
 * An export follows the change: a file is written only when its bytes differ from those the
 * export holds (export.json), so exporting the next commit writes the documents it changed and
 * those that carry the tip. Each file is replaced atomically; a host reading the tree while it is
 * exported sees every file old or new, and files of the new tip next to files of the old one
 * until the export ends (export.json is written last).
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../src/store/atomic.ts';
import { currentReleaseId, LAYOUT_VERSION, paths, readJson, readStateRoot, type ChunkRef, type ReleaseInfo } from '../src/store/layout.ts';
import { carriesTip, documentBytes, manifestEntries, documentSources } from '../src/store/manifest.ts';
import { openObjects, readStoredObject } from '../src/store/objects.ts';
import { renderHeadersFile, renderNginxRules } from '../src/http/static-rules.ts';
import { serialize } from '../src/serialize.ts';

/** `<dir>/export.json`. */
interface ExportFile {
  readonly layout: number;
  readonly release: string;
  /** Each file of public/ and the name of its bytes (its object, and the tip when the tip's values are in it). */
  readonly files: Record<string, string>;
}

export interface Exported {
  readonly release: string;
  /** Files written, files left as they were, files removed (no longer in the release). */
  readonly written: number;
  readonly kept: number;
  readonly removed: number;
}

export class ExportError extends Error {
  override name = 'ExportError';
}

const exportFile = (dir: string) => join(dir, 'export.json');

/** What `dir` holds: a previous export, nothing, or something else (refused: an export replaces and removes files). */
async function previousExport(dir: string): Promise<ExportFile | null> {
  const previous = await readJson<ExportFile>(exportFile(dir)).catch(() => null);
  if (previous?.layout === LAYOUT_VERSION) return previous;
  const present = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  if (present.length > 0 && !previous) throw new ExportError(`${dir} is not empty and holds no pkgcat export; export into a new or empty directory`);
  return null;
}

/** Exports the release `current` points to into `dir`. */
export async function exportRelease(out: string, dir: string): Promise<Exported> {
  const id = await currentReleaseId(out);
  if (!id) throw new ExportError(`${out} has no published release yet; run pkgcat build first`);
  const releaseDir = paths.release(out, id);
  const info = await readJson<ReleaseInfo>(paths.releaseInfo(releaseDir));
  if (info.layout !== LAYOUT_VERSION || !info.tip) throw new ExportError(`the release of ${out} cannot be exported: ${info.tip ? `it is of layout ${info.layout}, build it again` : 'the catalog has no commits'}`);
  const tip = info.tip;
  const previous = await previousExport(dir);
  const objects = openObjects(out);
  const root = await readStateRoot(out, tip.sha);
  if (!root) throw new ExportError(`${out} has no state of its release's tip ${tip.sha}; run pkgcat build again`);
  const sources = documentSources(objects, root);
  const publicDir = paths.public(dir);
  const files: Record<string, string> = {};
  let written = 0;
  let kept = 0;
  const made = new Set<string>();
  const write = async (file: string, bytes: string | Uint8Array) => {
    const folder = dirname(file);
    if (!made.has(folder)) {
      await mkdir(folder, { recursive: true });
      made.add(folder);
    }
    await writeFileAtomic(file, bytes, { directoryExists: true });
  };
  const pending: Promise<void>[] = [];
  for await (const [file, entry] of manifestEntries(objects, await readJson<ChunkRef[]>(paths.manifest(releaseDir)))) {
    const name = carriesTip(entry) ? `${entry.object}@${tip.sha}` : entry.object;
    files[file] = name;
    const target = join(publicDir, file);
    if (previous?.files[file] === name && existsSync(target)) {
      kept++;
      continue;
    }
    pending.push((async () => write(target, await documentBytes(entry, await readStoredObject(objects, entry.object), tip, file, sources)))());
    written++;
    if (pending.length >= 32) await Promise.all(pending.splice(0));
  }
  await Promise.all(pending);
  let removed = 0;
  for (const file of Object.keys(previous?.files ?? {})) {
    if (Object.hasOwn(files, file)) continue;
    await rm(join(publicDir, file), { force: true });
    removed++;
  }
  await write(join(publicDir, paths.publicFile.headers()), renderHeadersFile());
  await write(paths.staticRules.nginx(dir), renderNginxRules());
  await write(paths.staticRules.nginxGateway(dir), renderNginxRules({ flavour: 'gateway' }));
  await write(exportFile(dir), serialize({ layout: LAYOUT_VERSION, release: id, files } satisfies ExportFile));
  return { release: id, written, kept, removed };
}
