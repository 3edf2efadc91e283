/**
 * The import rule of docs/architecture.md: nothing under src/ imports build/, gateway/, demo/ or
 * cli/; the CLI (cli/) is the one place allowed to import everything.
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FORBIDDEN = ['build', 'gateway', 'demo', 'cli'];

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith('.ts')).map((entry) => join(entry.parentPath, entry.name));
}

/** Every relative module specifier of a file: static imports, re-exports and dynamic import(). */
function specifiers(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g)) found.push(match[1]!);
  return found;
}

describe('layers', () => {
  it('src/ imports nothing from build/, gateway/, demo/ or cli/', async () => {
    const offending: string[] = [];
    for (const file of await sources(join(ROOT, 'src'))) {
      for (const specifier of specifiers(await readFile(file, 'utf8'))) {
        const target = relative(ROOT, resolve(dirname(file), specifier)).split(/[\\/]/)[0]!;
        if (FORBIDDEN.includes(target)) offending.push(`${relative(ROOT, file)} imports ${specifier}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it('the CLI lives at the top level, not under src/', async () => {
    await expect(readdir(join(ROOT, 'src', 'cli'))).rejects.toThrow();
    expect((await sources(join(ROOT, 'cli'))).map((file) => relative(ROOT, file)).sort()).toContain('cli/main.ts');
  });
});
