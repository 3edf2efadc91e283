/**
 * Publishing a tip: the release directory (chain, names, diagnostics and the anonymous public
 * tree) is written under a temporary name, renamed into place, and `current` is switched to it
 * with an atomic symlink rename. Readers see the old release or the new one, never a mix.
 */
import { mkdir, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { RawJson, serialize } from '../src/serialize.ts';
import { composeEnvelope } from '../src/compose/package.ts';
import { composeRecentCommits, COMMITS_LIMIT } from '../src/compose/commits.ts';
import { LAYOUT_VERSION, paths, type ReleaseInfo } from '../src/store/layout.ts';
import type { CommitInfo, Diagnostic } from '../src/compose/types.ts';
import { validateRelease } from './validate.ts';
import { isReservedName } from '../src/grammar.ts';
import { renderHeadersFile, renderNginxRules } from '../src/http/static-rules.ts';

/** Releases kept besides the current one, so requests that started on them can finish. */
const KEEP_RELEASES = 3;

export interface ReleaseContent {
  tip: CommitInfo;
  /** Newest first. */
  chain: CommitInfo[];
  /** Serialized package records at the tip, by name key. */
  records: ReadonlyMap<string, string>;
  /** Canonical names at the tip, by name key. */
  names: ReadonlyMap<string, string>;
  diagnostics: readonly Diagnostic[];
}

async function nextReleaseId(out: string, tip: string): Promise<string> {
  const existing = await readdir(paths.releases(out)).catch(() => [] as string[]);
  const numbers = existing.map((name) => Number.parseInt(name, 10)).filter(Number.isFinite);
  const next = (numbers.length > 0 ? Math.max(...numbers) : 0) + 1;
  return `${String(next).padStart(6, '0')}-${tip.slice(0, 12)}`;
}

async function writeText(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
}

export async function publishRelease(out: string, content: ReleaseContent): Promise<string> {
  const id = await nextReleaseId(out, content.tip.sha);
  const staging = join(paths.releases(out), `.staging-${id}`);
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });

  const info: ReleaseInfo = { layout: LAYOUT_VERSION, id, tip: content.tip, commitCount: content.chain.length };
  await writeText(paths.releaseInfo(staging), serialize(info));
  await writeText(paths.chain(staging), serialize(content.chain));
  await writeText(paths.names(staging), serialize(Object.fromEntries([...content.names].sort(([a], [b]) => (a < b ? -1 : 1)))));
  await writeText(paths.diagnostics(staging), serialize(content.diagnostics));

  const publicDir = paths.public(staging);
  await writeText(
    join(publicDir, paths.publicFile.recentCommits()),
    serialize(composeRecentCommits(content.chain, COMMITS_LIMIT.default)),
  );
  const packagesDir = join(publicDir, 'api', 'pkgs');
  await mkdir(packagesDir, { recursive: true });
  const writes: Promise<void>[] = [];
  for (const [key, record] of content.records) {
    const name = content.names.get(key)!;
    // A fixed route wins over a package of the same name (DECISIONS.md 4): its file is not written.
    if (isReservedName(name)) continue;
    writes.push(writeFile(join(publicDir, paths.publicFile.packageRecord(name)), serialize(composeEnvelope(content.tip, new RawJson(record)))));
    if (writes.length >= 64) await Promise.all(writes.splice(0));
  }
  await Promise.all(writes);
  // Header rules for serving public/ from a static host (docs/deployment.md).
  await writeText(join(publicDir, paths.publicFile.headers()), renderHeadersFile());
  await writeText(paths.staticRules.nginx(staging), renderNginxRules());
  await writeText(paths.staticRules.nginxGateway(staging), renderNginxRules({ flavour: 'gateway' }));

  await validateRelease(out, staging);
  const final = paths.release(out, id);
  await rename(staging, final);
  const link = `${paths.current(out)}.next-${process.pid}`;
  await rm(link, { force: true });
  await symlink(join('releases', id), link);
  await rename(link, paths.current(out));
  await pruneReleases(out, id);
  return id;
}

/** Removes staging leftovers of killed builds and all but the newest releases. */
export async function pruneReleases(out: string, keep: string): Promise<void> {
  const entries = (await readdir(paths.releases(out)).catch(() => [] as string[])).sort();
  const releases = entries.filter((name) => !name.startsWith('.'));
  const old = releases.filter((name) => name !== keep).slice(0, Math.max(0, releases.length - 1 - KEEP_RELEASES));
  const staging = entries.filter((name) => name.startsWith('.staging-') && name !== `.staging-${keep}`);
  await Promise.all([...old, ...staging].map((name) => rm(join(paths.releases(out), name), { recursive: true, force: true })));
}
