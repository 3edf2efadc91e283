/**
 * The gateway's fixture catalog, a short story written with demo/catalog-writer.ts (deterministic:
 * the same commits give the same shas everywhere):
 *
 *   c0   import zlib 1.3.1 <- openssl <- curl (a dependency chain), ggml <- llama.cpp (a dotted
 *        name), SQLite (mixed case), ticker, `bundle` (a reserved name, shadowed under /api/pkgs/ by
 *        the fixed routes, DECISIONS.md 4) and `diff` (also a path segment of the diff route)
 *   c1   advisory PKGCAT-TEST-0001 on zlib 1.3.1 (transitive for openssl and curl)
 *   c2   leftpad added             c3   leftpad removed (history stays, no lock-state row)
 *   c4..c43  ticker 1.0.1 .. 1.0.40 (its versions.json outgrows the build's precompression floor)
 *   c44  zlib 1.3.2 fixes PKGCAT-TEST-0001
 *   c45  an empty commit whose message carries COLLISION_NONCE, found by find-sha-collision.ts so
 *        that its sha shares its first 7 hex characters with an earlier commit: an ambiguous
 *        prefix over real HTTP
 *   c46..c51  SQLite 3.45.1 .. 3.45.6       c52  plugin-01 .. plugin-30 (depend on curl)
 *   c53  curl 8.1.0, a long description
 *   c54  advisory PKGCAT-TEST-0002 on openssl 3.0.0, active at the tip (the tip): curl and the 30
 *        plugins reach it (plugin-01 -> curl -> openssl); 55 commits, more than 50
 *
 * Changing anything up to c45 changes the shas: run `npx node tests/gateway/find-sha-collision.ts`
 * and paste its nonce (the fixture test says so when the collision is gone).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCatalog } from '../../build/build.ts';
import { createCatalogRepo, type CatalogCommit } from '../../demo/catalog-writer.ts';

/** See find-sha-collision.ts. */
export const COLLISION_NONCE = 3172658;
export const PREFIX_LENGTH = 7;

/** The fixture's clock: hour `n` after 2026-01-01T00:00:00Z. */
export const hour = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, 0) + n * 3_600_000).toISOString().replace('.000Z', 'Z');

function manifest(name: string, version: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    version,
    description: `${name}, a package of the gateway fixture catalog.`,
    license: 'MIT',
    categories: ['fixture'],
    archive: { url: `https://example.invalid/${name}-${version}.tar.gz`, sha256: createHash('sha256').update(`${name}@${version}`).digest('hex') },
    ...extra,
  };
}

/** The files of a commit that writes one package's manifest. */
export const pkg = (name: string, version: string, extra?: Record<string, unknown>) => ({ [`packages/${name}/manifest.json`]: manifest(name, version, extra) });

const ADVISORY = {
  id: 'PKGCAT-TEST-0001',
  modified: '2026-01-01T01:00:00Z',
  published: '2026-01-01T01:00:00Z',
  summary: 'Heap overflow in inflate (fixture)',
  affected: [{ package: { name: 'zlib' }, versions: ['1.3.1'] }],
  database_specific: { severity: 'HIGH' },
};

/**
 * Active at the tip: an advisory's surfaces (its page, its mirror, the feed) have one to show;
 * curl reaches it through openssl, and every plugin through curl (the blast radius). Its summary
 * carries markup characters, which every page must escape.
 */
const ACTIVE_ADVISORY = {
  id: 'PKGCAT-TEST-0002',
  modified: '2026-01-03T06:00:00Z',
  published: '2026-01-03T06:00:00Z',
  summary: 'Certificate check skipped <on renegotiation> (fixture)',
  details: 'A fixture advisory that stays active at the tip.\nIts summary carries markup characters, which every page must escape.',
  affected: [{ package: { name: 'openssl' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '3.0.1' }] }] }],
  references: [{ type: 'ADVISORY', url: 'https://example.invalid/PKGCAT-TEST-0002' }],
  database_specific: { severity: 'MEDIUM' },
};

const TICKER_BUMPS = 40;

/** c0 .. c44: fixed, since c45's nonce depends on every sha before it. */
export const BASE_COMMITS: CatalogCommit[] = [
  {
    message: 'Import the fixture packages\n',
    time: hour(0),
    files: {
      'README.md': 'The gateway fixture catalog.\n',
      ...pkg('zlib', '1.3.1', { categories: ['compression'] }),
      ...pkg('openssl', '3.0.0', { categories: ['crypto'], dependencies: { runtime: ['zlib'] } }),
      ...pkg('curl', '8.0.0', { categories: ['http'], dependencies: { build: ['cmake'], runtime: ['openssl', 'zlib'] } }),
      ...pkg('ggml', '0.1.0', { categories: ['ml'] }),
      ...pkg('llama.cpp', 'b4000', { categories: ['ml'], dependencies: { build: ['ggml'] } }),
      ...pkg('SQLite', '3.45.0', { categories: ['database'] }),
      ...pkg('ticker', '1.0.0'),
      ...pkg('bundle', '0.1.0'),
      ...pkg('diff', '3.10'),
    },
  },
  { message: 'Publish PKGCAT-TEST-0001 for zlib\n', time: hour(1), files: { 'advisories/PKGCAT-TEST-0001.json': ADVISORY } },
  { message: 'Add leftpad\n', time: hour(2), files: pkg('leftpad', '1.0.0') },
  { message: 'Remove leftpad\n', time: hour(3), files: { 'packages/leftpad/manifest.json': null } },
  ...Array.from({ length: TICKER_BUMPS }, (_, index): CatalogCommit => ({
    message: `Bump ticker to 1.0.${index + 1}\n`,
    time: hour(4 + index),
    files: {
      ...pkg('ticker', `1.0.${index + 1}`),
      'packages/ticker/CHANGES.md': Array.from({ length: index + 1 }, (_, line) => `- change ${line + 1}\n`).join(''),
    },
  })),
  { message: 'Upgrade zlib to 1.3.2\n\nFixes PKGCAT-TEST-0001.\n', time: hour(4 + TICKER_BUMPS), files: pkg('zlib', '1.3.2', { categories: ['compression'] }) },
];

/** c45: no file changes; only its message, which carries the nonce. */
export function collisionCommit(nonce: number): CatalogCommit {
  return { message: `Record checkpoint ${nonce}\n`, time: hour(5 + TICKER_BUMPS) };
}

/** Long enough that curl's record is over the gateway's compression floor. */
const CURL_DESCRIPTION = `curl is a command-line tool and library for transferring data with URLs. ${'It speaks many protocols. '.repeat(40)}`;

/** c46 .. c54: free to change (the chain must stay longer than 50 commits for the limit rows). */
export const TAIL_COMMITS: CatalogCommit[] = [
  ...Array.from({ length: 6 }, (_, index): CatalogCommit => ({
    message: `Upgrade SQLite to 3.45.${index + 1}\n`,
    time: hour(6 + TICKER_BUMPS + index),
    files: pkg('SQLite', `3.45.${index + 1}`, { categories: ['database'] }),
  })),
  {
    message: 'Import the plugin packages\n',
    time: hour(12 + TICKER_BUMPS),
    files: Object.assign({}, ...Array.from({ length: 30 }, (_, index) => pkg(`plugin-${String(index + 1).padStart(2, '0')}`, '0.1.0', { dependencies: { runtime: ['curl'] } }))),
  },
  {
    message: 'Upgrade curl to 8.1.0\n',
    time: hour(13 + TICKER_BUMPS),
    files: pkg('curl', '8.1.0', { categories: ['http'], description: CURL_DESCRIPTION, dependencies: { build: ['cmake'], runtime: ['openssl', 'zlib'] } }),
  },
  { message: 'Publish PKGCAT-TEST-0002 for openssl\n', time: hour(14 + TICKER_BUMPS), files: { 'advisories/PKGCAT-TEST-0002.json': ACTIVE_ADVISORY } },
];

export const FIXTURE_COMMITS: CatalogCommit[] = [...BASE_COMMITS, collisionCommit(COLLISION_NONCE), ...TAIL_COMMITS];

/** Commit indexes of the story, for tests that name one. */
export const AT = {
  import: 0,
  advisory: 1,
  leftpadAdded: 2,
  leftpadRemoved: 3,
  zlibFixed: BASE_COMMITS.length - 1,
  collision: BASE_COMMITS.length,
  tip: BASE_COMMITS.length + TAIL_COMMITS.length,
} as const;

export interface Fixture {
  readonly dir: string;
  readonly repo: string;
  readonly out: string;
  /** Oldest first. */
  readonly shas: readonly string[];
  readonly tip: string;
  cleanup(): Promise<void>;
}

/** Writes the fixture repository and builds it into a fresh temporary directory. */
export async function buildFixture(): Promise<Fixture> {
  const dir = await mkdtemp(join(tmpdir(), 'pkgcat-gateway-'));
  const repo = join(dir, 'catalog');
  const out = join(dir, 'out');
  const shas = await createCatalogRepo(repo, FIXTURE_COMMITS);
  await buildCatalog({ repo, out, progress: false, log: () => {} });
  return { dir, repo, out, shas, tip: shas[shas.length - 1], cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** The pairs of shas sharing their first `length` characters. */
export function sharedPrefixes(shas: readonly string[], length = PREFIX_LENGTH): string[][] {
  const groups = new Map<string, string[]>();
  for (const sha of shas) groups.set(sha.slice(0, length), [...(groups.get(sha.slice(0, length)) ?? []), sha]);
  return [...groups.values()].filter((group) => group.length > 1);
}
