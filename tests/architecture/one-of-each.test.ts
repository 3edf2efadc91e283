/**
 * One atomic write, one lock file, one content hash, all in src/store/ (atomic.ts, lock.ts,
 * hash.ts): product code (src/, cli/, build/, gateway/) neither hashes content, nor renames or
 * links files into place, nor creates files exclusively by itself. A failure names file and line.
 */
import { describe, expect, it } from 'vitest';
import { lineOf, listSources, parse, ts, type SourceFile } from './sources.ts';

const PRODUCT = /^(src|cli|build|gateway)\//;

interface Finding {
  readonly file: string;
  readonly line: number;
  readonly what: string;
}

/** What a source does that only src/store/ may do. */
function findings(source: Pick<SourceFile, 'path' | 'text'>): Finding[] {
  const found: Finding[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
      const first = node.arguments[0];
      if (name === 'createHash' && first && ts.isStringLiteral(first) && first.text === 'sha256') {
        found.push({ file: source.path, line: lineOf(node), what: "createHash('sha256'): the content hash is src/store/hash.ts" });
      }
      if (name === 'rename' || name === 'renameSync') found.push({ file: source.path, line: lineOf(node), what: `${name}(): atomic writes are src/store/atomic.ts` });
      if (name === 'link' || name === 'linkSync') found.push({ file: source.path, line: lineOf(node), what: `${name}(): write-once files are src/store/atomic.ts` });
    }
    if (ts.isStringLiteral(node) && (node.text === 'wx' || node.text === 'wx+')) {
      found.push({ file: source.path, line: lineOf(node), what: `'${node.text}': exclusive creation (lock files, write-once files) is src/store/` });
    }
    ts.forEachChild(node, visit);
  };
  visit(parse(source));
  return found;
}

/** Files allowed some of the above, with the reason. */
const EXEMPT: Record<string, RegExp> = {
  // The one place of each.
  'src/store/hash.ts': /createHash/,
  'src/store/atomic.ts': /rename|link|'wx'/,
  // The object packs: a writer creates its pack and index exclusively and appends to them (a record
  // after the bytes it names); a merged pack is renamed into place. Atomic by their own rules (objects.ts).
  'src/store/objects.ts': /rename|'wx\+?'/,
  // Publishing renames the release directory and the `current` symlink into place: a directory swap, not a file write.
  'build/publish.ts': /rename\(\)/,
  // The compiled site's directory is renamed into place once compiled: a directory swap too.
  'build/site.ts': /rename\(\)/,
};

describe('one of each, in src/store/', () => {
  it('no product code hashes content, renames, links or creates files exclusively by itself', () => {
    const sources = listSources().filter((source) => PRODUCT.test(source.path));
    expect(sources.length).toBeGreaterThan(40);
    const offending = sources
      .flatMap(findings)
      .filter((finding) => !EXEMPT[finding.file]?.test(finding.what))
      .map((finding) => `${finding.file}:${finding.line} ${finding.what}`);
    expect(offending).toEqual([]);
  });

  it('sees each of them (the check above cannot pass by seeing nothing)', () => {
    const text = [
      "import { createHash } from 'node:crypto';",
      "const a = createHash('sha256').update(x).digest('hex');",
      "const b = createHash('sha1');",
      'await rename(temporary, file);',
      'await fs.link(temporary, file);',
      "await open(lock, 'wx', 0o600);",
      "// rename(a, b) in a comment, createHash('sha256') too",
    ].join('\n');
    expect(findings({ path: 'gateway/x.ts', text }).map((finding) => finding.line)).toEqual([2, 4, 5, 6]);
  });
});
