/**
 * Reading SVG badges as a user's tools do: parsed as XML by libxml2's `xmllint` (Debian package
 * libxml2-utils; .ci/run installs it), never by matching text.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What a parsed badge says: its `<title>` (`label: message`, what screen readers read) and its message's colour. */
export interface ParsedBadge {
  readonly title: string;
  /** The fill of the message's box: the second `rect` of the group of boxes in badge-maker's flat style. */
  readonly messageColor: string;
}

async function withFiles<T>(svgs: readonly string[], use: (files: string[]) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'pkgcat-svg-'));
  try {
    const files = await Promise.all(svgs.map(async (svg, index) => {
      const file = join(dir, `${index}.svg`);
      await writeFile(file, svg);
      return file;
    }));
    return await use(files);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Rejects, with xmllint's message, unless every one of `svgs` is well-formed XML whose root is an SVG `svg` element. */
export async function expectSvgDocuments(svgs: readonly string[]): Promise<void> {
  await withFiles(svgs, async (files) => {
    // One line per file; xmllint fails (non-zero exit) on the first document that is not well-formed.
    const { stdout } = await run('xmllint', ['--xpath', "concat(namespace-uri(/*), ' ', local-name(/*))", ...files], { maxBuffer: 64 * 1024 * 1024 });
    const roots = stdout.split('\n').slice(0, -1);
    if (roots.length !== files.length || roots.some((root) => root !== 'http://www.w3.org/2000/svg svg')) {
      throw new Error(`not every document is an SVG svg element: ${JSON.stringify(roots)}`);
    }
  });
}

/** The title and message colour of a flat-style badge, as parsed by xmllint. */
export async function parseFlatBadge(svg: string): Promise<ParsedBadge> {
  return withFiles([svg], async ([file]) => {
    const xpath = async (expression: string) => (await run('xmllint', ['--xpath', expression, file])).stdout.replace(/\n$/, '');
    return {
      title: await xpath("string(/*[local-name()='svg']/*[local-name()='title'])"),
      messageColor: await xpath("string((//*[local-name()='g']/*[local-name()='rect'])[2]/@fill)"),
    };
  });
}
