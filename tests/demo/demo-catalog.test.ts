import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtemp, readFile, rm, access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendCommits, createCatalogRepo, git, gitBytes, type CatalogCommit } from '../../demo/catalog-writer.ts';
import { demoCommits, makeDemoCatalog } from '../../demo/make-demo-catalog.ts';
import { BAD_COMMIT_INDEX, BAD_COMMIT_PATH, STORY } from '../../demo/demo-story.ts';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `pkgcat-${prefix}-`));
}

/** First-parent chain of main, oldest first: sha, committer unix time, author unix time. */
async function chain(repo: string): Promise<{ sha: string; committed: number; authored: number }[]> {
  const out = await git(repo, ['log', '--first-parent', '--reverse', '--format=%H %ct %at', 'main']);
  return out
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [sha, committed, authored] = line.split(' ');
      return { sha: sha!, committed: Number(committed), authored: Number(authored) };
    });
}

/** The raw message bytes of a commit (everything after the header's blank line). */
async function rawMessage(repo: string, sha: string): Promise<Buffer> {
  const raw = await gitBytes(repo, ['cat-file', 'commit', sha]);
  const end = raw.indexOf('\n\n');
  expect(end).toBeGreaterThan(0);
  return raw.subarray(end + 2);
}

async function paths(repo: string, rev: string): Promise<string[]> {
  const out = await git(repo, ['ls-tree', '-r', '--name-only', '-z', rev]);
  return out.split('\0').filter(Boolean);
}

/** Reads many blobs at one revision with one `git cat-file --batch`. */
async function readBlobs(repo: string, rev: string, files: string[]): Promise<Map<string, Buffer>> {
  const out = await gitBytes(repo, ['cat-file', '--batch'], files.map((file) => `${rev}:${file}\n`).join(''));
  const result = new Map<string, Buffer>();
  let at = 0;
  for (const file of files) {
    const headerEnd = out.indexOf(0x0a, at);
    const header = out.subarray(at, headerEnd).toString('utf8');
    const match = /^[0-9a-f]{40} blob (\d+)$/.exec(header);
    if (!match) throw new Error(`unexpected cat-file header for ${file}: ${header}`);
    const size = Number(match[1]);
    result.set(file, out.subarray(headerEnd + 1, headerEnd + 1 + size));
    at = headerEnd + 1 + size + 1;
  }
  return result;
}

const t = (day: number, hour = 12) => `2026-03-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:00:00Z`;

const SAMPLE: CatalogCommit[] = [
  {
    message: 'Import zlib and curl\n',
    time: t(1),
    files: {
      'packages/zlib/manifest.json': { name: 'zlib', version: '1.3.1' },
      'packages/curl/manifest.json': { name: 'curl', version: '8.17.0' },
      'packages/curl/notes.md': 'notes\n',
      'README.md': 'hello\n',
    },
  },
  { message: 'Upgrade zlib\n\nWith a body.\n', time: t(2), files: { 'packages/zlib/manifest.json': { name: 'zlib', version: '1.3.2' } } },
  { message: '', time: t(3), files: { 'packages/curl/notes.md': null } },
  { message: Buffer.from([0x55, 0x70, 0xff, 0xfe, 0x0a, 0x0a, 0xc3, 0x28]), time: t(4), files: { 'advisories/X-1.json': ['a', 1] } },
  { message: 'Remove curl', time: t(5), files: { 'packages/curl': null } },
];

describe('catalog writer', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('is deterministic: the same commits give the same shas', async () => {
    const root = await tempDir('writer');
    dirs.push(root);
    const a = await createCatalogRepo(join(root, 'a'), SAMPLE);
    const b = await createCatalogRepo(join(root, 'b'), SAMPLE);
    expect(a).toHaveLength(SAMPLE.length);
    for (const sha of a) expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(b).toEqual(a);
    expect(new Set(a).size).toBe(a.length);
  });

  it('writes the commits in order on main with their messages and times', async () => {
    const root = await tempDir('writer');
    dirs.push(root);
    const repo = join(root, 'repo');
    const shas = await createCatalogRepo(repo, SAMPLE);
    const commits = await chain(repo);
    expect(commits.map((c) => c.sha)).toEqual(shas);
    SAMPLE.forEach((commit, index) => {
      expect(commits[index]!.committed).toBe(Date.parse(commit.time) / 1000);
      expect(commits[index]!.authored).toBe(Date.parse(commit.time) / 1000);
    });
    for (const [index, commit] of SAMPLE.entries()) {
      const expected = typeof commit.message === 'string' ? Buffer.from(commit.message) : commit.message;
      expect((await rawMessage(repo, shas[index]!)).equals(expected)).toBe(true);
    }
    expect((await git(repo, ['log', '-1', '--format=%an <%ae>|%cn <%ce>', 'main'])).trim()).toBe(
      'pkgcat demo <demo@example.invalid>|pkgcat demo <demo@example.invalid>',
    );
    expect((await git(repo, ['symbolic-ref', 'HEAD'])).trim()).toBe('refs/heads/main');
    expect((await git(repo, ['rev-parse', '--is-bare-repository'])).trim()).toBe('false');
  });

  it('keeps raw-byte and empty messages byte-exact', async () => {
    const root = await tempDir('writer');
    dirs.push(root);
    const repo = join(root, 'repo');
    const bytes = Buffer.from([0xff, 0x00, 0x80, 0x41, 0x0a, 0x0a, 0x0a]);
    const shas = await createCatalogRepo(repo, [
      { message: bytes, time: t(1) },
      { message: '', time: t(2) },
      { message: Buffer.alloc(0), time: t(3) },
      { message: 'ünïcödé ✓', time: t(4) },
    ]);
    expect((await rawMessage(repo, shas[0]!)).equals(bytes)).toBe(true);
    expect((await rawMessage(repo, shas[1]!)).length).toBe(0);
    expect((await rawMessage(repo, shas[2]!)).length).toBe(0);
    expect((await rawMessage(repo, shas[3]!)).toString('utf8')).toBe('ünïcödé ✓');
  });

  it('applies writes and deletes, and the work tree follows main', async () => {
    const root = await tempDir('writer');
    dirs.push(root);
    const repo = join(root, 'repo');
    const shas = await createCatalogRepo(repo, SAMPLE);
    expect(await paths(repo, shas[0]!)).toEqual([
      'README.md',
      'packages/curl/manifest.json',
      'packages/curl/notes.md',
      'packages/zlib/manifest.json',
    ]);
    expect(await paths(repo, shas[2]!)).toEqual(['README.md', 'packages/curl/manifest.json', 'packages/zlib/manifest.json']);
    // Deleting a directory path removes everything under it.
    expect(await paths(repo, shas[4]!)).toEqual(['README.md', 'advisories/X-1.json', 'packages/zlib/manifest.json']);
    // Objects and arrays are written as pretty JSON with a final newline.
    expect(await readFile(join(repo, 'packages/zlib/manifest.json'), 'utf8')).toBe(
      `${JSON.stringify({ name: 'zlib', version: '1.3.2' }, null, 2)}\n`,
    );
    expect(await readFile(join(repo, 'advisories/X-1.json'), 'utf8')).toBe('[\n  "a",\n  1\n]\n');
    await expect(access(join(repo, 'packages/curl'))).rejects.toThrow();
    expect((await git(repo, ['status', '--porcelain'])).trim()).toBe('');
  });

  it('appends on top of main, deterministically', async () => {
    const root = await tempDir('writer');
    dirs.push(root);
    const whole = await createCatalogRepo(join(root, 'whole'), SAMPLE);
    const repo = join(root, 'split');
    const first = await createCatalogRepo(repo, SAMPLE.slice(0, 2));
    const second = await appendCommits(repo, SAMPLE.slice(2, 3));
    const rest = await appendCommits(repo, SAMPLE.slice(3));
    expect(await appendCommits(repo, [])).toEqual([]);
    expect([...first, ...second, ...rest]).toEqual(whole);
    expect((await chain(repo)).map((c) => c.sha)).toEqual(whole);
    expect(await readFile(join(repo, 'README.md'), 'utf8')).toBe('hello\n');
    expect((await git(repo, ['status', '--porcelain'])).trim()).toBe('');
  });

  it('creates an empty repository and appends the first commit to it', async () => {
    const root = await tempDir('writer');
    dirs.push(root);
    const repo = join(root, 'empty');
    expect(await createCatalogRepo(repo, [])).toEqual([]);
    await expect(git(repo, ['rev-parse', '--verify', 'refs/heads/main'])).rejects.toThrow(/git rev-parse/);
    const shas = await appendCommits(repo, SAMPLE.slice(0, 1));
    expect(shas).toEqual((await createCatalogRepo(join(root, 'other'), SAMPLE.slice(0, 1))));
    await expect(createCatalogRepo(repo, SAMPLE)).rejects.toThrow(/already has a branch main/);
  });

  it('rejects bad input and reports git failures with stderr', async () => {
    const root = await tempDir('writer');
    dirs.push(root);
    await expect(createCatalogRepo(join(root, 'a'), [{ message: 'x', time: 'yesterday' }])).rejects.toThrow(/ISO-8601/);
    await expect(createCatalogRepo(join(root, 'b'), [{ message: 'x', time: t(1), files: { '../escape': 'x' } }])).rejects.toThrow(
      /invalid repository path/,
    );
    await expect(git(root, ['cat-file', '-p', 'no-such-object'])).rejects.toThrow(/no-such-object|Not a valid|not a git repository/);
    await expect(appendCommits(join(root, 'nowhere'), SAMPLE)).rejects.toThrow();
  });
});

// ---------------------------------------------------------------------------------------------
// The demo catalog

interface Problem {
  path: string;
  message: string;
}

function isUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** CATALOG-FORMAT.md "manifest.json", as a test-side validator. */
function validateManifest(dirName: string, text: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return [`not JSON: ${(error as Error).message}`];
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return ['not a JSON object'];
  const m = value as Record<string, unknown>;
  const errors: string[] = [];
  for (const field of ['name', 'version', 'description', 'license']) {
    if (typeof m[field] !== 'string' || (m[field] as string).trim() === '') errors.push(`${field} must be a non-empty string`);
  }
  if (typeof m.name === 'string') {
    if (!NAME.test(m.name)) errors.push(`name ${m.name} does not match the grammar`);
    if (m.name !== dirName) errors.push(`name ${m.name} differs from directory ${dirName}`);
  }
  if (typeof m.description === 'string' && m.description.includes('\n')) errors.push('description must be one paragraph');
  if (m.homepage !== undefined && !isUrl(m.homepage)) errors.push('homepage must be a URL');
  if (m.repository !== undefined && !isUrl(m.repository)) errors.push('repository must be a URL');
  if (m.categories !== undefined && !(Array.isArray(m.categories) && m.categories.every((c) => typeof c === 'string'))) {
    errors.push('categories must be an array of strings');
  }
  if (m.stars !== undefined && !(Number.isInteger(m.stars) && (m.stars as number) >= 0)) errors.push('stars must be an integer >= 0');
  const archive = m.archive as Record<string, unknown> | undefined;
  if (typeof archive !== 'object' || archive === null || Array.isArray(archive)) {
    errors.push('archive must be an object');
  } else {
    if (!isUrl(archive.url)) errors.push('archive.url must be a URL');
    if (typeof archive.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(archive.sha256)) errors.push('archive.sha256 must be 64 lowercase hex');
  }
  if (m.dependencies !== undefined) {
    const deps = m.dependencies as Record<string, unknown>;
    if (typeof deps !== 'object' || deps === null || Array.isArray(deps)) {
      errors.push('dependencies must be an object');
    } else {
      for (const [kind, list] of Object.entries(deps)) {
        if (kind !== 'build' && kind !== 'runtime') errors.push(`unknown dependency kind ${kind}`);
        if (!Array.isArray(list) || !list.every((n) => typeof n === 'string' && NAME.test(n))) {
          errors.push(`dependencies.${kind} must be an array of package names`);
        }
      }
    }
  }
  return errors;
}

function dependencyNames(text: string): string[] {
  const m = JSON.parse(text) as { dependencies?: { build?: string[]; runtime?: string[] } };
  return [...(m.dependencies?.build ?? []), ...(m.dependencies?.runtime ?? [])];
}

describe('demo catalog', () => {
  let root: string;
  let repo: string;
  let shas: string[];

  beforeAll(async () => {
    root = await tempDir('demo');
    repo = join(root, 'catalog');
    shas = await makeDemoCatalog(repo);
  });
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('has at least 30 first-parent commits with the story\'s messages and times', async () => {
    expect(shas.length).toBeGreaterThanOrEqual(30);
    expect(shas).toHaveLength(STORY.length);
    const commits = await chain(repo);
    expect(commits.map((c) => c.sha)).toEqual(shas);
    for (const [index, step] of STORY.entries()) {
      expect(commits[index]!.committed).toBe(Date.parse(step.time) / 1000);
      expect((await rawMessage(repo, shas[index]!)).toString('utf8')).toBe(step.message);
    }
    // Times strictly increase through the year.
    for (let i = 1; i < commits.length; i++) expect(commits[i]!.committed).toBeGreaterThan(commits[i - 1]!.committed);
    expect(STORY[0]!.time.startsWith('2026-')).toBe(true);
  });

  it('is deterministic', async () => {
    const again = await makeDemoCatalog(join(root, 'again'));
    expect(again).toEqual(shas);
    expect(demoCommits()).toEqual(demoCommits());
  });

  it('has about 50 valid packages at the tip, named like their directories', async () => {
    const files = await paths(repo, 'main');
    const manifests = files.filter((p) => /^packages\/[^/]+\/manifest\.json$/.test(p));
    expect(manifests.length).toBeGreaterThanOrEqual(45);
    expect(manifests.length).toBeLessThanOrEqual(60);
    const blobs = await readBlobs(repo, 'main', manifests);
    const problems: Problem[] = [];
    const names: string[] = [];
    for (const path of manifests) {
      const dirName = path.split('/')[1]!;
      names.push(dirName);
      for (const message of validateManifest(dirName, blobs.get(path)!.toString('utf8'))) problems.push({ path, message });
    }
    expect(problems).toEqual([]);
    expect(names.some((name) => name.includes('.'))).toBe(true);
    expect(names).toContain('llama.cpp');
    expect(names.filter((name) => name.includes('.')).length).toBeGreaterThanOrEqual(2);
    // No two directories differ only in case.
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(names.length);
    // At the tip, every dependency resolves (case-insensitively): the dangling one was temporary.
    const known = new Set(names.map((n) => n.toLowerCase()));
    const dangling = manifests.flatMap((path) =>
      dependencyNames(blobs.get(path)!.toString('utf8'))
        .filter((dep) => !known.has(dep.toLowerCase()))
        .map((dep) => `${path} -> ${dep}`),
    );
    expect(dangling).toEqual([]);
    // Both dependency kinds appear, and the expected real relations are there.
    const curl = JSON.parse(blobs.get('packages/curl/manifest.json')!.toString('utf8'));
    expect(curl.dependencies.runtime).toEqual(expect.arrayContaining(['openssl', 'zlib', 'nghttp2']));
    expect(curl.dependencies.build).toEqual(['cmake']);
    const libpng = JSON.parse(blobs.get('packages/libpng/manifest.json')!.toString('utf8'));
    expect(libpng.dependencies.runtime).toContain('zlib');
  });

  it('keeps every manifest valid at every commit except the one bad commit', async () => {
    const broken: string[] = [];
    for (const [index, sha] of shas.entries()) {
      const manifests = (await paths(repo, sha)).filter((p) => /^packages\/[^/]+\/manifest\.json$/.test(p));
      const blobs = await readBlobs(repo, sha, manifests);
      for (const path of manifests) {
        const errors = validateManifest(path.split('/')[1]!, blobs.get(path)!.toString('utf8'));
        if (errors.length > 0) broken.push(`${index} ${path}: ${errors[0]}`);
      }
    }
    expect(broken).toHaveLength(1);
    expect(broken[0]).toMatch(new RegExp(`^${BAD_COMMIT_INDEX} ${BAD_COMMIT_PATH.replaceAll('.', '\\.')}: not JSON`));
  });

  it('has a temporary dangling dependency', async () => {
    const danglingAt: number[] = [];
    for (const [index, sha] of shas.entries()) {
      const manifests = (await paths(repo, sha)).filter((p) => /^packages\/[^/]+\/manifest\.json$/.test(p));
      const known = new Set(manifests.map((p) => p.split('/')[1]!.toLowerCase()));
      const blobs = await readBlobs(repo, sha, manifests);
      const missing = manifests.some((path) => {
        let deps: string[];
        try {
          deps = dependencyNames(blobs.get(path)!.toString('utf8'));
        } catch {
          return false;
        }
        return deps.some((dep) => !known.has(dep.toLowerCase()));
      });
      if (missing) danglingAt.push(index);
    }
    expect(danglingAt.length).toBeGreaterThan(0);
    expect(danglingAt).not.toContain(shas.length - 1);
  });

  it('ships illustrative OSV advisories and demo scorecards', async () => {
    const files = await paths(repo, 'main');
    const advisories = files.filter((p) => p.startsWith('advisories/'));
    expect(advisories.length).toBeGreaterThanOrEqual(5);
    const blobs = await readBlobs(repo, 'main', advisories);
    let withdrawn = 0;
    let cvssOnly = 0;
    for (const path of advisories) {
      const record = JSON.parse(blobs.get(path)!.toString('utf8'));
      expect(path).toBe(`advisories/${record.id}.json`);
      expect(record.id).toMatch(/^PKGCAT-DEMO-2026-\d{4}$/);
      expect(record.summary).toMatch(/illustrative/i);
      expect(record.summary).toMatch(/not a real vulnerability/);
      expect(Date.parse(record.modified)).not.toBeNaN();
      for (const affected of record.affected) {
        expect(affected.package.ecosystem).toBe('pkgcat-demo');
      }
      if (record.withdrawn) withdrawn++;
      if (record.severity && !record.database_specific) {
        expect(record.severity[0].score).toMatch(/^CVSS:3\.1\//);
        cvssOnly++;
      }
    }
    expect(withdrawn).toBe(1);
    expect(cvssOnly).toBe(1);

    const scorecards = files.filter((p) => p.endsWith('/scorecard.json'));
    expect(scorecards.length).toBeGreaterThanOrEqual(5);
    const cards = await readBlobs(repo, 'main', scorecards);
    for (const path of scorecards) {
      const card = JSON.parse(cards.get(path)!.toString('utf8'));
      expect(card.scorecard.version).toBe('demo');
      expect(card.score).toBeGreaterThanOrEqual(-1);
      expect(card.score).toBeLessThanOrEqual(10);
      expect(card.repo.commit).toMatch(/^[0-9a-f]{40}$/);
      for (const check of card.checks) {
        expect(typeof check.name).toBe('string');
        expect(check.score).toBeGreaterThanOrEqual(-1);
        expect(check.score).toBeLessThanOrEqual(10);
        expect(check.documentation.url).toMatch(/^https:\/\//);
      }
    }
    // The zlib scorecard was re-scored at some point of the history.
    const log = await git(repo, ['log', '--first-parent', '--format=%H', 'main', '--', 'packages/zlib/scorecard.json']);
    expect(log.trim().split('\n').length).toBeGreaterThanOrEqual(2);
  });

  it('fixes an advisory with a later upgrade and moves its modified time', async () => {
    const log = await git(repo, ['log', '--first-parent', '--reverse', '--format=%H', 'main', '--', 'advisories/PKGCAT-DEMO-2026-0001.json']);
    const [published, fixed] = log.trim().split('\n');
    expect(published && fixed).toBeTruthy();
    const before = JSON.parse(await git(repo, ['show', `${published}:advisories/PKGCAT-DEMO-2026-0001.json`]));
    const after = JSON.parse(await git(repo, ['show', `${fixed}:advisories/PKGCAT-DEMO-2026-0001.json`]));
    expect(after.modified > before.modified).toBe(true);
    const fixedVersion = after.affected[0].ranges[0].events.find((e: { fixed?: string }) => e.fixed).fixed;
    const manifest = JSON.parse(await git(repo, ['show', `${fixed}:packages/libxml2/manifest.json`]));
    expect(manifest.version).toBe(fixedVersion);
  });
});
