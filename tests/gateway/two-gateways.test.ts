/**
 * docs/deployment.md (c): two `pkgcat serve --out` processes over one build output, sharing
 * sessions through one Redis and one PKGCAT_SESSION_SECRET. A cookie from a sign-in on one opens
 * the sha-pinned routes on the other; a sign-out on either ends it on both; a gateway with another
 * secret does not take it. Skipped when redis-server is not installed (.ci/run installs it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { addUser } from '../../gateway/auth/users.ts';
import { findRedisServer, startRedisServer, type RedisServer } from '../helpers/redis.ts';
import { startServeProcess, type ServeProcess } from '../../bench/helpers/serve-process.ts';
import { buildFixture, type Fixture } from './fixtures.ts';
import { expected, send, USER, signIn } from './harness.ts';

const binary = findRedisServer();
if (binary === null) {
  console.warn('two-gateways.test.ts: redis-server is not installed, so the two-gateway deployment test is SKIPPED (apt-get install -y redis-server)');
}

const SECRET = 'two-gateways-shared-secret-0123456789abcdef';

describe.skipIf(binary === null)('two gateway processes, one Redis, one build output', () => {
  let fx: Fixture;
  let redis: RedisServer;
  const gateways: ServeProcess[] = [];
  let a: ServeProcess;
  let b: ServeProcess;

  beforeAll(async () => {
    fx = await buildFixture();
    redis = await startRedisServer(binary);
    const users = join(fx.dir, 'users.json');
    await addUser(users, USER.username, USER.password);
    const serve = (name: string, secret = SECRET) =>
      startServeProcess(['--out', fx.out, '--users', users, '--session-dir', join(fx.dir, `sessions-${name}`)], {
        PKGCAT_REDIS_URL: redis.url,
        PKGCAT_SESSION_SECRET: secret,
      });
    [a, b] = await Promise.all([serve('a'), serve('b')]);
    gateways.push(a, b);
  });

  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await redis?.stop();
    await fx?.cleanup();
  });


  it('are two processes', () => {
    expect(a.pid).not.toBe(b.pid);
    expect(a.url).not.toBe(b.url);
  });

  it('a cookie from one opens a pinned route on the other, with the same bytes', async () => {
    const cookie = await signIn(a.url);
    const path = `/api/pkgs/bundle/${fx.tip}/curl/deps.json`;
    const body = (await expected.packageObject(fx.out, fx.tip, 'curl', 'deps'))!;
    for (const gateway of [b, a]) {
      const reply = await send(gateway.url, path, { headers: { cookie } });
      expect(reply.status).toBe(200);
      expect(reply.headers.get('cache-control')).toBe('private, no-store');
      expect(reply.headers.get('etag')).toBe(body.etag);
      expect(reply.body.equals(body.bytes)).toBe(true);
    }
    expect((await send(b.url, path)).status).toBe(401);
  });

  it('a sign-out on one ends the session on both', async () => {
    const cookie = await signIn(b.url);
    const path = `/api/pkgs/bundle/${fx.tip}/full.json`;
    expect((await send(a.url, path, { headers: { cookie } })).status).toBe(200);
    const out = await fetch(`${a.url}/auth/logout`, { method: 'POST', headers: { cookie } });
    expect(out.status).toBe(204);
    expect((await send(a.url, path, { headers: { cookie } })).status).toBe(401);
    expect((await send(b.url, path, { headers: { cookie } })).status).toBe(401);
  });

  it('count failed sign-ins together (the limiter lives in Redis): after 10 failures across both, each answers 429', async () => {
    const attempt = (gateway: ServeProcess) =>
      fetch(`${gateway.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'mallory', password: 'guess' }) });
    // Five failures on each: a per-process limiter (10 per address and username) would let both go on.
    for (let failure = 0; failure < 10; failure++) expect((await attempt(failure % 2 === 0 ? a : b)).status).toBe(401);
    for (const gateway of [a, b]) {
      const refused = await attempt(gateway);
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { error: string }).error).toBe('too_many_attempts');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Another username from the same address is still counted on its own.
    expect((await fetch(`${b.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(USER) })).status).toBe(200);
  });

  it('a gateway with another PKGCAT_SESSION_SECRET does not take the cookie', async () => {
    const other = await startServeProcess(['--out', fx.out, '--users', join(fx.dir, 'users.json'), '--session-dir', join(fx.dir, 'sessions-other')], {
      PKGCAT_REDIS_URL: redis.url,
      PKGCAT_SESSION_SECRET: 'another-secret-another-secret-0123456789',
    });
    gateways.push(other);
    const cookie = await signIn(a.url);
    expect((await send(other.url, `/api/pkgs/bundle/${fx.tip}.json`, { headers: { cookie } })).status).toBe(401);
    expect((await send(b.url, `/api/pkgs/bundle/${fx.tip}.json`, { headers: { cookie } })).status).toBe(200);
  });
});
