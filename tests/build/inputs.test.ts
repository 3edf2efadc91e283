/**
 * A release keeps a document when none of the inputs it read changed (build/inputs.ts). A builder
 * that stays up looks only at the documents its index names as readers of a changed input: a
 * reader the index missed would keep a document made from an old record. These stories check the
 * table's answers with and without the index, as the next release asks them.
 */
import { describe, expect, it } from 'vitest';
import { InputTable, ReaderIndex, storedTable, type StoredInputs, type StoredRow } from '../../build/inputs.ts';

/** The release before: curl's page read curl's record and zlib's card; zlib's page read zlib's record. */
const manifest: [string, { reads: string[] }][] = [
  ['pkgs/curl.html', { reads: ['record:curl', 'card:zlib'] }],
  ['pkgs/zlib.html', { reads: ['record:zlib'] }],
];
const hashesBefore: Record<string, string> = { 'record:curl': 'c1', 'card:zlib': 'z1', 'record:zlib': 'r1' };

function previousTable(readers?: ReaderIndex, rows: Record<string, string> = hashesBefore): StoredInputs {
  const table = storedTable([{ object: 'chunk', entries: Object.entries(rows).map(([input, hash]): [string, StoredRow] => [input, [hash, 1]]) }]);
  return { epoch: 'e', table, reach: undefined, ...(readers && { readers }) };
}

describe('the input table, with and without the index of readers', () => {
  for (const indexed of [false, true]) {
    it(`${indexed ? 'with' : 'without'} the index: keeps the document that read nothing that changed, not the one that read zlib's card`, () => {
      // zlib's card changed (a new version), its record too; curl's record did not.
      const now: Record<string, string> = { ...hashesBefore, 'card:zlib': 'z2', 'record:zlib': 'r2' };
      const table = new InputTable('e', (input) => now[input] ?? '-', previousTable(indexed ? new ReaderIndex(manifest) : undefined));
      expect(table.unchanged('pkgs/curl.html', manifest[0][1].reads)).toBe(false);
      expect(table.unchanged('pkgs/zlib.html', manifest[1][1].reads)).toBe(false);
      // A page that read only curl's record stays.
      expect(table.unchanged('pkgs/curl.md', ['record:curl'])).toBe(true);
    });
  }

  it('names a document rendered again by the inputs it reads now, for the release after', () => {
    const index = new ReaderIndex(manifest);
    const now: Record<string, string> = { ...hashesBefore };
    const table = new InputTable('e', (input) => now[input] ?? '-', previousTable(index));
    // curl's page is rendered again, reading curl's history too.
    table.rendered('pkgs/curl.html', ['record:curl', 'card:zlib', 'history:curl'], manifest[0][1].reads);
    expect(index.readersOf(['history:curl'])).toEqual(new Set(['pkgs/curl.html']));
    expect(index.readersOf(['record:zlib', 'card:zlib'])).toEqual(new Set(['pkgs/zlib.html', 'pkgs/curl.html']));
    expect(table.readersFor(manifest)).toBe(index);
  });

  it('is made again from the manifest once the documents rendered again are as many as it was made with', () => {
    const index = new ReaderIndex(manifest);
    const table = new InputTable('e', (input) => hashesBefore[input] ?? '-', previousTable(index));
    for (let round = 0; round < 3; round++) table.rendered('pkgs/curl.html', manifest[0][1].reads, manifest[0][1].reads);
    expect(index.overgrown).toBe(true);
    const remade = table.readersFor(manifest);
    expect(remade).not.toBe(index);
    expect(remade.readersOf(['card:zlib'])).toEqual(new Set(['pkgs/curl.html']));
  });

  it('holds no index under another epoch (other code or site URL): every document is checked by its key', () => {
    const table = new InputTable('other', (input) => hashesBefore[input] ?? '-', previousTable(new ReaderIndex(manifest)));
    expect(table.unchanged('pkgs/curl.md', ['record:curl'])).toBe(false);
  });

  it('told which packages a builder\'s commits set, hashes their own inputs and every other kind, not the other packages\' records', () => {
    // Release N: curl's and zlib's pages read their records, histories and SBOM closures, and an advisory's reach.
    const rows: Record<string, string> = {
      'record:curl': 'c1', 'history:curl': 'h1', 'sbom-closure:curl': 's1',
      'record:zlib': 'r1', 'history:zlib': 'zh1', 'sbom-closure:zlib': 'zs1', 'advisory:OSV-1': 'a1',
    };
    const pages: [string, { reads: string[] }][] = [
      ['pkgs/curl.html', { reads: ['record:curl', 'history:curl', 'sbom-closure:curl', 'advisory:OSV-1'] }],
      ['pkgs/zlib.html', { reads: ['record:zlib', 'history:zlib', 'sbom-closure:zlib'] }],
    ];
    // zlib shipped a version: its record and history changed, and so did curl's closure, which holds zlib.
    const now: Record<string, string> = { ...rows, 'record:zlib': 'r2', 'history:zlib': 'zh2', 'sbom-closure:curl': 's2', 'sbom-closure:zlib': 'zs2' };
    const asked: string[] = [];
    const previous = { ...previousTable(new ReaderIndex(pages), rows), changedPackages: new Set(['zlib']) };
    const table = new InputTable('e', (input) => (asked.push(input), now[input] ?? '-'), previous);
    expect(table.unchanged('pkgs/curl.html', pages[0][1].reads)).toBe(false);
    expect(table.unchanged('pkgs/zlib.html', pages[1][1].reads)).toBe(false);
    expect(asked.sort()).toEqual(['advisory:OSV-1', 'history:zlib', 'record:zlib', 'sbom-closure:curl', 'sbom-closure:zlib']);
    // A document that read only curl's record stays; so does one reading only the advisory, whose hash is the same.
    expect(table.unchanged('pkgs/curl.md', ['record:curl'])).toBe(true);
    expect(table.unchanged('advisories/OSV-1.md', ['advisory:OSV-1'])).toBe(true);
  });
});
