/**
 * `pkgcat serve` at start, as an operator meets it: an address it cannot listen on ends it with one
 * line (before any build), and an output directory with no build yet is said once and still served
 * (docs/decisions.md "Serving an output with no build").
 */
import { stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCatalogRepo } from '../../demo/catalog-writer.ts';
import { hoursLater, manifest, temporaryDirectory } from '../helpers/catalog.ts';
import { startServeProcess } from '../../bench/helpers/serve-process.ts';
import { cleanEnv, pkgcat } from './run.ts';

/** A TCP server holding a loopback port, the way another program would. */
function occupyPort(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port }));
  });
}

async function fixtureRepo(dir: string): Promise<string> {
  const repo = join(dir, 'catalog');
  await createCatalogRepo(repo, [{ message: 'zlib', time: hoursLater(0), files: { 'packages/zlib/manifest.json': manifest('zlib') } }]);
  return repo;
}

describe('serve on an address it cannot listen on', () => {
  it.each([['without --repo'], ['with --repo']])('%s: exit 1 and one line, nothing built', async (variant) => {
    const dir = await temporaryDirectory();
    const out = join(dir, 'out');
    const repo = variant === 'with --repo' ? ['--repo', await fixtureRepo(dir)] : [];
    const { server, port } = await occupyPort();
    try {
      const result = await pkgcat(['serve', '--out', out, ...repo, '--host', '127.0.0.1', '--port', String(port)]);
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr: `pkgcat: cannot listen on 127.0.0.1:${port}: another process is using that port; stop it, or choose another --port (or PORT)\n`,
      });
    } finally {
      await new Promise((done) => server.close(done));
    }
    // It failed before building: the address is taken before the first build runs.
    await expect(stat(join(out, 'current'))).rejects.toThrow();
  });

  it('a port taken from PORT fails the same way', async () => {
    const { server, port } = await occupyPort();
    try {
      const result = await pkgcat(['serve', '--out', join(await temporaryDirectory(), 'out')], { env: cleanEnv({ PORT: String(port), HOST: '127.0.0.1' }) });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^pkgcat: cannot listen on 127\.0\.0\.1:\d+: another process is using that port; [^\n]*\n$/);
    } finally {
      await new Promise((done) => server.close(done));
    }
  });
});

describe('serve --repo on an unusable repository', () => {
  it('exits 1 with one line, before listening', async () => {
    const dir = await temporaryDirectory();
    const result = await pkgcat(['serve', '--repo', dir, '--out', join(dir, 'out'), '--port', '0']);
    expect(result).toEqual({ code: 1, stdout: '', stderr: `pkgcat: ${dir} is not a git repository\n` });
  });
});

describe('serve on an output with no build yet', () => {
  it('says so in one line, answers 404, and serves the first build that appears', async () => {
    const dir = await temporaryDirectory();
    const out = join(dir, 'out');
    const serve = await startServeProcess(['--out', out], cleanEnv());
    try {
      expect(serve.log().split('\n')[0]).toBe(`pkgcat: ${out} holds no published build yet; run pkgcat build --repo <catalog> --out ${out}, or serve with --repo`);
      expect((await fetch(`${serve.url}/api/pkgs/zlib.json`)).status).toBe(404);

      expect((await pkgcat(['build', '--repo', await fixtureRepo(dir), '--out', out, '--quiet'])).code).toBe(0);
      expect((await fetch(`${serve.url}/api/pkgs/zlib.json`)).status).toBe(200);
      expect(serve.log().match(/holds no published build/g)).toHaveLength(1);
    } finally {
      await serve.stop();
    }
  });

  it('says nothing of the kind with --repo: it builds in the background, and serves the build once published', async () => {
    const dir = await temporaryDirectory();
    const serve = await startServeProcess(['--out', join(dir, 'out'), '--repo', await fixtureRepo(dir)], cleanEnv());
    try {
      await serve.waitForLog(/^pkgcat: built 1 new of 1 commits in [\d.]+ s; published [0-9a-f]{12}$/m);
      expect(serve.log()).not.toContain('holds no published build');
      expect((await fetch(`${serve.url}/api/pkgs/zlib.json`)).status).toBe(200);
    } finally {
      await serve.stop();
    }
  });
});
