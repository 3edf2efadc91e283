import express from 'express';
import { lineLogger } from '../../src/log.ts';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_REQUIRED_MESSAGE, createAuth, type AuthOptions } from '../../gateway/auth/index.ts';
import { loadOrCreateSecret } from '../../gateway/auth/secret.ts';
import { createSessionStore, SqliteSessionStore, type PkgcatSessionStore } from '../../gateway/auth/session-store.ts';
import { runUserAdd } from '../../gateway/auth/user-cli.ts';
import { addUser, loadUsers, UsersFile, verifyUser } from '../../gateway/auth/users.ts';
import { Dependencies } from '../../gateway/dependencies.ts';
import { errorHandler } from '../../gateway/errors.ts';

interface ErrorBody {
  readonly error: string;
  readonly message: string;
}

const SECRET = 'test-secret-test-secret-test-secret-0123456789';

let dir: string;
let usersFile: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pkgcat-auth-'));
  usersFile = join(dir, 'users.json');
  await addUser(usersFile, 'alice', 'correct horse battery staple');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Running {
  readonly base: string;
  readonly store: PkgcatSessionStore;
  /** What the error handler logged (unexpected errors only). */
  readonly logged: string[];
  close(): Promise<void>;
}

const running: Running[] = [];

afterEach(async () => {
  while (running.length > 0) await running.pop()!.close();
});

/** A tiny gateway: /auth and /private behind the session; /public without it, as the app mounts them. */
async function startApp(options: Partial<AuthOptions> & { sqlitePath?: string; trustProxy?: string } = {}): Promise<Running> {
  const store = options.store
    ? (options.store as PkgcatSessionStore)
    : await createSessionStore({ sqlitePath: options.sqlitePath ?? join(dir, `sessions-${running.length}-${Date.now()}.db`) });
  const auth = createAuth({
    usersFile: options.usersFile === undefined ? usersFile : options.usersFile,
    store,
    secret: options.secret ?? SECRET,
    secureCookies: options.secureCookies ?? 'auto',
    loginRateLimit: options.loginRateLimit,
    dependencies: options.dependencies,
  });
  const app = express();
  if (options.trustProxy) app.set('trust proxy', options.trustProxy);
  app.use('/auth', auth.sessionMiddleware, auth.router);
  app.get('/private', auth.sessionMiddleware, auth.requireSession, (req, res) => {
    res.set('Cache-Control', 'private, no-store').json({ username: req.session.username });
  });
  app.get('/public', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=60').type('application/json').send('{"hello":"world"}');
  });
  // The gateway's one error handler, mounted last as gateway/app.ts does: it writes every auth error.
  const logged: string[] = [];
  app.use(errorHandler((line) => logged.push(line)));
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  const handle: Running = {
    base: `http://127.0.0.1:${port}`,
    store,
    logged,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await store.close();
    },
  };
  running.push(handle);
  return handle;
}

/** The `pkgcat.sid=...` pair from a response's Set-Cookie, or null. */
function sessionCookie(response: Response): string | null {
  const line = response.headers.getSetCookie().find((cookie) => cookie.startsWith('pkgcat.sid='));
  return line ? line.split(';')[0] : null;
}

function signIn(base: string, username: string, password: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ username, password }),
    redirect: 'manual',
  });
}

async function signedIn(base: string): Promise<string> {
  const response = await signIn(base, 'alice', 'correct horse battery staple');
  expect(response.status).toBe(200);
  const cookie = sessionCookie(response);
  expect(cookie).not.toBeNull();
  return cookie!;
}

describe('users file', () => {
  it('is created with owner-only permissions and holds a hash, not the password', async () => {
    const file = join(dir, 'nested', 'users.json');
    const result = await addUser(file, 'bob', 'hunter2-but-longer');
    expect(result.created).toBe(true);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain('hunter2-but-longer');
    const data = JSON.parse(text);
    expect(data.version).toBe(1);
    expect(data.users.bob.hash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    expect(await verifyUser(file, 'bob', 'hunter2-but-longer')).toBe(true);
    expect(await verifyUser(file, 'bob', 'hunter2-but-longeR')).toBe(false);
    expect(await verifyUser(file, 'nobody', 'hunter2-but-longer')).toBe(false);
    expect(await verifyUser(file, 'bob', '')).toBe(false);
  });

  it('replaces a user, keeps the others, and stays 0600 even if someone loosened it', async () => {
    const file = join(dir, 'replace.json');
    await addUser(file, 'carol', 'first password');
    await addUser(file, 'dave', 'dave password');
    await import('node:fs/promises').then((fs) => fs.chmod(file, 0o644));
    const again = await addUser(file, 'carol', 'second password');
    expect(again.created).toBe(false);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const users = await loadUsers(file);
    expect([...users.users.keys()].sort()).toEqual(['carol', 'dave']);
    expect(await verifyUser(users, 'carol', 'second password')).toBe(true);
    expect(await verifyUser(users, 'carol', 'first password')).toBe(false);
    expect(await verifyUser(users, 'dave', 'dave password')).toBe(true);
  });

  it('rejects bad usernames and empty passwords with clear errors', async () => {
    const file = join(dir, 'bad.json');
    await expect(addUser(file, '', 'pw')).rejects.toThrow(/invalid username/);
    await expect(addUser(file, 'has space', 'pw')).rejects.toThrow(/1 to 64 characters/);
    await expect(addUser(file, 'x'.repeat(65), 'pw')).rejects.toThrow(/invalid username/);
    await expect(addUser(file, 'ok.name_1@example-host', '')).rejects.toThrow(/password must not be empty/);
    await expect(stat(file)).rejects.toThrow();
  });

  it('reports a malformed users file clearly', async () => {
    const file = join(dir, 'broken.json');
    await writeFile(file, '{"version":1,"users":{"eve":{"hash":"plain"}}}');
    await expect(loadUsers(file)).rejects.toThrow(/eve has no usable "hash"/);
    await writeFile(file, 'not json');
    await expect(loadUsers(file)).rejects.toThrow(/not valid JSON/);
  });

  it('is re-read when it changes on disk', async () => {
    const file = join(dir, 'reload.json');
    const watched = new UsersFile(file, new Dependencies(lineLogger(() => {})).reporter('usersFile'));
    expect((await watched.get()).exists).toBe(false);
    await addUser(file, 'frank', 'frank password');
    expect((await watched.get()).users.has('frank')).toBe(true);
  });

  it('turned to garbage, keeps the users last read, says so once, and takes the next good version', async () => {
    const file = join(dir, 'garbage.json');
    await addUser(file, 'frank', 'frank password');
    const logged: string[] = [];
    const dependencies = new Dependencies(lineLogger((line) => logged.push(line)));
    const watched = new UsersFile(file, dependencies.reporter('usersFile'));
    expect([...(await watched.get()).users.keys()]).toEqual(['frank']);
    const good = await readFile(file);
    await writeFile(file, '{ not json');
    expect([...(await watched.get()).users.keys()]).toEqual(['frank']);
    expect([...(await watched.get()).users.keys()]).toEqual(['frank']);
    expect(logged).toEqual([
      expect.stringMatching(
        new RegExp(`^users file ${file} is not valid JSON: .*; signing in and checking sessions with the users last read; the file is read again at the next request once it changes$`),
      ),
    ]);
    expect((await dependencies.report()).usersFile).toMatchObject({ status: 'degraded', reason: expect.stringMatching(/^users file .* is not valid JSON/) });
    await writeFile(file, good);
    await addUser(file, 'grace', 'grace password');
    expect([...(await watched.get()).users.keys()].sort()).toEqual(['frank', 'grace']);
    expect(logged.slice(1)).toEqual(['the users file is usable again; signing in with it']);
    expect((await dependencies.report()).usersFile).toMatchObject({ status: 'ok', reason: null });

    // Gone while it was read (a rewrite that deletes first): the same, not everybody signed out.
    await rm(file);
    expect([...(await watched.get()).users.keys()].sort()).toEqual(['frank', 'grace']);
    expect(logged.slice(2)).toEqual([expect.stringMatching(new RegExp(`^users file ${file} is missing; signing in and checking sessions with the users last read`))]);
    await addUser(file, 'heidi', 'heidi password');
    expect([...(await watched.get()).users.keys()]).toEqual(['heidi']);
    expect(logged.slice(3)).toEqual(['the users file is usable again; signing in with it']);
  });

  it('`pkgcat user add` reads the password from standard input', async () => {
    const file = join(dir, 'cli.json');
    const messages: string[] = [];
    const output = new Writable({
      write(chunk, _encoding, done) {
        messages.push(String(chunk));
        done();
      },
    });
    await runUserAdd({ username: 'grace', usersFile: file, input: Readable.from([Buffer.from('piped secret\n')]), output });
    expect(await verifyUser(file, 'grace', 'piped secret')).toBe(true);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(messages.join('')).toContain('added user grace');
    await expect(
      runUserAdd({ username: 'grace', usersFile: file, input: Readable.from([Buffer.from('\n')]), output }),
    ).rejects.toThrow(/password must not be empty/);
    await expect(
      runUserAdd({ username: 'grace', usersFile: file, input: Readable.from([Buffer.from('a\nb\n')]), output }),
    ).rejects.toThrow(/single line/);
  });
});

describe('session secret', () => {
  it('is generated once into a 0600 file and reused', async () => {
    const file = join(dir, 'state', 'session-secret');
    const first = await loadOrCreateSecret(file);
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await loadOrCreateSecret(file)).toBe(first);
    const concurrent = join(dir, 'state', 'concurrent-secret');
    const all = await Promise.all([1, 2, 3, 4].map(() => loadOrCreateSecret(concurrent)));
    expect(new Set(all).size).toBe(1);
  });
});

describe('sign-in', () => {
  it('serves an accessible form that is never cached and sets no cookie', async () => {
    const { base } = await startApp();
    const response = await fetch(`${base}/auth/login?next=/api/pkgs/bundle/abc.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(response.headers.get('set-cookie')).toBeNull();
    const html = await response.text();
    expect(html).toContain('<form method="post" action="/auth/login">');
    expect(html).toContain('<label for="username">');
    expect(html).toContain('autocomplete="current-password"');
    expect(html).toContain('name="next" value="/api/pkgs/bundle/abc.json"');
  });

  it('JSON sign-in sets an HttpOnly, SameSite=Lax cookie that opens /private', async () => {
    const { base } = await startApp();
    const response = await signIn(base, 'alice', 'correct horse battery staple');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(await response.text()).toBe('{"ok":true,"username":"alice"}');
    const line = response.headers.getSetCookie().find((cookie) => cookie.startsWith('pkgcat.sid='))!;
    expect(line).toMatch(/; HttpOnly/);
    expect(line).toMatch(/; SameSite=Lax/);
    expect(line).toMatch(/; Path=\//);
    expect(line).toMatch(/; Expires=/);
    expect(line).not.toMatch(/; Secure/);
    const cookie = sessionCookie(response)!;
    const open = await fetch(`${base}/private`, { headers: { cookie } });
    expect(open.status).toBe(200);
    expect(await open.json()).toEqual({ username: 'alice' });
    // Using a session never re-sends the cookie (rolling: false).
    expect(open.headers.get('set-cookie')).toBeNull();
  });

  it('regenerates the session id at every sign-in; the old id stops working', async () => {
    const { base } = await startApp();
    const first = await signedIn(base);
    const second = sessionCookie(await signIn(base, 'alice', 'correct horse battery staple', { cookie: first }))!;
    expect(second).not.toBe(first);
    expect((await fetch(`${base}/private`, { headers: { cookie: second } })).status).toBe(200);
    expect((await fetch(`${base}/private`, { headers: { cookie: first } })).status).toBe(401);
  });

  it('form sign-in answers 303 to / or to a safe same-site next', async () => {
    const { base } = await startApp();
    const post = (fields: Record<string, string>) =>
      fetch(`${base}/auth/login`, { method: 'POST', body: new URLSearchParams(fields), redirect: 'manual' });
    const plain = await post({ username: 'alice', password: 'correct horse battery staple' });
    expect(plain.status).toBe(303);
    expect(plain.headers.get('location')).toBe('/');
    expect(sessionCookie(plain)).not.toBeNull();
    const withNext = await post({ username: 'alice', password: 'correct horse battery staple', next: '/api/pkgs/bundle/abc.json?x=1' });
    expect(withNext.headers.get('location')).toBe('/api/pkgs/bundle/abc.json?x=1');
    for (const next of ['//evil.example/', 'https://evil.example/', '/\\evil.example', 'javascript:alert(1)']) {
      const response = await post({ username: 'alice', password: 'correct horse battery staple', next });
      expect(response.headers.get('location')).toBe('/');
    }
  });

  it('a form sign-in from a browser that fails shows the form again, with the reason, what was typed and where it was going', async () => {
    const { base } = await startApp();
    const browser = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
    const post = (fields: Record<string, string>, headers: Record<string, string> = browser) =>
      fetch(`${base}/auth/login`, { method: 'POST', headers, body: new URLSearchParams(fields), redirect: 'manual' });
    const wrong = await post({ username: 'alice', password: 'wrong', next: '/pkgs/curl' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(wrong.headers.get('cache-control')).toBe('private, no-store');
    expect(wrong.headers.get('set-cookie')).toBeNull();
    const html = await wrong.text();
    expect(html).toContain('<p class="error" role="alert" id="sign-in-error">Unknown username or wrong password.</p>');
    expect(html).toContain('<form method="post" action="/auth/login">');
    expect(html).toContain('name="next" value="/pkgs/curl"');
    expect(html).toContain('value="alice" aria-invalid="true"');
    // What was typed is escaped, and an unsafe `next` is not kept.
    const hostile = await (await post({ username: '"><script>x</script>', password: 'wrong', next: '//evil.example/' })).text();
    expect(hostile).not.toContain('<script>x');
    expect(hostile).toContain('name="next" value="/"');
    // The same form fields from a script (fetch and curl send Accept: */*) keep the JSON error.
    const script = await post({ username: 'alice', password: 'wrong' }, { accept: '*/*' });
    expect(script.status).toBe(401);
    expect(await script.json()).toEqual({ error: 'invalid_credentials', message: 'Unknown username or wrong password.' });
    // Then the right password returns the person to the page they came from.
    const right = await post({ username: 'alice', password: 'correct horse battery staple', next: '/pkgs/curl' });
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe('/pkgs/curl');
  });

  it('a form sign-in from a browser that is rate limited shows the form with the wait, and Retry-After', async () => {
    const { base } = await startApp({ loginRateLimit: { limit: 1 } });
    const post = () =>
      fetch(`${base}/auth/login`, { method: 'POST', headers: { accept: 'text/html' }, body: new URLSearchParams({ username: 'alice', password: 'wrong' }), redirect: 'manual' });
    expect((await post()).status).toBe(401);
    const limited = await post();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await limited.text()).toMatch(/role="alert" id="sign-in-error">Too many failed sign-in attempts; try again in \d+ seconds\.</);
  });

  it('a wrong password gets 401 invalid_credentials, no cookie, never cached', async () => {
    const { base } = await startApp();
    for (const [username, password] of [
      ['alice', 'wrong'],
      ['nobody', 'wrong'],
      ['alice', ''],
    ]) {
      const response = await signIn(base, username, password);
      expect(response.status).toBe(401);
      expect(response.headers.get('cache-control')).toBe('private, no-store');
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.headers.get('set-cookie')).toBeNull();
      expect(response.headers.get('www-authenticate')).toBeNull();
      expect(await response.json()).toEqual({ error: 'invalid_credentials', message: 'Unknown username or wrong password.' });
    }
  });

  it('the 11th failure from one address for one username gets 429 with Retry-After', async () => {
    const { base } = await startApp();
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      expect((await signIn(base, 'alice', `wrong ${attempt}`)).status).toBe(401);
    }
    const limited = await signIn(base, 'alice', 'correct horse battery staple');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('cache-control')).toBe('private, no-store');
    const body = (await limited.json()) as ErrorBody;
    expect(body.error).toBe('too_many_attempts');
    expect(typeof body.message).toBe('string');
    // Another username from the same address is still counted separately.
    expect((await signIn(base, 'nobody', 'wrong')).status).toBe(401);
  });

  it('successful sign-ins are not counted as failures', async () => {
    const { base } = await startApp({ loginRateLimit: { limit: 2 } });
    for (let attempt = 0; attempt < 4; attempt += 1) await signedIn(base);
    expect((await signIn(base, 'alice', 'wrong')).status).toBe(401);
    expect((await signIn(base, 'alice', 'wrong')).status).toBe(401);
    expect((await signIn(base, 'alice', 'wrong')).status).toBe(429);
  });

  it('rejects oversized, malformed and unsupported bodies with JSON errors', async () => {
    const { base } = await startApp();
    const big = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'alice', password: 'x'.repeat(17 * 1024) }),
    });
    expect(big.status).toBe(413);
    expect(((await big.json()) as ErrorBody).error).toBe('payload_too_large');
    const malformed = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"username":' });
    expect(malformed.status).toBe(400);
    const malformedBody = (await malformed.json()) as ErrorBody;
    expect(malformedBody.error).toBe('bad_request');
    expect(typeof malformedBody.message).toBe('string');
    const missing = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"username":"alice"}' });
    expect(missing.status).toBe(400);
    const text = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'alice' });
    expect(text.status).toBe(415);
  });

  it('refuses cross-site sign-in posts', async () => {
    const { base } = await startApp();
    const response = await signIn(base, 'alice', 'correct horse battery staple', { 'sec-fetch-site': 'cross-site' });
    expect(response.status).toBe(403);
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(((await response.json()) as ErrorBody).error).toBe('cross_site_request');
  });

  it('answers every sign-in error as the gateway does: JSON {error, message}, private, no-store', async () => {
    const { base } = await startApp();
    const cases: [string, RequestInit, number, string][] = [
      ['/auth/login', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'alice' }, 415, 'unsupported_media_type'],
      ['/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"username":"alice"}' }, 400, 'bad_request'],
      ['/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"username":' }, 400, 'bad_request'],
      ['/auth/login', { method: 'PUT' }, 405, 'method_not_allowed'],
      ['/auth/logout', { method: 'GET' }, 405, 'method_not_allowed'],
    ];
    for (const [path, init, status, error] of cases) {
      const response = await fetch(`${base}${path}`, { ...init, redirect: 'manual' });
      expect(response.status, `${init.method} ${path}`).toBe(status);
      expect(response.headers.get('cache-control')).toBe('private, no-store');
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.headers.get('set-cookie')).toBeNull();
      const body = (await response.json()) as ErrorBody;
      expect(Object.keys(body).sort()).toEqual(['error', 'message']);
      expect(body.error).toBe(error);
      expect(body.message.length).toBeGreaterThan(0);
    }
    const put = await fetch(`${base}/auth/login`, { method: 'PUT' });
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
    expect((await fetch(`${base}/auth/logout`)).headers.get('allow')).toBe('POST');
  });

  it('a users file that turns to garbage fails no request: the session and the sign-in use the users last read', async () => {
    const file = join(dir, 'breaks-later.json');
    await addUser(file, 'alice', 'alice password');
    const reported: string[] = [];
    const { base, logged } = await startApp({ usersFile: file, dependencies: new Dependencies(lineLogger((line) => reported.push(line))) });
    const cookie = sessionCookie(await signIn(base, 'alice', 'alice password'))!;
    await writeFile(file, '{ not json');
    const response = await fetch(`${base}/private`, { headers: { cookie } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ username: 'alice' });
    expect((await signIn(base, 'alice', 'alice password')).status).toBe(200);
    expect((await signIn(base, 'alice', 'wrong password')).status).toBe(401);
    expect(logged).toEqual([]);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatch(/^users file .* is not valid JSON: .*; signing in and checking sessions with the users last read/);
  });

  it('without a users file, sign-in fails and says how to add a user', async () => {
    const { base } = await startApp({ usersFile: null });
    const response = await signIn(base, 'alice', 'correct horse battery staple');
    expect(response.status).toBe(401);
    const body = (await response.json()) as ErrorBody;
    expect(body.error).toBe('invalid_credentials');
    expect(body.message).toContain('pkgcat user add <name> --users <file>');
    expect(body.message).toMatch(/no users are configured/i);
  });

  it('a user added while running can sign in at once; a removed user is signed out', async () => {
    const file = join(dir, 'live-users.json');
    const { base } = await startApp({ usersFile: file });
    expect((await signIn(base, 'henry', 'henry password')).status).toBe(401);
    await addUser(file, 'henry', 'henry password');
    await addUser(file, 'alice', 'alice password');
    const response = await signIn(base, 'henry', 'henry password');
    expect(response.status).toBe(200);
    const cookie = sessionCookie(response)!;
    expect((await fetch(`${base}/private`, { headers: { cookie } })).status).toBe(200);
    const data = JSON.parse(await readFile(file, 'utf8'));
    delete data.users.henry;
    await writeFile(file, JSON.stringify(data));
    expect((await fetch(`${base}/private`, { headers: { cookie } })).status).toBe(401);
  });

  it('marks the cookie Secure behind a TLS-terminating proxy when trust proxy is set', async () => {
    const { base } = await startApp({ trustProxy: 'loopback' });
    const tls = await signIn(base, 'alice', 'correct horse battery staple', { 'x-forwarded-proto': 'https' });
    expect(tls.status).toBe(200);
    expect(tls.headers.getSetCookie().find((c) => c.startsWith('pkgcat.sid='))).toMatch(/; Secure/);
    const plain = await signIn(base, 'alice', 'correct horse battery staple');
    expect(plain.headers.getSetCookie().find((c) => c.startsWith('pkgcat.sid='))).not.toMatch(/; Secure/);
  });
});

describe('sign-out', () => {
  it('ends the session and clears the cookie (204 for JSON, 303 for a form)', async () => {
    const { base } = await startApp();
    const cookie = await signedIn(base);
    const out = await fetch(`${base}/auth/logout`, { method: 'POST', headers: { cookie }, redirect: 'manual' });
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie().find((c) => c.startsWith('pkgcat.sid='))).toMatch(/Expires=Thu, 01 Jan 1970/);
    expect((await fetch(`${base}/private`, { headers: { cookie } })).status).toBe(401);

    const again = await signedIn(base);
    const form = await fetch(`${base}/auth/logout`, { method: 'POST', headers: { cookie: again }, body: new URLSearchParams(), redirect: 'manual' });
    expect(form.status).toBe(303);
    expect(form.headers.get('location')).toBe('/');
    expect((await fetch(`${base}/private`, { headers: { cookie: again } })).status).toBe(401);
  });
});

describe('the gate', () => {
  it('answers 401 auth_required without a session: exact body, private, no-store, no WWW-Authenticate', async () => {
    const { base } = await startApp();
    for (const headers of [{}, { cookie: 'pkgcat.sid=s%3Aforged.signature' }, { cookie: 'pkgcat.sid=garbage' }]) {
      const response = await fetch(`${base}/private`, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get('cache-control')).toBe('private, no-store');
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.headers.get('www-authenticate')).toBeNull();
      expect(response.headers.get('set-cookie')).toBeNull();
      expect(response.headers.get('etag')).toBeNull();
      expect(await response.text()).toBe(`{"error":"auth_required","message":${JSON.stringify(AUTH_REQUIRED_MESSAGE)}}`);
    }
    expect(AUTH_REQUIRED_MESSAGE).toBe(
      'Sign in at /auth/login and replay the session cookie; sha-pinned bundles need a signed-in session.',
    );
  });

  it('anonymous surfaces are identical with and without a session and never set a cookie', async () => {
    const { base } = await startApp();
    const cookie = await signedIn(base);
    const anonymous = await fetch(`${base}/public`);
    const withCookie = await fetch(`${base}/public`, { headers: { cookie } });
    for (const response of [anonymous, withCookie]) {
      expect(response.status).toBe(200);
      expect(response.headers.get('set-cookie')).toBeNull();
      expect(response.headers.get('cache-control')).toBe('public, max-age=60');
    }
    expect(await withCookie.text()).toBe(await anonymous.text());
    const strip = (response: Response) => [...response.headers].filter(([name]) => name !== 'date');
    expect(strip(withCookie)).toEqual(strip(anonymous));
  });
});

describe('sqlite session store', () => {
  it('a store that fails (its database closed under it): sign-in, the session check and sign-out answer 503, reported once, never a 500', async () => {
    const reported: string[] = [];
    const app = await startApp({ dependencies: new Dependencies(lineLogger((line) => reported.push(line))) });
    const cookie = await signedIn(app.base);
    await app.store.close();
    const answers = [
      await signIn(app.base, 'alice', 'correct horse battery staple'),
      await fetch(`${app.base}/private`, { headers: { cookie } }),
      await fetch(`${app.base}/auth/logout`, { method: 'POST', headers: { cookie } }),
    ];
    for (const response of answers) {
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(await response.json()).toEqual({ error: 'session_store_unavailable', message: 'The session store is not reachable; try again shortly.' });
    }
    expect(app.logged).toEqual([]);
    expect(reported).toEqual([
      expect.stringMatching(/^the session store failed: .+; sign-in and sha-pinned requests answer 503 session_store_unavailable until it is back; the anonymous surfaces serve as usual$/),
    ]);
  });

  it('keeps sessions across a restart with the same db file and secret', async () => {
    const sqlitePath = join(dir, 'restart', 'sessions.db');
    const first = await startApp({ sqlitePath });
    const cookie = await signedIn(first.base);
    expect((await stat(sqlitePath)).mode & 0o777).toBe(0o600);
    await running.pop()!.close();

    const second = await startApp({ sqlitePath });
    const response = await fetch(`${second.base}/private`, { headers: { cookie } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ username: 'alice' });
  });

  it('expires and prunes sessions', async () => {
    // The store's clock is the test's: time moves when the test says so, not while it sleeps.
    let now = Date.parse('2026-03-01T12:00:00Z');
    const store = new SqliteSessionStore({ path: join(dir, 'expiry.db'), pruneIntervalMs: false, now: () => now });
    const call = <T>(run: (done: (error: unknown, value?: T) => void) => void) =>
      new Promise<T | undefined>((resolve, reject) => run((error, value) => (error ? reject(error) : resolve(value))));
    const cookie = (offset: number) => ({ originalMaxAge: 1000, expires: new Date(now + offset).toISOString(), httpOnly: true, path: '/' });
    await call((done) => store.set('live', { cookie: cookie(60_000), username: 'alice' } as never, done));
    await call((done) => store.set('gone', { cookie: cookie(-1) } as never, done));
    expect(await call((done) => store.get('live', done))).toMatchObject({ username: 'alice' });
    expect(await call((done) => store.get('gone', done))).toBeNull();
    expect(await call<number>((done) => store.length(done))).toBe(1);
    await call((done) => store.touch('live', { cookie: cookie(120_000), username: 'alice' } as never, done as () => void));
    await call((done) => store.touch('missing', { cookie: cookie(120_000) } as never, done as () => void));
    expect(await call((done) => store.get('missing', done))).toBeNull();
    await call((done) => store.set('later', { cookie: cookie(50) } as never, done));
    now += 49;
    expect(store.prune()).toBe(0);
    expect(await call<number>((done) => store.length(done))).toBe(2);
    now += 1;
    expect(store.prune()).toBe(1);
    expect(await call((done) => store.get('later', done))).toBeNull();
    await call((done) => store.destroy('live', done));
    expect(await call((done) => store.get('live', done))).toBeNull();
    await store.close();
  });

  it('writes a touched session at most once per touchAfterMs (a write per request was the cost of a signed-in read)', async () => {
    let now = Date.parse('2026-03-01T12:00:00Z');
    const store = new SqliteSessionStore({ path: join(dir, 'touch.db'), pruneIntervalMs: false, touchAfterMs: 100, now: () => now });
    const call = <T>(run: (done: (error: unknown, value?: T) => void) => void) =>
      new Promise<T | undefined>((resolve, reject) => run((error, value) => (error ? reject(error) : resolve(value))));
    const session = (offset: number) => ({ cookie: { originalMaxAge: 1000, expires: new Date(now + offset).toISOString(), httpOnly: true, path: '/' }, username: 'alice' });
    const expiresOf = async () => ((await call<{ cookie: { expires: string } }>((done) => store.get('s', done as never)))!).cookie.expires;
    await call((done) => store.set('s', session(60_000) as never, done));
    const first = await expiresOf();
    await call((done) => store.touch('s', session(120_000) as never, done as () => void));
    expect(await expiresOf()).toBe(first);
    now += 99;
    await call((done) => store.touch('s', session(150_000) as never, done as () => void));
    expect(await expiresOf()).toBe(first);
    now += 1;
    const later = session(180_000);
    await call((done) => store.touch('s', later as never, done as () => void));
    expect(await expiresOf()).toBe(later.cookie.expires);
    // A destroyed session is not brought back by a touch, throttled or not.
    await call((done) => store.destroy('s', done));
    await call((done) => store.touch('s', session(240_000) as never, done as () => void));
    expect(await call((done) => store.get('s', done))).toBeNull();
    await store.close();
  });
});
