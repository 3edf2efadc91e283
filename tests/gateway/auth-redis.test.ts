import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAuth } from '../../gateway/auth/index.ts';
import { errorHandler } from '../../gateway/errors.ts';
import { createRedisSessionStore } from '../../gateway/auth/redis-store.ts';
import { createSessionStore, type PkgcatSessionStore } from '../../gateway/auth/session-store.ts';
import { addUser } from '../../gateway/auth/users.ts';
import { findRedisServer, startRedisServer, type RedisServer } from '../helpers/redis.ts';
import { signIn } from './harness.ts';

interface ErrorBody {
  readonly error: string;
  readonly message: string;
}

const SECRET = 'redis-test-secret-redis-test-secret-0123456789';
const binary = findRedisServer();
if (binary === null) {
  console.warn('auth-redis.test.ts: redis-server is not installed, so the Redis session store tests are SKIPPED (apt-get install -y redis-server)');
}

interface Running {
  readonly base: string;
  readonly store: PkgcatSessionStore;
  close(): Promise<void>;
}

describe.skipIf(binary === null)('Redis session store', () => {
  let redis: RedisServer;
  let dir: string;
  let usersFile: string;
  const running: Running[] = [];

  beforeAll(async () => {
    redis = await startRedisServer(binary);
    dir = await mkdtemp(join(tmpdir(), 'pkgcat-auth-redis-'));
    usersFile = join(dir, 'users.json');
    await addUser(usersFile, 'alice', 'correct horse battery staple');
  });

  afterEach(async () => {
    while (running.length > 0) await running.pop()!.close();
  });

  afterAll(async () => {
    await redis?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** A gateway on Redis sessions; the sqlite path must be ignored when a Redis URL is given. */
  async function startApp(loginLimit?: number): Promise<Running> {
    const store = await createSessionStore({ redisUrl: redis.url, sqlitePath: join(dir, 'must-not-exist.db') });
    expect(store.kind).toBe('redis');
    const loginRateLimit = loginLimit === undefined ? undefined : { limit: loginLimit, store: store.loginCounters };
    const auth = createAuth({ usersFile, store, secret: SECRET, secureCookies: 'auto', loginRateLimit });
    const app = express();
    app.use('/auth', auth.sessionMiddleware, auth.router);
    app.get('/private', auth.sessionMiddleware, auth.requireSession, (req, res) => {
      res.set('Cache-Control', 'private, no-store').json({ username: req.session.username });
    });
    app.use(errorHandler(() => {}));
    const server: Server = await new Promise((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    const handle: Running = {
      base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      store,
      async close() {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
        await store.close();
      },
    };
    running.push(handle);
    return handle;
  }


  it('keeps sessions across a gateway restart, under the pkgcat:sess: prefix with a TTL', async () => {
    const first = await startApp();
    const cookie = await signIn(first.base);
    await running.pop()!.close();

    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      const keys = await client.keys('pkgcat:sess:*');
      expect(keys.length).toBe(1);
      const ttl = await client.ttl(keys[0]);
      expect(ttl).toBeGreaterThan(7 * 24 * 3600 - 60);
      expect(ttl).toBeLessThanOrEqual(7 * 24 * 3600);
      expect(JSON.parse((await client.get(keys[0]))!).username).toBe('alice');
    } finally {
      await client.close();
    }

    const second = await startApp();
    const response = await fetch(`${second.base}/private`, { headers: { cookie } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ username: 'alice' });
  });

  it('two gateways sharing one Redis accept each other\'s cookies, and sign-out on one ends it on both', async () => {
    const a = await startApp();
    const b = await startApp();
    const fromA = await signIn(a.base);
    const fromB = await signIn(b.base);
    expect((await fetch(`${b.base}/private`, { headers: { cookie: fromA } })).status).toBe(200);
    expect((await fetch(`${a.base}/private`, { headers: { cookie: fromB } })).status).toBe(200);
    const out = await fetch(`${b.base}/auth/logout`, { method: 'POST', headers: { cookie: fromA } });
    expect(out.status).toBe(204);
    expect((await fetch(`${a.base}/private`, { headers: { cookie: fromA } })).status).toBe(401);
    expect((await fetch(`${a.base}/private`, { headers: { cookie: fromB } })).status).toBe(200);
  });

  it('keeps the sign-in limiter\'s counters under pkgcat:login: with the window as TTL, shared by two gateways; successes do not count', async () => {
    const a = await startApp(3);
    const b = await startApp(3);
    const attempt = (base: string, password: string) =>
      fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'alice', password }) });
    expect((await attempt(a.base, 'correct horse battery staple')).status).toBe(200);
    expect((await attempt(a.base, 'wrong')).status).toBe(401);
    expect((await attempt(b.base, 'wrong')).status).toBe(401);
    expect((await attempt(a.base, 'wrong')).status).toBe(401);
    expect((await attempt(b.base, 'wrong')).status).toBe(429);
    // The limit holds for the right password too, until the window ends.
    expect((await attempt(a.base, 'correct horse battery staple')).status).toBe(429);

    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      const keys = (await client.keys('pkgcat:login:*')).sort();
      expect(keys).toEqual(['pkgcat:login:ip:127.0.0.1', 'pkgcat:login:user:127.0.0.1|alice']);
      // Three failures and two refusals (a refusal is a failed sign-in too); the success is not counted.
      expect(await client.get('pkgcat:login:user:127.0.0.1|alice')).toBe('5');
      const ttl = await client.pTTL('pkgcat:login:user:127.0.0.1|alice');
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(15 * 60 * 1000);
      await client.del(keys);
    } finally {
      await client.close();
    }
  });

  it('fails at startup with a clear error when Redis is unreachable, without the password', async () => {
    const logged: string[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void logged.push(args.join(' '));
    await expect(
      createRedisSessionStore({ url: 'redis://:hunter2@127.0.0.1:1', connectTimeoutMs: 1_000 }),
    ).rejects.toThrow(/cannot connect to the session Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1/);
    console.error = original;
    expect(logged.join('\n')).not.toContain('hunter2');
  });

  it('answers 503 instead of hanging when Redis goes away', async () => {
    const own = await startRedisServer(binary);
    const store = await createRedisSessionStore({ url: own.url, commandTimeoutMs: 1_000 });
    const auth = createAuth({ usersFile, store, secret: SECRET, loginRateLimit: { store: store.loginCounters } });
    const app = express();
    app.use('/auth', auth.sessionMiddleware, auth.router);
    app.get('/private', auth.sessionMiddleware, auth.requireSession, (_req, res) => {
      res.json({ ok: true });
    });
    app.use(errorHandler(() => {}));
    const server: Server = await new Promise((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const original = console.error;
    try {
      const cookie = await signIn(base);
      console.error = () => undefined;
      await own.stop();
      const started = Date.now();
      const response = await fetch(`${base}/private`, { headers: { cookie } });
      expect(response.status).toBe(503);
      expect(response.headers.get('cache-control')).toBe('private, no-store');
      expect(((await response.json()) as ErrorBody).error).toBe('session_store_unavailable');
      expect(Date.now() - started).toBeLessThan(5_000);
      // A sign-in cannot be counted either: 503 from the limiter's store, not a 500.
      const login = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'alice', password: 'x' }) });
      expect(login.status).toBe(503);
      expect(((await login.json()) as ErrorBody).error).toBe('session_store_unavailable');
    } finally {
      console.error = original;
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await store.close().catch(() => undefined);
    }
  });
});
