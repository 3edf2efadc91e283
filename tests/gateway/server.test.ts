/** gateway/server.ts as `pkgcat serve` uses it: the secret, the session store, restarts, close. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from '../../gateway/server.ts';
import { buildFixture, type Fixture } from './fixtures.ts';
import { send, USER, signIn } from './harness.ts';
import { addUser } from '../../gateway/auth/users.ts';

let fx: Fixture;
let usersFile: string;

beforeAll(async () => {
  fx = await buildFixture();
  usersFile = join(fx.dir, 'users.json');
  await addUser(usersFile, USER.username, USER.password);
});

afterAll(async () => {
  await fx?.cleanup();
});

describe('startServer', () => {
  it('refuses a configured session secret that is too short', async () => {
    await expect(
      startServer({ out: fx.out, usersFile, host: '127.0.0.1', port: 0, sessionDir: join(fx.dir, 'short'), sessionSecret: 'short', log: () => {} }),
    ).rejects.toThrow(/too short/);
  });

  it('without a secret, keeps one (and the sessions) in sessionDir: a restart signs nobody out', async () => {
    const sessionDir = join(fx.dir, 'kept');
    const options = { out: fx.out, usersFile, host: '127.0.0.1', port: 0, sessionDir, log: () => {} };
    const first = await startServer(options);
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const cookie = await signIn(first.url);
    await first.close();
    await first.close();
    expect(existsSync(join(sessionDir, 'session-secret'))).toBe(true);
    expect(existsSync(join(sessionDir, 'sessions.db'))).toBe(true);

    const second = await startServer(options);
    try {
      expect((await send(second.url, `/api/pkgs/bundle/${fx.tip}.json`, { headers: { cookie } })).status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('with no users file, serves the anonymous surfaces and nobody can sign in', async () => {
    const server = await startServer({ out: fx.out, usersFile: null, host: '127.0.0.1', port: 0, sessionDir: join(fx.dir, 'nousers'), log: () => {} });
    try {
      expect((await send(server.url, '/api/pkgs/zlib.json')).status).toBe(200);
      expect((await send(server.url, `/api/pkgs/bundle/${fx.tip}.json`)).status).toBe(401);
      const login = await fetch(`${server.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(USER) });
      expect(login.status).toBe(401);
    } finally {
      await server.close();
    }
  });

  it('fails clearly when the port is taken', async () => {
    const server = await startServer({ out: fx.out, usersFile: null, host: '127.0.0.1', port: 0, sessionDir: join(fx.dir, 'port'), log: () => {} });
    try {
      const port = Number(new URL(server.url).port);
      await expect(startServer({ out: fx.out, usersFile: null, host: '127.0.0.1', port, sessionDir: join(fx.dir, 'port2'), log: () => {} })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await server.close();
    }
  });
});
