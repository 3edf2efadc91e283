/** The catalog reader: the first-parent chain, changed paths, messages, diff stats, clear errors. */
import { mkdir } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendCommits, createCatalogRepo, git } from '../../demo/catalog-writer.ts';
import { CatalogRepo, CatalogRepoError, firstLine } from '../../src/catalog/git.ts';
import { hoursLater, temporaryDirectory } from '../helpers/catalog.ts';

describe('the first-parent chain of main (CATALOG-FORMAT.md History)', () => {
  let repo: string;
  let main: string[];
  let side: string;
  let merge: string;

  beforeAll(async () => {
    repo = `${await temporaryDirectory()}/catalog`;
    main = await createCatalogRepo(repo, [
      { message: 'one', time: hoursLater(0), files: { 'packages/a/manifest.json': '{}\n' } },
      { message: 'two', time: hoursLater(1), files: { 'packages/b/manifest.json': '{}\n' } },
    ]);
    // A side branch merged with --no-ff: its commit is not a catalog state; the merge diffs against its first parent.
    await git(repo, ['checkout', '-q', '-b', 'side', main[0]]);
    await git(repo, ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-q', '--allow-empty', '-m', 'side only']);
    await mkdir(`${repo}/packages/c`, { recursive: true });
    await git(repo, ['checkout', '-q', 'side']);
    await import('node:fs/promises').then((fs) => fs.writeFile(`${repo}/packages/c/manifest.json`, '{}\n'));
    await git(repo, ['add', '.']);
    await git(repo, ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-q', '-m', 'side adds c']);
    side = (await git(repo, ['rev-parse', 'HEAD'])).trim();
    await git(repo, ['checkout', '-q', 'main']);
    await git(repo, ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'merge', '-q', '--no-ff', 'side', '-m', 'Merge side']);
    merge = (await git(repo, ['rev-parse', 'HEAD'])).trim();
  });

  it('lists only first-parent commits, newest first', async () => {
    const catalog = await CatalogRepo.open(repo);
    try {
      expect(await catalog.chain(await catalog.mainSha())).toEqual([merge, main[1], main[0]]);
    } finally {
      catalog.close();
    }
  });

  it('walks only the commits after a chain read before, when its newest commit is on the chain', async () => {
    const catalog = await CatalogRepo.open(repo);
    try {
      // The chain of main[1] given: the merge's side commits are not walked into.
      expect(await catalog.chain(merge, [main[1], main[0]])).toEqual([merge, main[1], main[0]]);
      expect(await catalog.chain(merge, [merge, main[1], main[0]])).toEqual([merge, main[1], main[0]]);
      // A chain whose newest commit is not on main's first-parent chain (the side branch's) is not used.
      expect(await catalog.chain(merge, [side, main[0]])).toEqual([merge, main[1], main[0]]);
      // Nor one ahead of the tip (main moved back).
      expect(await catalog.chain(main[1], [merge, main[1], main[0]])).toEqual([main[1], main[0]]);
    } finally {
      catalog.close();
    }
  });

  it('logs each commit oldest first with its changes against the first parent', async () => {
    const catalog = await CatalogRepo.open(repo);
    try {
      const logged = await catalog.log(merge, null);
      expect(logged.map((commit) => commit.sha)).toEqual([main[0], main[1], merge]);
      expect(logged[0]).toMatchObject({ parent: null, pushedAt: '2026-01-01T00:00:00Z' });
      expect(logged[0].changes).toEqual([{ path: 'packages/a/manifest.json', oldBlob: null, newBlob: expect.stringMatching(/^[0-9a-f]{40}$/) }]);
      expect(logged[2].parent).toBe(main[1]);
      expect(logged[2].changes.map((change) => change.path)).toEqual(['packages/c/manifest.json']);
      expect(logged.map((commit) => commit.sha)).not.toContain(side);
      expect((await catalog.log(merge, main[0])).map((commit) => commit.sha)).toEqual([main[1], merge]);
    } finally {
      catalog.close();
    }
  });

  it('reads blobs and commit messages through one cat-file process', async () => {
    const catalog = await CatalogRepo.open(repo);
    try {
      const [first] = await catalog.log(main[0], null);
      expect((await catalog.readObject(first.changes[0].newBlob!))?.toString()).toBe('{}\n');
      expect(await catalog.readObject('0'.repeat(40))).toBeNull();
      const infos = await catalog.commitInfos([{ sha: main[0], pushedAt: 'x' }, { sha: merge, pushedAt: 'y' }]);
      expect(infos.map((info) => info.message)).toEqual(['one', 'Merge side']);
    } finally {
      catalog.close();
    }
  });
});

describe('commit messages (CATALOG-FORMAT.md: first line, null when empty or not UTF-8)', () => {
  it.each([
    ['plain', 'Add zlib\n\nbody', 'Add zlib'],
    ['leading blank lines', '\n\nAdd zlib', 'Add zlib'],
    ['empty', '', null],
    ['only spaces', '   \n', null],
    ['UTF-8', 'Añade zlib ✓', 'Añade zlib ✓'],
  ])('%s', (_case, message, expected) => {
    expect(firstLine(Buffer.from(message, 'utf8'))).toBe(expected);
  });

  it('is null for bytes that are not valid UTF-8, read from a real commit', async () => {
    const repo = `${await temporaryDirectory()}/catalog`;
    const [bad, empty] = await createCatalogRepo(repo, [
      { message: Buffer.from([0x55, 0x70, 0xff, 0xfe, 0x0a]), time: hoursLater(0) },
      { message: '', time: hoursLater(1) },
    ]);
    const catalog = await CatalogRepo.open(repo);
    try {
      const infos = await catalog.commitInfos([{ sha: bad, pushedAt: '' }, { sha: empty, pushedAt: '' }]);
      expect(infos.map((info) => info.message)).toEqual([null, null]);
    } finally {
      catalog.close();
    }
  });
});

describe('diff stats per package directory', () => {
  it('counts files and lines as git --numstat does, from nothing and between two commits', async () => {
    const repo = `${await temporaryDirectory()}/catalog`;
    const [first, second] = await createCatalogRepo(repo, [
      { message: 'a', time: hoursLater(0), files: { 'packages/a/x.txt': '1\n2\n3\n', 'packages/a/y.bin': Buffer.from([0, 1, 2]), 'packages/b/z.txt': 'z\n' } },
      { message: 'b', time: hoursLater(1), files: { 'packages/a/x.txt': '1\nTWO\n3\n4\n', 'packages/a/y.bin': null } },
    ]);
    const catalog = await CatalogRepo.open(repo);
    try {
      expect(await catalog.diffStats(first, [{ dir: 'packages/a', from: null }, { dir: 'packages/b', from: null }])).toEqual([
        { filesChanged: 2, linesAdded: 3, linesRemoved: 0 },
        { filesChanged: 1, linesAdded: 1, linesRemoved: 0 },
      ]);
      expect(await catalog.diffStats(second, [{ dir: 'packages/a', from: first }])).toEqual([{ filesChanged: 2, linesAdded: 2, linesRemoved: 1 }]);
    } finally {
      catalog.close();
    }
  });

  it('counts files in subfolders, a folder that did not exist before, and nothing for an unchanged folder', async () => {
    const repo = `${await temporaryDirectory()}/catalog`;
    const [first, second] = await createCatalogRepo(repo, [
      { message: 'a', time: hoursLater(0), files: { 'packages/a/x.txt': '1\n', 'packages/b/z.txt': 'z\n' } },
      { message: 'b', time: hoursLater(1), files: { 'packages/a/patches/fix.patch': '-a\n+b\n', 'packages/c/new.txt': 'c\nc\n' } },
    ]);
    const catalog = await CatalogRepo.open(repo);
    try {
      // Many at once, as a commit that ships many packages asks them.
      expect(await catalog.diffStats(second, ['packages/a', 'packages/b', 'packages/c'].map((dir) => ({ dir, from: first })))).toEqual([
        { filesChanged: 1, linesAdded: 2, linesRemoved: 0 },
        { filesChanged: 0, linesAdded: 0, linesRemoved: 0 },
        { filesChanged: 1, linesAdded: 2, linesRemoved: 0 },
      ]);
    } finally {
      catalog.close();
    }
  });
  it('gives the same stats for a commit that ships a whole catalog of folders (listed once) as for one folder at a time', async () => {
    // 20 folders: past the count from which a commit's folders are listed with one ls-tree.
    const names = Array.from({ length: 20 }, (_, index) => `p${String(index).padStart(2, '0')}`);
    const repo = `${await temporaryDirectory()}/catalog`;
    const [first, second] = await createCatalogRepo(repo, [
      { message: 'all', time: hoursLater(0), files: Object.fromEntries(names.map((name, index) => [`packages/${name}/lines.txt`, 'x\n'.repeat(index + 1)])) },
      {
        message: 'some change, one goes, one comes, a file takes the place of a folder',
        time: hoursLater(1),
        files: { 'packages/p00/lines.txt': 'y\n', 'packages/p01/lines.txt': null, 'packages/new/a.txt': 'a\nb\n', 'packages/p02/lines.txt': null, 'packages/p02': 'now a file\n' },
      },
    ]);
    const dirs = [...names, 'new', 'gone'].map((name) => `packages/${name}`);
    const catalog = await CatalogRepo.open(repo);
    try {
      const together = await catalog.diffStats(second, dirs.map((dir) => ({ dir, from: dir === 'packages/p03' ? null : first })));
      const oneByOne = [];
      for (const dir of dirs) oneByOne.push(...(await catalog.diffStats(second, [{ dir, from: dir === 'packages/p03' ? null : first }])));
      expect(together).toEqual(oneByOne);
      expect(together.slice(0, 4)).toEqual([
        { filesChanged: 1, linesAdded: 1, linesRemoved: 1 },
        { filesChanged: 1, linesAdded: 0, linesRemoved: 2 },
        { filesChanged: 1, linesAdded: 0, linesRemoved: 3 },
        { filesChanged: 1, linesAdded: 4, linesRemoved: 0 },
      ]);
      expect(together.slice(-3)).toEqual([
        { filesChanged: 0, linesAdded: 0, linesRemoved: 0 },
        { filesChanged: 1, linesAdded: 2, linesRemoved: 0 },
        { filesChanged: 0, linesAdded: 0, linesRemoved: 0 },
      ]);
    } finally {
      catalog.close();
    }
  });
});

describe('unusable repositories fail with a one-line reason', () => {
  it.each([
    ['a path that does not exist', async (dir: string) => `${dir}/missing`, 'not-a-repository', /does not exist/],
    ['a directory that is not a repository', async (dir: string) => dir, 'not-a-repository', /is not a git repository/],
    ['a repository with no commits', async (dir: string) => { await git(dir, ['init', '-q', '-b', 'main']); return dir; }, 'no-commits', /has no commits/],
    ['a repository without main', async (dir: string) => {
      await createCatalogRepo(dir, [{ message: 'x', time: hoursLater(0) }]);
      await git(dir, ['branch', '-m', 'main', 'trunk']);
      return dir;
    }, 'no-main', /has no branch main/],
  ])('%s', async (_case, prepare, code, message) => {
    const dir = await prepare(await temporaryDirectory());
    const error = await CatalogRepo.open(dir).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CatalogRepoError);
    expect(error).toMatchObject({ code, message: expect.stringMatching(message) });
  });
});

describe('following main', () => {
  it('sees appended commits and a rewritten main', async () => {
    const repo = `${await temporaryDirectory()}/catalog`;
    const [a, b] = await createCatalogRepo(repo, [
      { message: 'a', time: hoursLater(0) },
      { message: 'b', time: hoursLater(1) },
    ]);
    await git(repo, ['update-ref', 'refs/heads/main', a]);
    const [c] = await appendCommits(repo, [{ message: 'c', time: hoursLater(2) }]);
    const catalog = await CatalogRepo.open(repo);
    try {
      expect(await catalog.chain(await catalog.mainSha())).toEqual([c, a]);
      expect(await catalog.chain(c)).not.toContain(b);
      // The chain of the rewritten-away commit does not lead to the new one.
      expect(await catalog.chain(c, [b, a])).toEqual([c, a]);
    } finally {
      catalog.close();
    }
  });
});
