/**
 * The hostile catalog: what a careless or hostile contributor can commit, one case per commit,
 * between good commits. Every case must become a diagnostic (or nothing at all) and the build
 * must go on: later commits build, and every page the build lists answers.
 *
 * No vitest import: `npx node` can write it for a look by hand.
 */
import { createHash } from 'node:crypto';
import { Gitlink, SymbolicLink, type CatalogCommit } from '../../demo/catalog-writer.ts';

const time = (hour: number) => new Date(Date.UTC(2026, 1, 1) + hour * 3_600_000).toISOString().replace('.000Z', 'Z');

function manifest(name: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const version = (overrides.version as string | undefined) ?? '1.0.0';
  return {
    name,
    version,
    description: `${name}, a package of the hostile catalog.`,
    license: 'MIT',
    homepage: `https://example.org/${name}`,
    archive: { url: `https://example.org/${name}-${version}.tar.gz`, sha256: createHash('sha256').update(`${name}@${version}`).digest('hex') },
    ...overrides,
  };
}

function advisory(id: string, target: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    modified: '2026-02-01T00:00:00Z',
    published: '2026-02-01T00:00:00Z',
    summary: `${id} in ${target}`,
    affected: [{ package: { name: target, ecosystem: 'fixture' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '9.0.0' }] }] }],
    database_specific: { severity: 'HIGH' },
    ...extra,
  };
}

/** A package name of 300 characters: the name grammar's characters, but longer than a file name may be. */
export const LONG_NAME = `L${'x'.repeat(299)}`;

/** Advisory ids that are not the id grammar: percent signs, spaces, a dot-dot in disguise. */
export const BAD_IDS = ['%2e%2e', 'ADV with spaces', '..%252e'] as const;

/** A valid OSV id with a colon, as Red Hat and openSUSE write theirs: it must be served like any other. */
export const COLON_ID = 'RHSA-2026:0001';

/** `{"id": ..., "database_specific": [[[...]]]}` nested `depth` arrays deep, written without spaces. */
function deeplyNested(id: string, target: string, depth: number): string {
  const text = JSON.stringify(advisory(id, target, { database_specific: '@' }));
  return text.replace('"@"', `${'['.repeat(depth)}${']'.repeat(depth)}`);
}

/** 10,000 OSV ranges, none of which matches zlib's version. */
function manyRanges(): Record<string, unknown>[] {
  return Array.from({ length: 10_000 }, (_, index) => ({
    type: 'ECOSYSTEM',
    events: [{ introduced: `100.${index}` }, { fixed: `100.${index}.1` }],
  }));
}

/**
 * One commit per case (`message` says which), each between good ones; `HOSTILE_CASES[i]` is the
 * message of commit i. The last commit is good again, so the tests see a later commit build.
 */
export const HOSTILE_CATALOG: CatalogCommit[] = [
  {
    message: 'Add zlib and curl, and an advisory against zlib',
    time: time(0),
    files: {
      'packages/zlib/manifest.json': manifest('zlib'),
      'packages/curl/manifest.json': manifest('curl', { dependencies: { runtime: ['zlib'] } }),
      'advisories/ADV-2026-0001.json': advisory('ADV-2026-0001', 'zlib'),
    },
  },
  {
    message: 'Add a package whose name has 300 characters',
    time: time(1),
    files: { [`packages/${LONG_NAME}/manifest.json`]: manifest(LONG_NAME) },
  },
  {
    message: 'Add an advisory nested 100,000 levels deep',
    time: time(2),
    files: { 'advisories/ADV-DEEP.json': deeplyNested('ADV-DEEP', 'zlib', 100_000) },
  },
  {
    message: 'Add a package with a 20 MB description',
    time: time(3),
    files: { 'packages/huge/manifest.json': manifest('huge', { description: 'd'.repeat(20_000_000) }) },
  },
  {
    message: 'Add a package whose description has 100,000 characters',
    time: time(4),
    files: { 'packages/wordy/manifest.json': manifest('wordy', { description: 'w'.repeat(100_000) }) },
  },
  {
    message: 'Add a package in 50,001 categories',
    time: time(5),
    files: { 'packages/sprawl/manifest.json': manifest('sprawl', { categories: Array.from({ length: 50_001 }, (_, index) => `c${index}`) }) },
  },
  {
    message: 'Add advisories whose ids are not URL-safe',
    time: time(6),
    files: Object.fromEntries(BAD_IDS.map((id) => [`advisories/${id}.json`, advisory(id, 'zlib')])),
  },
  {
    message: 'Add an advisory whose id has a colon',
    time: time(7),
    files: { [`advisories/${COLON_ID}.json`]: advisory(COLON_ID, 'curl') },
  },
  {
    message: 'Add a package whose manifest is a symbolic link to zlib\'s',
    time: time(8),
    files: { 'packages/linked/manifest.json': new SymbolicLink('../zlib/manifest.json') },
  },
  {
    message: 'Add a submodule to curl, and a manifest that is a submodule',
    time: time(9),
    files: {
      'packages/curl/vendor/zlib': new Gitlink('1111111111111111111111111111111111111111'),
      'packages/gitlinked/manifest.json': new Gitlink('2222222222222222222222222222222222222222'),
    },
  },
  {
    message: 'Add a package with a script for a homepage and markup in its description',
    time: time(10),
    files: {
      'packages/markup/manifest.json': manifest('markup', {
        homepage: 'javascript:alert(1)',
        description: '<script>alert(1)</script><img src=x onerror=alert(2)> [click](javascript:alert(3))',
      }),
    },
  },
  {
    message: 'Upgrade zlib to 1.0.1 with a 50 MB binary',
    time: time(11),
    files: {
      'packages/zlib/manifest.json': manifest('zlib', { version: '1.0.1' }),
      'packages/zlib/blob.bin': Buffer.alloc(50_000_000),
    },
  },
  {
    message: 'Add a package with 20,000 dependencies',
    time: time(12),
    files: {
      'packages/hub/manifest.json': manifest('hub', {
        dependencies: { runtime: ['zlib', ...Array.from({ length: 19_999 }, (_, index) => `dep-${String(index).padStart(5, '0')}`)] },
      }),
    },
  },
  {
    message: 'Add an advisory with 10,000 ranges',
    time: time(13),
    files: { 'advisories/ADV-RANGES.json': advisory('ADV-RANGES', 'zlib', { affected: [{ package: { name: 'zlib', ecosystem: 'fixture' }, ranges: manyRanges() }] }) },
  },
  {
    message: `A commit message of 1 MB: ${'m'.repeat(1_000_000)}`,
    time: time(14),
    files: { 'packages/curl/notes.txt': 'a recipe note\n' },
  },
  {
    message: Buffer.from([0x41, 0x64, 0x64, 0x20, 0xff, 0xfe, 0x20, 0x6e, 0x6f, 0x74, 0x65, 0x73]),
    time: time(15),
    files: { 'packages/zlib/notes.txt': 'a recipe note\n' },
  },
  {
    message: 'Upgrade curl to 8.0.0',
    time: time(16),
    files: { 'packages/curl/manifest.json': manifest('curl', { version: '8.0.0', dependencies: { runtime: ['zlib'] } }) },
  },
];
