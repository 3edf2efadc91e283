/**
 * Which part of the code may import which. Every import specifier of every TypeScript/JavaScript
 * source (static `import ... from`, `export ... from`, dynamic `import('...')`) is checked, and a
 * failure names the file, the line and the import:
 *
 * - src/compose/, src/schemas/, src/site/ (and the pure modules they use) do no I/O: no I/O module of
 *   Node's, no relative import outside the pure set, and no clock, randomness, environment or
 *   arguments (`process`, `Date.now()`, `new Date()`, `Math.random()`, ...);
 * - src/ imports none of build/, gateway/, cli/, demo/, bench/, tests/ (src/cli/ excepted until
 *   it moves to cli/);
 * - only cli/ (src/cli/ until the move), tests/ and bench/ import gateway/;
 * - gateway/ never imports build/, build/ never imports gateway/;
 * - only tests/ and bench/ import tests/ or bench/ (and bench/ never imports tests/);
 * - nothing imports a file outside the repository.
 */
import { dirname, posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, lineOf, listSources, parse, ts, type SourceFile } from './sources.ts';

/** The part of the code a repository path belongs to: `src`, `gateway`, `cli`, ..., `.` for the root's own files. */
function areaOf(path: string): string {
  if (!path.includes('/')) return '.';
  return path.split('/')[0]!;
}

/** Pure code: composition, the wire schemas, the surface registry, the HTTP tables and the pages' view models, and the leaf modules they share with everyone (no I/O either). */
const PURE_DIRS = ['src/compose/', 'src/schemas/', 'src/surfaces/', 'src/http/', 'src/site/'];
const PURE_MODULES = ['src/grammar.ts', 'src/serialize.ts', 'src/quote.ts', 'src/memo.ts'];
const isPure = (path: string) => PURE_DIRS.some((dir) => path.startsWith(dir)) || PURE_MODULES.includes(path);

/** Node's modules that reach outside the process (files, processes, network, threads, the host). */
const IO_MODULES = new Set([
  'fs', 'fs/promises', 'child_process', 'net', 'http', 'https', 'http2', 'tls', 'dgram', 'dns', 'dns/promises',
  'os', 'worker_threads', 'cluster', 'process', 'readline', 'sqlite', 'inspector', 'v8', 'vm',
]);

const SRC_MAY_NOT_IMPORT = ['build', 'gateway', 'cli', 'demo', 'bench', 'tests'];

interface Violation {
  readonly file: string;
  readonly line: number;
  /** An import, or (`uses`) an expression of pure code. */
  readonly kind: 'imports' | 'uses';
  readonly what: string;
  readonly rule: string;
}

const format = (violation: Violation) => `${violation.file}:${violation.line} ${violation.kind} '${violation.what}': ${violation.rule}`;

/** The repository path a relative specifier names; null for a package or a Node module. */
function resolveRelative(from: string, specifier: string): string | null {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return null;
  return posix.normalize(posix.join(dirname(from), specifier));
}

/** The rule an import of `specifier` from `from` breaks, or null. */
function checkImport(from: string, specifier: string): string | null {
  const source = areaOf(from);
  const target = resolveRelative(from, specifier);
  if (target === null) {
    if (specifier.startsWith('/')) return 'an absolute path: import through a relative path inside the repository';
    const builtin = specifier.replace(/^node:/, '');
    if (isPure(from) && IO_MODULES.has(builtin)) return `pure code (src/compose/, src/schemas/) does no I/O: no ${specifier}`;
    return null;
  }
  if (target === '..' || target.startsWith('../')) return 'a file outside the repository';
  const top = areaOf(target);
  if (isPure(from) && !isPure(target)) return `pure code imports only pure code (${[...PURE_DIRS, ...PURE_MODULES].join(', ')})`;
  if (source === 'src' && SRC_MAY_NOT_IMPORT.includes(top)) return `src/ does not import ${top}/`;
  if (top === 'gateway' && !['gateway', 'cli', 'tests', 'bench'].includes(source)) return 'only cli/, tests/ and bench/ import gateway/';
  if (source === 'gateway' && top === 'build') return 'gateway/ does not import build/';
  if (source === 'build' && top === 'gateway') return 'build/ does not import gateway/';
  if (source === 'bench' && top === 'tests') return 'bench/ does not import tests/ (share a helper through bench/helpers/)';
  if ((top === 'tests' || top === 'bench') && source !== 'tests' && source !== 'bench') return `only tests/ and bench/ import ${top}/`;
  return null;
}

/** Clock, randomness, environment and arguments in pure code (found in the syntax tree, so comments do not count). */
function impurities(source: Pick<SourceFile, 'path' | 'text'>): Violation[] {
  const found: Violation[] = [];
  const add = (node: ts.Node, what: string) =>
    found.push({ file: source.path, line: lineOf(node), kind: 'uses', what, rule: 'pure code reads no clock, randomness, environment or arguments' });
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && (node.text === 'process' || node.text === 'performance')) {
      // A property named `process` (`x.process`, `{ process: ... }`) is not the global.
      const parent = node.parent;
      const isName = (ts.isPropertyAccessExpression(parent) && parent.name === node) || (ts.isPropertyAssignment(parent) && parent.name === node);
      if (!isName) add(node, node.text === 'process' ? `process (${parent.getText()})` : parent.getText());
    }
    if (ts.isPropertyAccessExpression(node)) {
      const text = node.getText();
      if (['Date.now', 'Math.random', 'crypto.randomUUID', 'crypto.getRandomValues'].includes(text)) add(node, text);
    }
    if (ts.isNewExpression(node) && node.expression.getText() === 'Date' && (node.arguments?.length ?? 0) === 0) add(node, 'new Date()');
    if (ts.isCallExpression(node) && node.expression.getText() === 'Date') add(node, 'Date()');
    ts.forEachChild(node, visit);
  };
  visit(parse(source));
  return found;
}

function violationsOf(sources: readonly SourceFile[]): Violation[] {
  const violations: Violation[] = [];
  for (const source of sources) {
    for (const ref of source.imports) {
      const rule = checkImport(source.path, ref.specifier);
      if (rule) violations.push({ file: source.path, line: ref.line, kind: 'imports', what: ref.specifier, rule });
    }
    if (isPure(source.path)) violations.push(...impurities(source));
  }
  return violations;
}

const sources = listSources();
const byPath = new Map(sources.map((source) => [source.path, source]));

describe('import directions', () => {
  it('no source imports against the rules', () => {
    expect(violationsOf(sources).map(format)).toEqual([]);
  });
});

describe('the scan itself (so that the test above cannot pass by seeing nothing)', () => {
  it('reads every part of the code', () => {
    const areas = new Set(sources.map((source) => areaOf(source.path)));
    for (const area of ['src', 'cli', 'build', 'gateway', 'demo', 'bench', 'tests']) expect(areas).toContain(area);
    expect(sources.filter((source) => isPure(source.path)).length).toBeGreaterThan(5);
    expect(sources.length).toBeGreaterThan(100);
    expect(sources.some((source) => source.path.includes('node_modules'))).toBe(false);
  });

  it('sees static imports, export-from and dynamic imports in the real sources', () => {
    const specifiers = (path: string) => byPath.get(path)?.imports.map((ref) => ref.specifier) ?? [];
    expect(specifiers('gateway/app.ts')).toContain('express');
    expect(specifiers('gateway/auth/index.ts')).toContain('./session-store.ts'); // export { ... } from
    expect(specifiers('bench/run.ts')).toContain('./build.ts'); // import('./build.ts')
    expect(specifiers('build/build.ts')).toContain('../src/store/atomic.ts');
  });

  it('reads imports the way the compiler does: comments and strings are not imports', () => {
    const refs = importsOf(
      [
        "import a from './a.ts';",
        "import type { B } from '../b.ts';",
        "export * from './c.ts';",
        "export { d } from './d.ts';",
        "const e = await import('./e.ts');",
        "// import x from './in-a-comment.ts';",
        "const s = \"import y from './in-a-string.ts'\";",
      ].join('\n'),
    );
    expect(refs).toEqual([
      { specifier: './a.ts', line: 1 },
      { specifier: '../b.ts', line: 2 },
      { specifier: './c.ts', line: 3 },
      { specifier: './d.ts', line: 4 },
      { specifier: './e.ts', line: 5 },
    ]);
  });

  it('flags every forbidden direction, and allows the others', () => {
    const forbidden: [string, string][] = [
      ['src/compose/x.ts', 'node:fs'],
      ['src/compose/x.ts', 'fs/promises'],
      ['src/schemas/x.ts', 'node:child_process'],
      ['src/compose/x.ts', '../store/layout.ts'],
      ['src/site/x.ts', 'node:fs/promises'],
      ['src/site/x.ts', '../store/layout.ts'],
      ['src/serialize.ts', 'node:os'],
      ['src/store/x.ts', '../../gateway/errors.ts'],
      ['src/http/x.ts', '../../build/build.ts'],
      ['src/x.ts', '../demo/demo-story.ts'],
      ['src/x.ts', '../cli/main.ts'],
      ['src/store/x.ts', '../../cli/main.ts'],
      ['src/cli/x.ts', '../../gateway/server.ts'],
      ['src/x.ts', '../tests/helpers/catalog.ts'],
      ['demo/x.ts', '../gateway/app.ts'],
      ['build/x.ts', '../gateway/errors.ts'],
      ['gateway/x.ts', '../build/objects.ts'],
      ['bench/x.ts', '../tests/helpers/catalog.ts'],
      ['demo/x.ts', '../bench/lib.ts'],
      ['build/x.ts', '../tests/helpers/catalog.ts'],
      ['tests/x.ts', '../../shared/SPEC.md'],
    ];
    for (const [from, specifier] of forbidden) expect(checkImport(from, specifier), `${from} -> ${specifier}`).not.toBeNull();
    const allowed: [string, string][] = [
      ['src/compose/x.ts', './types.ts'],
      ['src/compose/x.ts', '../serialize.ts'],
      ['src/compose/x.ts', 'ae-cvss-calculator'],
      ['src/store/x.ts', 'node:fs'],
      ['src/compose/x.ts', '../surfaces/registry.ts'],
      ['src/site/x.ts', '../compose/diff.ts'],
      ['cli/x.ts', '../gateway/server.ts'],
      ['cli/x.ts', '../build/build.ts'],
      ['tests/gateway/x.ts', '../../gateway/app.ts'],
      ['tests/x.ts', '../bench/helpers/nginx.ts'],
      ['bench/x.ts', '../gateway/app.ts'],
      ['gateway/x.ts', '../src/store/layout.ts'],
      ['build/x.ts', '../src/compose/diff.ts'],
    ];
    for (const [from, specifier] of allowed) expect(checkImport(from, specifier), `${from} -> ${specifier}`).toBeNull();
  });

  it('finds clock, randomness and environment in pure code, and not in comments or names', () => {
    const found = impurities({
      path: 'src/compose/x.ts',
      text: [
        'const a = Date.now();',
        'const b = new Date();',
        'const c = Math.random();',
        'const d = process.env.HOME;',
        'const e = process.argv[2];',
        '// Date.now() in a comment',
        "const f = new Date('2026-01-01T00:00:00Z');",
        'const g = { process: 1 }.process;',
      ].join('\n'),
    });
    expect(found.map((violation) => violation.line)).toEqual([1, 2, 3, 4, 5]);
  });
});
