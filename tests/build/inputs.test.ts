/**
 * A release keeps a document when none of the inputs it read changed (build/inputs.ts): a document
 * kept wrongly would serve what an old record said. These stories check the table's answers as the
 * next release asks them, and that the reads a release holds numbered are stored as the names read.
 */
import { describe, expect, it } from 'vitest';
import { InputNames, InputTable, storedTable, type StoredInputs, type StoredRow } from '../../build/inputs.ts';

/** The release before: curl's page read curl's record and zlib's card; zlib's page read zlib's record. */
const hashesBefore: Record<string, string> = { 'record:curl': 'c1', 'card:zlib': 'z1', 'record:zlib': 'r1' };

function previousTable(rows: Record<string, string> = hashesBefore, epoch = 'e'): StoredInputs {
  const table = storedTable([{ object: 'chunk', entries: Object.entries(rows).map(([input, hash]): [string, StoredRow] => [input, [hash, 1]]) }]);
  return { epoch, table, reach: undefined };
}

describe('the input table', () => {
  it("keeps the document that read nothing that changed, not the ones that read zlib's card or record", () => {
    const names = new InputNames();
    // zlib's card changed (a new version), its record too; curl's record did not.
    const now: Record<string, string> = { ...hashesBefore, 'card:zlib': 'z2', 'record:zlib': 'r2' };
    const table = new InputTable('e', (input) => now[input] ?? '-', previousTable(), names);
    expect(table.unchanged(names.list(['record:curl', 'card:zlib']))).toBe(false);
    expect(table.unchanged(names.list(['record:zlib']))).toBe(false);
    // A page that read only curl's record stays.
    expect(table.unchanged(names.list(['record:curl']))).toBe(true);
  });

  it('vouches for no input it does not hold, nor for one whose last reader was rendered again without it', () => {
    const names = new InputNames();
    const table = new InputTable('e', (input) => hashesBefore[input] ?? '-', previousTable(), names);
    // A document the counts missed: it claims an input the table never held.
    expect(table.unchanged(names.list(['record:curl', 'history:curl']))).toBe(false);
    expect(table.unchanged(names.list(['record:zlib']))).toBe(true);
    // zlib's page, the one reader of zlib's record, is rendered again reading its card instead: the record leaves the table.
    table.rendered(names.list(['card:zlib']), names.list(['record:zlib']));
    expect(table.unchanged(names.list(['record:zlib']))).toBe(false);
    expect(table.unchanged(names.list(['card:zlib']))).toBe(true);
  });

  it('vouches for nothing under another epoch (other code or site URL): every document is checked by its key', () => {
    const names = new InputNames();
    const table = new InputTable('other', (input) => hashesBefore[input] ?? '-', previousTable(), names);
    expect(table.unchanged(names.list(['record:curl']))).toBe(false);
  });

  it("told which packages a builder's commits set, hashes their own inputs and every other kind, not the other packages' records", () => {
    // Release N: curl's and zlib's pages read their records, histories and SBOM closures, and an advisory's reach.
    const rows: Record<string, string> = {
      'record:curl': 'c1', 'history:curl': 'h1', 'sbom-closure:curl': 's1',
      'record:zlib': 'r1', 'history:zlib': 'zh1', 'sbom-closure:zlib': 'zs1', 'advisory:OSV-1': 'a1',
    };
    // zlib shipped a version: its record and history changed, and so did curl's closure, which holds zlib.
    const now: Record<string, string> = { ...rows, 'record:zlib': 'r2', 'history:zlib': 'zh2', 'sbom-closure:curl': 's2', 'sbom-closure:zlib': 'zs2' };
    const asked: string[] = [];
    const names = new InputNames();
    const table = new InputTable('e', (input) => (asked.push(input), now[input] ?? '-'), { ...previousTable(rows), changedPackages: new Set(['zlib']) }, names);
    expect(table.unchanged(names.list(['record:curl', 'history:curl', 'sbom-closure:curl', 'advisory:OSV-1']))).toBe(false);
    expect(table.unchanged(names.list(['record:zlib', 'history:zlib', 'sbom-closure:zlib']))).toBe(false);
    expect(asked.sort()).toEqual(['advisory:OSV-1', 'history:zlib', 'record:zlib', 'sbom-closure:curl', 'sbom-closure:zlib']);
    // A document that read only curl's record stays; so does one reading only the advisory, whose hash is the same.
    expect(table.unchanged(names.list(['record:curl']))).toBe(true);
    expect(table.unchanged(names.list(['advisory:OSV-1']))).toBe(true);
  });
});

describe("a document's reads, held numbered", () => {
  it('are stored and given back as the names read, in order, past 65,536 names', () => {
    const names = new InputNames();
    for (let index = 0; index < 70_000; index++) names.id(`record:pkg-${index}`);
    const reads = ['record:pkg-69999', 'name:zlib', 'record:pkg-0', 'record:pkg-65536'];
    const list = names.list(reads);
    expect([...list]).toEqual(reads);
    expect(JSON.stringify({ 'pkgs/curl.html': { object: 'o', reads: list } })).toBe(
      '{"pkgs/curl.html":{"object":"o","reads":["record:pkg-69999","name:zlib","record:pkg-0","record:pkg-65536"]}}',
    );
  });
});
