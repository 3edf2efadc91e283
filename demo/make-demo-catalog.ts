/**
 * Generates the demo catalog repository: `npx node demo/make-demo-catalog.ts <dir>`
 * (or `npm run demo:catalog -- <dir>`).
 *
 * The packages are in demo/demo-packages.ts, the history in demo/demo-story.ts, advisories in
 * demo/demo-advisories.ts and Scorecard results in demo/demo-scorecards.ts. The output is
 * deterministic: the same code produces the same commit shas.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCatalogRepo, type CatalogCommit, type FileContent } from './catalog-writer.ts';
import { DEMO_PACKAGES, demoArchiveSha256, type BuildRecipe, type DemoPackage } from './demo-packages.ts';
import { STORY, type StoryStep } from './demo-story.ts';

const GENERATED_FILES = new Set(['manifest.json', 'build.sh', 'notes.md']);

/** The manifest.json of a package state (CATALOG-FORMAT.md), fields in the documented order. */
export function demoManifest(pkg: DemoPackage): Record<string, unknown> {
  const manifest: Record<string, unknown> = {
    name: pkg.name,
    version: pkg.version,
    description: pkg.description,
    license: pkg.license,
  };
  if (pkg.homepage) manifest.homepage = pkg.homepage;
  if (pkg.repository) manifest.repository = pkg.repository;
  manifest.categories = pkg.categories;
  if (pkg.stars !== undefined) manifest.stars = pkg.stars;
  manifest.archive = { url: archiveUrl(pkg), sha256: demoArchiveSha256(pkg.name, pkg.version) };
  const dependencies: Record<string, string[]> = {};
  if (pkg.build?.length) dependencies.build = pkg.build;
  if (pkg.runtime?.length) dependencies.runtime = pkg.runtime;
  if (Object.keys(dependencies).length > 0) manifest.dependencies = dependencies;
  return manifest;
}

function archiveUrl(pkg: DemoPackage): string {
  return pkg.archive.replaceAll('{version}', pkg.version);
}

/** A readable (never executed) build recipe, so that version diffs have lines to count. */
export function demoBuildScript(pkg: DemoPackage, recipe: BuildRecipe): string {
  const url = archiveUrl(pkg);
  const file = url.slice(url.lastIndexOf('/') + 1);
  const lines = [
    '#!/bin/sh',
    `# Build recipe for ${pkg.name} in the pkgcat demo catalog.`,
    '# Illustrative: pkgcat never runs it. It is here so that version diffs have lines to count.',
    'set -eu',
    '',
    `VERSION=${pkg.version}`,
    `ARCHIVE=${url}`,
    `SHA256=${demoArchiveSha256(pkg.name, pkg.version)}`,
    '',
    `curl -fsSL -o "${file}" "$ARCHIVE"`,
    'mkdir -p src',
    `tar -xf "${file}" -C src --strip-components=1`,
    'cd src',
    '',
  ];
  const continued = (head: string, options: string[]) => {
    const all = [head, ...options];
    all.forEach((line, index) => lines.push(`${index === 0 ? '' : '  '}${line}${index < all.length - 1 ? ' \\' : ''}`));
  };
  switch (recipe.system) {
    case 'cmake':
      continued('cmake -S . -B build -G Ninja', ['-DCMAKE_BUILD_TYPE=Release', `-DCMAKE_INSTALL_PREFIX="$PREFIX"`, ...recipe.options]);
      lines.push('cmake --build build', 'cmake --install build');
      break;
    case 'autotools':
      continued('./configure', ['--prefix="$PREFIX"', ...recipe.options]);
      lines.push('make -j"$(nproc)"', 'make install');
      break;
    case 'make':
      continued('./Configure', ['--prefix="$PREFIX"', ...recipe.options]);
      lines.push('make -j"$(nproc)"', 'make install_sw');
      break;
  }
  return `${lines.join('\n')}\n`;
}

function packageFiles(pkg: DemoPackage): Map<string, string> {
  const dir = `packages/${pkg.name}`;
  const files = new Map<string, string>();
  files.set(`${dir}/manifest.json`, `${JSON.stringify(demoManifest(pkg), null, 2)}\n`);
  if (pkg.recipe) files.set(`${dir}/build.sh`, demoBuildScript(pkg, pkg.recipe));
  if (pkg.notes) files.set(`${dir}/notes.md`, pkg.notes);
  return files;
}

function isGeneratedPath(path: string): boolean {
  const parts = path.split('/');
  return parts.length === 3 && parts[0] === 'packages' && GENERATED_FILES.has(parts[2]!);
}

function contentText(path: string, content: Exclude<FileContent, null>): string | Buffer {
  if (typeof content === 'string' || Buffer.isBuffer(content)) return content;
  if (typeof content === 'object') return `${JSON.stringify(content, null, 2)}\n`;
  throw new Error(`unsupported content for ${path}`);
}

function sameContent(a: string | Buffer | undefined, b: string | Buffer): boolean {
  if (a === undefined) return false;
  return Buffer.from(a).equals(Buffer.from(b));
}

/** The commits of the demo catalog, oldest first, each with only the files that changed. */
export function demoCommits(story: readonly StoryStep[] = STORY): CatalogCommit[] {
  const table = new Map(DEMO_PACKAGES.map((pkg) => [pkg.name, pkg]));
  const present = new Map<string, DemoPackage>();
  /** Files written by steps that persist (advisories, scorecards, README, ...). */
  const extra = new Map<string, string | Buffer>();
  /** What the repository holds after the previous commit. */
  let tree = new Map<string, string | Buffer>();
  const commits: CatalogCommit[] = [];

  story.forEach((step, index) => {
    const where = `story step ${index} (${step.message.split('\n')[0]})`;
    for (const name of step.remove ?? []) {
      if (!present.delete(name)) throw new Error(`${where}: cannot remove ${name}, it is not in the catalog`);
      for (const path of [...extra.keys()]) if (path.startsWith(`packages/${name}/`)) extra.delete(path);
    }
    for (const name of step.add ?? []) {
      const pkg = table.get(name);
      if (!pkg) throw new Error(`${where}: ${name} is not in DEMO_PACKAGES`);
      if (present.has(name)) throw new Error(`${where}: ${name} is already in the catalog`);
      present.set(name, { ...pkg });
    }
    for (const [name, version] of Object.entries(step.upgrade ?? {})) {
      const pkg = present.get(name);
      if (!pkg) throw new Error(`${where}: cannot upgrade ${name}, it is not in the catalog`);
      if (pkg.version === version) throw new Error(`${where}: ${name} is already at ${version}`);
      present.set(name, { ...pkg, version });
    }
    for (const [name, changes] of Object.entries(step.patch ?? {})) {
      const pkg = present.get(name);
      if (!pkg) throw new Error(`${where}: cannot patch ${name}, it is not in the catalog`);
      present.set(name, { ...pkg, ...changes });
    }

    const overrides = new Map<string, FileContent>();
    for (const [path, content] of Object.entries(step.files ?? {})) {
      if (isGeneratedPath(path)) {
        overrides.set(path, content);
      } else if (content === null) {
        extra.delete(path);
      } else {
        extra.set(path, contentText(path, content));
      }
    }

    for (const path of extra.keys()) {
      const owner = path.startsWith('packages/') ? path.split('/')[1]! : null;
      if (owner !== null && !present.has(owner)) throw new Error(`${where}: ${path} belongs to no package in the catalog`);
    }

    const next = new Map<string, string | Buffer>();
    for (const pkg of present.values()) for (const [path, text] of packageFiles(pkg)) next.set(path, text);
    for (const [path, content] of extra) next.set(path, content);
    for (const [path, content] of overrides) {
      if (content === null) next.delete(path);
      else next.set(path, contentText(path, content));
    }

    const files: Record<string, FileContent> = {};
    const paths = [...new Set([...tree.keys(), ...next.keys()])].sort();
    for (const path of paths) {
      const after = next.get(path);
      if (after === undefined) files[path] = null;
      else if (!sameContent(tree.get(path), after)) files[path] = after;
    }
    commits.push({ message: step.message, time: step.time, files });
    tree = next;
  });
  return commits;
}

/** Writes the demo catalog into a new repository at `dir`; returns the commit shas, oldest first. */
export async function makeDemoCatalog(dir: string): Promise<string[]> {
  return createCatalogRepo(dir, demoCommits());
}

async function main(argv: string[]): Promise<number> {
  if (argv.length !== 1 || argv[0] === '--help' || argv[0] === '-h') {
    console.error('usage: node demo/make-demo-catalog.ts <dir>\n\nWrites the pkgcat demo catalog as a new git repository at <dir>.');
    return argv.length === 1 ? 0 : 2;
  }
  const dir = resolve(argv[0]!);
  const shas = await makeDemoCatalog(dir);
  console.log(`${dir}: ${shas.length} commits`);
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(`make-demo-catalog: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    },
  );
}
