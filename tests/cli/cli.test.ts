/** The `pkgcat` command as a user runs it (CLI.md): exit codes, one-line reasons, help. */
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, stat, readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { appendCommits, createCatalogRepo, git } from '../../demo/catalog-writer.ts';
import { exportedFile, hoursLater, manifest, temporaryDirectory } from '../helpers/catalog.ts';
import { cleanEnv, PKGCAT, pkgcat } from './run.ts';

describe('pkgcat build on unusable input: exit 1 and one line saying why', () => {
  it.each([
    ['no such path', async (dir: string) => `${dir}/nope`, /^pkgcat: .*\/nope does not exist\n$/],
    ['not a repository', async (dir: string) => dir, /^pkgcat: .* is not a git repository\n$/],
    ['no commits', async (dir: string) => { await git(dir, ['init', '-q', '-b', 'main']); return dir; }, /^pkgcat: .* has no commits; a catalog needs commits on its main branch\n$/],
    ['no main', async (dir: string) => {
      await createCatalogRepo(dir, [{ message: 'x', time: hoursLater(0) }]);
      await git(dir, ['branch', '-m', 'main', 'trunk']);
      return dir;
    }, /^pkgcat: .* has no branch main; pkgcat reads only main \(see docs\/catalog-format.md\)\n$/],
  ])('%s', async (_case, prepare, message) => {
    const repo = await prepare(await temporaryDirectory());
    const out = `${await temporaryDirectory()}/out`;
    const result = await pkgcat(['build', '--repo', repo, '--out', out]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    await expect(stat(`${out}/current`)).rejects.toThrow();
  });

  it('says so when git is not installed', async () => {
    const repo = await temporaryDirectory();
    const result = await pkgcat(['build', '--repo', repo, '--out', `${repo}/out`], { env: cleanEnv({ PATH: '/nonexistent' }) });
    expect(result).toMatchObject({ code: 1, stderr: 'pkgcat: git is not installed or not on PATH; pkgcat reads catalogs with the git CLI\n' });
  });

  it('keeps what was built when a later run fails', async () => {
    const repo = `${await temporaryDirectory()}/catalog`;
    const out = `${await temporaryDirectory()}/out`;
    await createCatalogRepo(repo, [{ message: 'zlib', time: hoursLater(0), files: { 'packages/zlib/manifest.json': manifest('zlib') } }]);
    expect((await pkgcat(['build', '--repo', repo, '--out', out, '--quiet'])).code).toBe(0);
    const before = (await exportedFile(out, 'api/pkgs/zlib.json')).toString('utf8');
    await git(repo, ['branch', '-m', 'main', 'trunk']);
    expect((await pkgcat(['build', '--repo', repo, '--out', out])).code).toBe(1);
    expect((await exportedFile(out, 'api/pkgs/zlib.json')).toString('utf8')).toBe(before);
  });
});

describe('an output directory built by a pkgcat of another layout', () => {
  it('build and serve refuse it, with one line saying what to do, and leave it as it was', async () => {
    const out = await temporaryDirectory();
    await writeFile(`${out}/layout.json`, '{"layout":2}');
    const repo = `${await temporaryDirectory()}/catalog`;
    await createCatalogRepo(repo, [{ message: 'zlib', time: hoursLater(0), files: { 'packages/zlib/manifest.json': manifest('zlib') } }]);
    const line = `pkgcat: ${out} holds a build of layout 2; this pkgcat writes and serves layout 4: build the catalog again into a new output directory (pkgcat build --repo <catalog> --out <new directory>), or delete ${out} and build again\n`;
    expect(await pkgcat(['build', '--repo', repo, '--out', out])).toMatchObject({ code: 1, stderr: line });
    expect(await pkgcat(['serve', '--out', out, '--port', '0'])).toMatchObject({ code: 1, stderr: line });
    expect(await readFile(`${out}/layout.json`, 'utf8')).toBe('{"layout":2}');
    await expect(stat(`${out}/current`)).rejects.toThrow();
  });
});

describe('pkgcat build that runs out of memory', () => {
  it('ends with one line saying so, no stack trace, and keeps what was built', async () => {
    const repo = `${await temporaryDirectory()}/catalog`;
    const out = `${await temporaryDirectory()}/out`;
    await createCatalogRepo(repo, [{ message: 'zlib', time: hoursLater(0), files: { 'packages/zlib/manifest.json': manifest('zlib') } }]);
    expect((await pkgcat(['build', '--repo', repo, '--out', out, '--quiet'])).code).toBe(0);
    const before = (await exportedFile(out, 'api/pkgs/zlib.json')).toString('utf8');
    // Two packages of 50,000 dependencies each (within every limit) need more than a 32 MB heap.
    const dependencies = Array.from({ length: 50_000 }, (_, index) => `dependency-${'x'.repeat(40)}-${index}`);
    await appendCommits(repo, [{
      message: 'Add two wide packages',
      time: hoursLater(1),
      files: Object.fromEntries(['wide', 'wider'].map((name) => [`packages/${name}/manifest.json`, manifest(name, { dependencies: { runtime: dependencies } })])),
    }]);
    const result = await pkgcat(['build', '--repo', repo, '--out', out, '--quiet'], { env: cleanEnv({ NODE_OPTIONS: '--max-old-space-size=32' }) });
    expect(result).toMatchObject({ code: 1, stderr: 'pkgcat: the build ran out of memory; give it more with NODE_OPTIONS=--max-old-space-size=<megabytes>\n' });
    expect((await exportedFile(out, 'api/pkgs/zlib.json')).toString('utf8')).toBe(before);
  });
});

describe('pkgcat build', () => {
  it('builds, reports what it did, and does nothing the second time', async () => {
    const repo = `${await temporaryDirectory()}/catalog`;
    const out = `${await temporaryDirectory()}/out`;
    await createCatalogRepo(repo, [
      { message: 'zlib', time: hoursLater(0), files: { 'packages/zlib/manifest.json': manifest('zlib') } },
      { message: 'broken', time: hoursLater(1), files: { 'packages/bad/manifest.json': 'not json' } },
    ]);
    const first = await pkgcat(['build', '--repo', repo, '--out', out]);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/^diagnostic error: commit [0-9a-f]{12} packages\/bad\/manifest.json: manifest.json is not valid JSON/m);
    expect(first.stderr).toMatch(/pkgcat: built 2 new of 2 commits in [\d.]+ s; published [0-9a-f]{12}, 1 diagnostics/);
    const second = await pkgcat(['build'], { env: cleanEnv({ PKGCAT_REPO: repo, PKGCAT_OUT: out }) });
    expect(second).toMatchObject({ code: 0, stderr: expect.stringMatching(/is already built and published \(2 commits\); nothing to do/) });
  });
});

describe('usage', () => {
  it('documents every flag with its environment variable', async () => {
    const { code, stdout } = await pkgcat(['--help']);
    expect(code).toBe(0);
    for (const [flag, variable] of [['--repo', 'PKGCAT_REPO'], ['--out', 'PKGCAT_OUT'], ['--users', 'PKGCAT_USERS'], ['--port', 'PORT'], ['--host', 'HOST'], ['--redis-url', 'PKGCAT_REDIS_URL'], ['--site-url', 'PKGCAT_SITE_URL'], ['--accel-redirect', 'PKGCAT_ACCEL_REDIRECT']]) {
      expect(stdout).toMatch(new RegExp(`${flag} .*${variable}`));
    }
    expect(stdout).toContain('PKGCAT_SESSION_SECRET');
  });

  it.each([
    [['frobnicate'], /unknown command "frobnicate"/],
    [['build', '--out', 'x'], /--repo is required \(or set PKGCAT_REPO\)/],
    [['user', 'add'], /usage: pkgcat user add <username> --users <file>/],
  ])('%j exits 2 with a reason', async (args, message) => {
    const result = await pkgcat(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it('adds a user from standard input into an owner-only file', async () => {
    const users = `${await temporaryDirectory()}/users.json`;
    const result = await pkgcat(['user', 'add', 'alice', '--users', users], { input: 'correct horse battery staple\n' });
    expect(result).toMatchObject({ code: 0 });
    expect((await stat(users)).mode & 0o777).toBe(0o600);
    const content = await readFile(users, 'utf8');
    expect(content).toContain('"alice"');
    expect(content).not.toContain('correct horse');
  });
});

/** The machine's own Node, when it is older than 24 (the project brings 24; the machine may have 20). */
const systemNode = spawnSync('/usr/bin/node', ['--version'], { encoding: 'utf8' });
const olderNode = systemNode.status === 0 && Number(systemNode.stdout.slice(1).split('.')[0]) < 24;

describe('the Node.js version', () => {
  it.skipIf(!olderNode)('refuses an older Node with a reason instead of a syntax error', () => {
    const result = spawnSync('/usr/bin/node', [PKGCAT, '--help'], { encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^pkgcat: needs Node.js 24 or later, this is v\d+/);
  });
});

describe('pkgcat build on an output another live build is writing', () => {
  /** A live process named in the build lock, as a running build would be. */
  async function heldOutput(): Promise<{ repo: string; out: string; holder: ReturnType<typeof spawn> }> {
    const repo = `${await temporaryDirectory()}/catalog`;
    const out = `${await temporaryDirectory()}/out`;
    await createCatalogRepo(repo, [{ message: 'zlib', time: hoursLater(0), files: { 'packages/zlib/manifest.json': manifest('zlib') } }]);
    const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    await mkdir(`${out}/build`, { recursive: true });
    await writeFile(`${out}/build/lock`, String(holder.pid));
    return { repo, out, holder };
  }

  it('exits 1 with one line, without --wait', async () => {
    const { repo, out, holder } = await heldOutput();
    try {
      expect(await pkgcat(['build', '--repo', repo, '--out', out, '--quiet'])).toEqual({
        code: 1,
        stdout: '',
        stderr: `pkgcat: another build (pid ${holder.pid}) is writing this output directory; wait for it to finish\n`,
      });
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('with --wait, says it waits, and builds once the holder is gone', async () => {
    const { repo, out, holder } = await heldOutput();
    const child = spawn(process.execPath, [PKGCAT, 'build', '--repo', repo, '--out', out, '--quiet', '--wait'], { env: cleanEnv() });
    let stderr = '';
    const waiting = new Promise<void>((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('waiting')) resolve();
      });
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await waiting;
    expect(stderr).toBe(`pkgcat: another build (pid ${holder.pid}) is writing ${out}; waiting for it to finish\n`);
    holder.kill('SIGKILL');
    expect(await exited).toBe(0);
    expect(stderr).toMatch(/\npkgcat: built 1 new of 1 commits in [\d.]+ s; published [0-9a-f]{12}\n$/);
  });
});
