/**
 * The catalog's files through their schemas (src/schemas/catalog.ts, src/catalog/parse.ts): every
 * rule of the format, and a reason that names every bad field of a file at once.
 */
import { describe, expect, it } from 'vitest';
import { parseAdvisory, parseManifest, parseScorecard, type Parsed } from '../../src/catalog/parse.ts';
import { describeIssues, fieldPath } from '../../src/schemas/catalog.ts';

const SHA = 'ab'.repeat(32);
const bytes = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));

/** A valid manifest of directory `zlib`, with overrides (`undefined` removes a field). */
function manifestFile(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const file: Record<string, unknown> = {
    name: 'zlib', version: '1.3.1', description: 'A compression library.', license: 'Zlib',
    archive: { url: 'https://zlib.net/zlib-1.3.1.tar.gz', sha256: SHA }, ...overrides,
  };
  for (const [key, value] of Object.entries(file)) if (value === undefined) delete file[key];
  return file;
}

const reason = <T>(parsed: Parsed<T>) => (parsed.ok ? null : parsed.reason);
const value = <T>(parsed: Parsed<T>): T => {
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.value;
};

describe('manifest.json', () => {
  it('fills in the defaults and keeps exactly the fields of the format', () => {
    const parsed = parseManifest(bytes(manifestFile({ extra: true, archive: { url: 'https://zlib.net/z.tgz', sha256: SHA, size: 1 } })), 'zlib');
    expect(parsed).toEqual({
      ok: true,
      warnings: [],
      value: {
        name: 'zlib', version: '1.3.1', description: 'A compression library.', license: 'Zlib',
        categories: [], stars: 0, archive: { url: 'https://zlib.net/z.tgz', sha256: SHA }, dependencies: { build: [], runtime: [] },
      },
    });
    expect(Object.keys(value(parsed))).toEqual(['name', 'version', 'description', 'license', 'categories', 'stars', 'archive', 'dependencies']);
  });

  it('keeps the optional fields, drops repeated categories, and de-duplicates dependencies case-insensitively (first spelling kept)', () => {
    const parsed = value(parseManifest(bytes(manifestFile({
      homepage: 'https://zlib.net', repository: 'https://github.com/madler/zlib', categories: ['compression', 'c', 'compression', 'C'],
      stars: 6000, dependencies: { build: ['CMake', 'cmake', 'ninja', 'CMAKE'], runtime: ['zlib-ng'], test: ['x y'] },
    })), 'zlib'));
    expect(parsed).toMatchObject({
      homepage: 'https://zlib.net', repository: 'https://github.com/madler/zlib', categories: ['compression', 'c', 'C'], stars: 6000,
      dependencies: { build: ['CMake', 'ninja'], runtime: ['zlib-ng'] },
    });
  });

  it.each([
    ['an empty description', { description: '' }],
    ['stars 0', { stars: 0 }],
    ['a very large integer of stars', { stars: 1e20 }],
    ['an empty dependencies object', { dependencies: {} }],
    ['an http archive url', { archive: { url: 'http://zlib.net/z.tgz', sha256: SHA } }],
    ['a git+https archive url (as vcpkg_from_git writes it)', { archive: { url: 'git+https://github.com/madler/zlib@v1.3.1', sha256: SHA } }],
    ['a git+http archive url', { archive: { url: 'git+http://example.org/zlib.git@v1', sha256: SHA } }],
    ['a git+ssh archive url', { archive: { url: 'git+ssh://git@github.com/madler/zlib.git@v1', sha256: SHA } }],
    ['a scheme in capitals', { archive: { url: 'HTTPS://ZLIB.NET/Z.TGZ', sha256: SHA }, homepage: 'HTTP://ZLIB.NET' }],
  ])('accepts %s', (_case, overrides) => {
    expect(reason(parseManifest(bytes(manifestFile(overrides)), 'zlib'))).toBeNull();
  });

  it.each([
    ['the name differs from the directory (case counts)', { name: 'ZLib' }, '"name" must equal its directory name "zlib", not "ZLib"'],
    ['the name breaks the grammar', { name: '-zlib' }, '"name" must be a package name (a letter or digit, then letters, digits, ".", "_" or "-"; at most 128 characters), not "-zlib"; "name" must equal its directory name "zlib", not "-zlib"'],
    ['the name is missing', { name: undefined }, '"name" is required'],
    ['the version is missing', { version: undefined }, '"version" is required'],
    ['the version is a number', { version: 1 }, '"version" must be a string'],
    ['the version is blank', { version: '  ' }, '"version" must not be empty'],
    ['the description is missing', { description: undefined }, '"description" is required'],
    ['the license is empty', { license: '' }, '"license" must not be empty'],
    ['the homepage is null', { homepage: null }, '"homepage" must be a string'],
    ['the repository is a number', { repository: 7 }, '"repository" must be a string'],
    ['categories is a string', { categories: 'compression' }, '"categories" must be an array of strings'],
    ['a category is a number', { categories: ['a', 2] }, '"categories[1]" must be a string'],
    ['stars is negative', { stars: -1 }, '"stars" must be an integer >= 0'],
    ['stars is a fraction', { stars: 1.5 }, '"stars" must be an integer >= 0'],
    ['stars is a string', { stars: '10' }, '"stars" must be an integer >= 0'],
    ['the archive is missing', { archive: undefined }, '"archive" is required'],
    ['the archive is an array', { archive: [] }, '"archive" must be an object {url, sha256}'],
    ['the archive url is missing', { archive: { sha256: SHA } }, '"archive.url" is required'],
    ['the archive url is empty', { archive: { url: '', sha256: SHA } }, '"archive.url" must not be empty'],
    ['the archive url is white space', { archive: { url: ' ', sha256: SHA } }, '"archive.url" must be an http(s), git+http(s) or git+ssh URL, not " "'],
    ['the archive url is a javascript: URL', { archive: { url: 'javascript:alert(1)', sha256: SHA } }, '"archive.url" must be an http(s), git+http(s) or git+ssh URL, not "javascript:alert(1)"'],
    ['the archive url is a file: URL', { archive: { url: 'file:///etc/passwd', sha256: SHA } }, '"archive.url" must be an http(s), git+http(s) or git+ssh URL, not "file:///etc/passwd"'],
    ['the archive url is an ftp: URL', { archive: { url: 'ftp://ftp.gnu.org/z.tgz', sha256: SHA } }, '"archive.url" must be an http(s), git+http(s) or git+ssh URL, not "ftp://ftp.gnu.org/z.tgz"'],
    ['the archive url has no scheme', { archive: { url: 'zlib.net/z.tgz', sha256: SHA } }, '"archive.url" must be an http(s), git+http(s) or git+ssh URL, not "zlib.net/z.tgz"'],
    ['the archive url is a long data: URL (quoted in part)', { archive: { url: `data:,${'x'.repeat(200)}`, sha256: SHA } }, `"archive.url" must be an http(s), git+http(s) or git+ssh URL, not "data:,${'x'.repeat(94)}"... (206 characters)`],
    ['the archive sha256 is missing', { archive: { url: 'https://zlib.net/z.tgz' } }, '"archive.sha256" is required'],
    ['the archive sha256 is uppercase', { archive: { url: 'https://zlib.net/z.tgz', sha256: SHA.toUpperCase() } }, '"archive.sha256" must be 64 lowercase hex characters'],
    ['dependencies is an array', { dependencies: ['cmake'] }, '"dependencies" must be an object {build?, runtime?}'],
    ['dependencies.runtime is a string', { dependencies: { runtime: 'cmake' } }, '"dependencies.runtime" must be an array of package names'],
    ['a dependency breaks the grammar', { dependencies: { build: ['cmake', 'not ok'] } }, '"dependencies.build[1]" must be a package name (a letter or digit, then letters, digits, ".", "_" or "-"; at most 128 characters), not "not ok"'],
    ['a dependency is a number', { dependencies: { build: [3] } }, '"dependencies.build[0]" must be a string'],
  ])('rejects a manifest where %s', (_case, overrides, problems) => {
    expect(reason(parseManifest(bytes(manifestFile(overrides)), 'zlib'))).toBe(`manifest.json: ${problems}`);
  });

  it('names every bad field at once, in the order of the format', () => {
    const file = manifestFile({ version: undefined, stars: -3, archive: { url: 'https://zlib.net/z.tgz', sha256: 'abc' } });
    expect(reason(parseManifest(bytes(file), 'zlib'))).toBe(
      'manifest.json: "version" is required; "stars" must be an integer >= 0; "archive.sha256" must be 64 lowercase hex characters',
    );
  });

  it.each([
    ['not UTF-8', Buffer.from([0x7b, 0xff, 0x7d]), 'manifest.json is not valid UTF-8'],
    ['not JSON', bytes('{"name": "zlib",}'), expect.stringMatching(/^manifest\.json is not valid JSON \(.+\)$/)],
    ['an array', bytes([1]), 'manifest.json is not a JSON object'],
    ['null', bytes('null'), 'manifest.json is not a JSON object'],
  ])('rejects a file that is %s', (_case, input, expected) => {
    expect(reason(parseManifest(input, 'zlib'))).toEqual(expected);
  });

  it.each([
    ['a javascript: URL', 'javascript:alert(1)'],
    ['a javascript: URL in capitals after a space', ' JavaScript:alert(1)'],
    ['a data: URL', 'data:text/html,<script>alert(1)</script>'],
    ['a file: URL', 'file:///etc/passwd'],
    ['a URL without a scheme', 'zlib.net'],
    ['a scheme-relative URL', '//zlib.net'],
    ['an scp-style git address', 'git@github.com:madler/zlib'],
    ['an http URL without the slashes', 'http:zlib.net'],
  ])('drops a homepage or repository that is %s, with one warning each; the package stays', (_case, link) => {
    const parsed = parseManifest(bytes(manifestFile({ homepage: link, repository: link })), 'zlib');
    expect(parsed).toEqual({
      ok: true,
      value: expect.not.objectContaining({ homepage: expect.anything(), repository: expect.anything() }),
      warnings: [
        `manifest.json: "homepage" is not an http(s) URL: ${JSON.stringify(link)}; the field is left out`,
        `manifest.json: "repository" is not an http(s) URL: ${JSON.stringify(link)}; the field is left out`,
      ],
    });
    expect(value(parsed)).toMatchObject({ name: 'zlib', version: '1.3.1' });
  });

  it('quotes at most 100 characters of a long link in its warning', () => {
    const link = `data:,${'y'.repeat(5000)}`;
    const parsed = parseManifest(bytes(manifestFile({ homepage: link })), 'zlib');
    expect(parsed.ok && parsed.warnings).toEqual([`manifest.json: "homepage" is not an http(s) URL: "data:,${'y'.repeat(94)}"... (5006 characters); the field is left out`]);
  });
});

describe('advisories/<id>.json (OSV)', () => {
  const osv = { id: 'ADV-1', modified: '2026-01-01T00:00:00Z', affected: [{ package: { name: 'zlib' }, extra: [1] }], database_specific: { severity: 'HIGH', x: { y: null } } };

  it('passes the record through as read, fields the catalog does not use included', () => {
    expect(parseAdvisory(bytes(osv), 'ADV-1')).toEqual({ ok: true, value: osv, warnings: [] });
  });

  it.each([
    ['the id is missing', { id: undefined }, '"id" is required'],
    ['the id is empty', { id: '' }, '"id" must not be empty'],
    ['the id differs from the file name', { id: 'ADV-2' }, '"id" must equal its file name without ".json" ("ADV-1"), not "ADV-2"'],
    ['modified is missing', { modified: undefined }, '"modified" is required'],
    ['affected is an object', { affected: {} }, '"affected" must be an array'],
    ['withdrawn is null', { withdrawn: null }, '"withdrawn" must be a timestamp string'],
    ['several fields are bad', { id: 'ADV-2', modified: 3, affected: {} }, '"id" must equal its file name without ".json" ("ADV-1"), not "ADV-2"; "modified" must be a string; "affected" must be an array'],
  ])('rejects an advisory where %s', (_case, overrides, problems) => {
    const file: Record<string, unknown> = { ...osv, ...overrides };
    for (const [key, field] of Object.entries(file)) if (field === undefined) delete file[key];
    expect(reason(parseAdvisory(bytes(file), 'ADV-1'))).toBe(`advisory: ${problems}`);
  });

  it('rejects a file that is not JSON', () => {
    expect(reason(parseAdvisory(bytes('{'), 'ADV-1'))).toMatch(/^advisory is not valid JSON \(/);
  });

  it('leaves out each reference whose url is not an http(s) URL, with one warning each; the advisory stays', () => {
    const references = [
      { type: 'ADVISORY', url: 'https://example.org/ADV-1' },
      { type: 'WEB', url: 'javascript:alert(1)' },
      { type: 'PACKAGE' },
      { type: 'FIX', url: 'file:///etc/passwd' },
      { type: 'REPORT', url: 42 },
      { type: 'WEB', url: 'http://example.org/report' },
    ];
    expect(parseAdvisory(bytes({ ...osv, references }), 'ADV-1')).toEqual({
      ok: true,
      value: { ...osv, references: [references[0], references[2], references[5]] },
      warnings: [
        'advisory: "references[1].url" is not an http(s) URL: "javascript:alert(1)"; the reference is left out',
        'advisory: "references[3].url" is not an http(s) URL: "file:///etc/passwd"; the reference is left out',
        'advisory: "references[4].url" must be a string; the reference is left out',
      ],
    });
  });
});

describe('scorecard.json', () => {
  const scorecard = { date: '2026-01-01', score: 7.4, checks: [{ name: 'Maintained', score: 10, details: null, documentation: { url: 'u' } }], metadata: ['x'] };

  it('passes the scorecard through as read', () => {
    expect(parseScorecard(bytes(scorecard))).toEqual({ ok: true, value: scorecard, warnings: [] });
  });

  it.each([-1, 0, 10])('accepts a score of %s', (score) => {
    expect(reason(parseScorecard(bytes({ score, checks: [] })))).toBeNull();
  });

  it.each([
    ['the score is missing', { score: undefined }, '"score" is required'],
    ['the score is above 10', { score: 11 }, '"score" must be a number from 0 to 10, or -1'],
    ['the score is -0.5', { score: -0.5 }, '"score" must be a number from 0 to 10, or -1'],
    ['the checks are missing', { checks: undefined }, '"checks" is required'],
    ['the checks are an object', { checks: {} }, '"checks" must be an array'],
    ['a check is a string', { checks: ['Maintained'] }, '"checks[0]" must be an object with a string "name" and a numeric "score"'],
    ['a check has a bad name and no score', { checks: [{ name: 'A', score: 1 }, { name: 2 }] }, '"checks[1].name" must be a string; "checks[1].score" is required'],
    ['the score and a check are bad', { score: '7', checks: [{ name: 'A', score: '1' }] }, '"score" must be a number from 0 to 10, or -1; "checks[0].score" must be a number'],
  ])('rejects a scorecard where %s', (_case, overrides, problems) => {
    const file: Record<string, unknown> = { ...scorecard, ...overrides };
    for (const [key, field] of Object.entries(file)) if (field === undefined) delete file[key];
    expect(reason(parseScorecard(bytes(file)))).toBe(`scorecard.json: ${problems}`);
  });
});

describe('how problems read', () => {
  it.each([
    [['archive', 'sha256'], 'archive.sha256'],
    [['dependencies', 'build', 2], 'dependencies.build[2]'],
    [['checks', 0, 'name'], 'checks[0].name'],
    [[], ''],
  ])('the path %j reads %j', (path, text) => {
    expect(fieldPath(path)).toBe(text);
  });

  it('quotes each field, and reads a problem of the whole file without quotes', () => {
    expect(describeIssues('manifest.json', [{ path: 'version', message: 'is required' }, { path: '', message: 'must be a JSON object' }])).toBe(
      'manifest.json: "version" is required; must be a JSON object',
    );
  });
});

describe('the limits of a catalog file (docs/catalog-format.md "Limits")', () => {
  const osv = (extra: Record<string, unknown> = {}) => ({ id: 'ADV-1', modified: '2026-01-01T00:00:00Z', ...extra });

  it('takes a name of 128 characters, and names a longer one as a bad name', () => {
    const name = `a${'b'.repeat(127)}`;
    expect(reason(parseManifest(bytes(manifestFile({ name })), name))).toBeNull();
    expect(reason(parseManifest(bytes(manifestFile({ name: `${name}c` })), `${name}c`))).toBe(
      `manifest.json: "name" must be a package name (a letter or digit, then letters, digits, ".", "_" or "-"; at most 128 characters), not "a${'b'.repeat(99)}"... (129 characters)`,
    );
  });

  it('takes an advisory id with a colon, and names one with a space, a percent sign or 129 characters', () => {
    expect(reason(parseAdvisory(bytes(osv({ id: 'RHSA-2026:0001' })), 'RHSA-2026:0001'))).toBeNull();
    const rule = 'must be an advisory id (a letter or digit, then letters, digits, ".", "_", "-" or ":"; at most 128 characters)';
    for (const id of ['ADV 1', '%2e%2e', '.hidden', `A${'1'.repeat(128)}`]) {
      expect(reason(parseAdvisory(bytes(osv({ id })), id))).toMatch(`advisory: "id" ${rule}, not "`);
    }
  });

  it('reads a file of 4 MiB, and names a larger one before reading it', () => {
    const padding = (size: number) => ' '.repeat(size - bytes(manifestFile()).length);
    expect(reason(parseManifest(Buffer.from(JSON.stringify(manifestFile()) + padding(4 * 1024 * 1024)), 'zlib'))).toBeNull();
    expect(reason(parseManifest(Buffer.from(JSON.stringify(manifestFile()) + padding(4 * 1024 * 1024 + 1)), 'zlib'))).toBe('manifest.json is larger than 4 MiB (4194305 bytes)');
  });

  it('reads 32 levels of nesting, and names 33 before parsing (a string holding brackets does not count)', () => {
    const nested = (depth: number) => JSON.stringify(osv({ x: '[[[[{{{{', deep: '@' })).replace('"@"', `${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}`);
    expect(reason(parseAdvisory(Buffer.from(nested(32)), 'ADV-1'))).toBeNull();
    expect(reason(parseAdvisory(Buffer.from(nested(33)), 'ADV-1'))).toBe('advisory nests objects and arrays more than 32 levels deep');
  });

  it('names every string over 65,536 characters and every list over 50,000 entries, with its field', () => {
    expect(reason(parseManifest(bytes(manifestFile({ description: 'd'.repeat(65_536), categories: Array(50_000).fill('c') })), 'zlib'))).toBeNull();
    expect(reason(parseAdvisory(bytes(osv({ details: 'd'.repeat(65_537), affected: [{ versions: Array(50_001).fill('1') }] })), 'ADV-1'))).toBe(
      'advisory: "details" must be at most 65536 characters long, not 65537; "affected[0].versions" must have at most 50000 entries, not 50001',
    );
  });

  it('names at most 10 problems of one file, and counts the others', () => {
    const categories = Array.from({ length: 12 }, (_, index) => index);
    expect(reason(parseManifest(bytes(manifestFile({ categories })), 'zlib'))).toBe(
      `manifest.json: ${categories.slice(0, 10).map((index) => `"categories[${index}]" must be a string`).join('; ')}; and 2 more problems`,
    );
  });
});
