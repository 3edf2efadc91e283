/**
 * The repository's TypeScript and JavaScript sources, read with the TypeScript compiler's own
 * scanner (not regular expressions), so comments and strings that look like imports are not taken
 * for imports, and every form of import is: `import ... from`, `import '...'`, `export ... from`,
 * `import('...')`, `require('...')`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Top-level directories holding sources (cli/ once src/cli/ moves there), besides the root's config files. */
const SOURCE_DIRS = ['src', 'build', 'gateway', 'cli', 'demo', 'bench', 'tests', 'bin'];
const SOURCE_FILE = /\.(?:[cm]?[tj]s|[tj]sx)$/;

export interface ImportRef {
  /** As written. */
  readonly specifier: string;
  /** 1-based. */
  readonly line: number;
}

export interface SourceFile {
  /** Repository-relative, with `/`. */
  readonly path: string;
  readonly text: string;
  readonly imports: readonly ImportRef[];
}

function walk(dir: string, found: string[]): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return; // a directory that does not exist (yet): cli/ before the move
  }
  for (const entry of entries) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, found);
    else if (entry.isFile() && SOURCE_FILE.test(entry.name)) found.push(path);
  }
}

/** Every import specifier of a source text, with its line. */
export function importsOf(text: string): ImportRef[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  const lineOf = (pos: number) => text.slice(0, pos).split('\n').length;
  return importedFiles.map((file) => ({ specifier: file.fileName, line: lineOf(file.pos) }));
}

export function readSource(path: string): SourceFile {
  const text = readFileSync(join(ROOT, path), 'utf8');
  return { path, text, imports: importsOf(text) };
}

/** Every source file of the repository (the source directories and the root's own files). */
export function listSources(): SourceFile[] {
  const files: string[] = [];
  for (const entry of readdirSync(ROOT, { withFileTypes: true })) {
    if (entry.isFile() && SOURCE_FILE.test(entry.name)) files.push(join(ROOT, entry.name));
  }
  for (const dir of SOURCE_DIRS) walk(join(ROOT, dir), files);
  return files.map((file) => readSource(relative(ROOT, file).split(sep).join('/'))).sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** The syntax tree of a source, for checks on code rather than on text (comments do not count). */
export function parse(source: Pick<SourceFile, 'path' | 'text'>): ts.SourceFile {
  return ts.createSourceFile(source.path, source.text, ts.ScriptTarget.Latest, true);
}

export function lineOf(node: ts.Node): number {
  const file = node.getSourceFile();
  return file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
}

export { ts };
