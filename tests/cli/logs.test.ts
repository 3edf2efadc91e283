/**
 * The JSON log, as a log pipeline reads it: `pkgcat serve --repo --log-format json` builds, serves a
 * signed-in user, a failed sign-in and a few requests, and stops; every line it (and its build)
 * printed parses as one JSON object with the documented fields; the access log has one line per
 * request with its route, status, bytes, duration and the id echoed in `X-Request-Id`; and no line
 * holds the password, the session cookie or the session id. Without a terminal, JSON is the default.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalogRepo } from '../../demo/catalog-writer.ts';
import { addUser } from '../../gateway/auth/users.ts';
import { startServeProcess, type ServeProcess } from '../../bench/helpers/serve-process.ts';
import { hoursLater, manifest, temporaryDirectory } from '../helpers/catalog.ts';
import { createLogger } from '../../src/log.ts';
import { cleanEnv, pkgcat } from './run.ts';

const PASSWORD = 'a long and very private passphrase';
const WRONG_PASSWORD = 'not-the-passphrase-at-all';
/** docs/deployment.md "Logs": what every line has. */
const LEVELS = ['info', 'warn', 'error', 'fatal'];

interface LogLine {
  level: string;
  time: string;
  pid: number;
  event: string;
  msg: string;
  [field: string]: unknown;
}

/** Every line of `text` as JSON, with the documented fields checked. */
function parseLines(text: string): LogLine[] {
  const lines = text.split('\n').filter((line) => line !== '');
  return lines.map((line) => {
    const parsed = JSON.parse(line) as LogLine;
    expect(parsed, line).toMatchObject({ level: expect.any(String), time: expect.any(String), pid: expect.any(Number), event: expect.any(String), msg: expect.any(String) });
    expect(LEVELS, line).toContain(parsed.level);
    expect(new Date(parsed.time).toISOString(), line).toBe(parsed.time);
    expect(parsed.event, line).toMatch(/^[a-z]+\.[a-z_]+$/);
    return parsed;
  });
}

describe('serve --log-format json', () => {
  let dir: string;
  let serve: ServeProcess;
  let sha: string;
  let cookie: string;
  let lines: LogLine[];
  const requestIds: Record<string, string | null> = {};

  beforeAll(async () => {
    dir = await temporaryDirectory();
    const repo = join(dir, 'catalog');
    [, sha] = await createCatalogRepo(repo, [
      { message: 'zlib', time: hoursLater(0), files: { 'packages/zlib/manifest.json': manifest('zlib') } },
      { message: 'broken', time: hoursLater(1), files: { 'packages/bad/manifest.json': 'not json' } },
    ]);
    const users = join(dir, 'users.json');
    await addUser(users, 'alice', PASSWORD);
    serve = await startServeProcess(['--out', join(dir, 'out'), '--repo', repo, '--users', users, '--session-dir', join(dir, 'sessions'), '--log-format', 'json'], cleanEnv());
    await serve.waitForLog(/"event":"build.done"/);

    const signIn = await fetch(`${serve.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'alice', password: PASSWORD }) });
    expect(signIn.status).toBe(200);
    cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
    const bundle = await fetch(`${serve.url}/api/pkgs/bundle/${sha}.json?session=${encodeURIComponent(cookie)}`, { headers: { cookie, 'x-request-id': 'from-the-proxy-42' } });
    expect(bundle.status).toBe(200);
    requestIds.bundle = bundle.headers.get('x-request-id');
    requestIds.bundleBytes = String((await bundle.arrayBuffer()).byteLength);
    const wrong = await fetch(`${serve.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `username=alice&password=${encodeURIComponent(WRONG_PASSWORD)}` });
    expect(wrong.status).toBe(401);
    const missing = await fetch(`${serve.url}/no/such/${PASSWORD.replaceAll(' ', '-')}`);
    requestIds.missing = missing.headers.get('x-request-id');
    expect((await fetch(`${serve.url}/auth/logout`, { method: 'POST', headers: { cookie } })).status).toBe(204);
    await serve.stop();
    lines = parseLines(serve.log());
  }, 120_000);

  afterAll(async () => {
    await serve?.stop();
  });

  it("prints every line as JSON, its build's lines too, from start to stop", () => {
    const events = lines.map((line) => line.event);
    for (const event of ['serve.listening', 'serve.sign_in', 'build.diagnostic', 'build.done', 'http.request', 'serve.stopping', 'serve.stopped']) expect(events).toContain(event);
    expect(lines.find((line) => line.event === 'serve.listening')).toMatchObject({ level: 'info', url: serve.url });
    expect(lines.find((line) => line.event === 'build.diagnostic')).toMatchObject({ level: 'warn', severity: 'error', path: 'packages/bad/manifest.json' });
  });

  it('logs one access line per request: route, status, bytes, duration and the id of X-Request-Id', () => {
    const access = lines.filter((line) => line.event === 'http.request');
    expect(access.map((line) => [line.method, line.route, line.status])).toEqual([
      ['POST', 'auth-login', 200],
      ['GET', 'listing-bundle', 200],
      ['POST', 'auth-login', 401],
      ['GET', 'unmatched', 404],
      ['POST', 'auth-logout', 204],
    ]);
    const bundle = access[1]!;
    expect(requestIds.bundle).toBe('from-the-proxy-42');
    expect(bundle).toMatchObject({ requestId: 'from-the-proxy-42', bytes: Number(requestIds.bundleBytes), encoding: 'identity', durationMs: expect.any(Number) });
    expect(access[3]!.requestId).toBe(requestIds.missing);
    expect(requestIds.missing).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('never prints a password, a cookie, a session id or a raw path', () => {
    const log = serve.log();
    const sessionId = decodeURIComponent(cookie.slice('pkgcat.sid='.length)).replace(/^s:/, '').split('.')[0]!;
    expect(sessionId.length).toBeGreaterThan(16);
    for (const secret of [PASSWORD, WRONG_PASSWORD, encodeURIComponent(WRONG_PASSWORD), cookie, encodeURIComponent(cookie), sessionId, 'pkgcat.sid', PASSWORD.replaceAll(' ', '-'), `/api/pkgs/bundle/${sha}.json`]) {
      expect(log).not.toContain(secret);
    }
  });
});

describe('the access log of a burst of requests, then SIGTERM', () => {
  // The JSON log does not wait for each write (docs/deployment.md "Logs"): lines that come while
  // one is written go out together, and what is left is written at exit. None may be lost or torn.
  it('has one whole line per request, and the stop last', async () => {
    const dir = await temporaryDirectory();
    const repo = join(dir, 'catalog');
    await createCatalogRepo(repo, [{ message: 'zlib', time: hoursLater(0), files: { 'packages/zlib/manifest.json': manifest('zlib') } }]);
    const serve = await startServeProcess(['--out', join(dir, 'out'), '--repo', repo, '--log-format', 'json'], cleanEnv());
    try {
      await serve.waitForLog(/"event":"build.done"/);
      const ids = Array.from({ length: 400 }, (_, index) => `burst-${index}`);
      const statuses = await Promise.all(ids.map(async (id) => (await fetch(`${serve.url}/api/pkgs/zlib.json`, { headers: { 'x-request-id': id } })).status));
      expect(new Set(statuses)).toEqual(new Set([200]));
      await serve.stop();
      const lines = parseLines(serve.log());
      const access = lines.filter((line) => line.event === 'http.request');
      expect(access.map((line) => line.requestId).sort()).toEqual([...ids].sort());
      expect(new Set(access.map((line) => line.route))).toEqual(new Set(['package']));
      expect(lines.at(-1)!.event).toBe('serve.stopped');
    } finally {
      await serve.stop();
    }
  }, 120_000);
});

describe('the JSON log of a process that exits at once', () => {
  it('still holds every line it printed', async () => {
    // 20,000 lines and process.exit() in the same tick: what is still queued is written at exit.
    const script = `import { createLogger } from ${JSON.stringify(new URL('../../src/log.ts', import.meta.url).href)};
      const logger = createLogger('json');
      for (let index = 0; index < 20000; index++) logger.access('GET package 200', { requestId: 'line-' + index, status: 200 });
      process.exit(3);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect(code).toBe(3);
    const lines = parseLines(stderr);
    expect(lines).toHaveLength(20000);
    expect(lines.at(-1)).toMatchObject({ event: 'http.request', requestId: 'line-19999', level: 'info' });
  });
});

describe('the log format by default', () => {
  it('is JSON when stderr is no terminal, and text when asked', async () => {
    const dir = await temporaryDirectory();
    const repo = join(dir, 'catalog');
    await createCatalogRepo(repo, [{ message: 'zlib', time: hoursLater(0), files: { 'packages/zlib/manifest.json': manifest('zlib') } }]);
    const env = cleanEnv();
    delete env.PKGCAT_LOG_FORMAT;
    const json = await pkgcat(['build', '--repo', repo, '--out', join(dir, 'out')], { env });
    expect(json.code).toBe(0);
    // (The site's pages are compiled once per version of their sources: a first build says so.)
    const events = parseLines(json.stderr).map((line) => line.event).filter((event) => event !== 'build.site_compile');
    expect(events).toEqual(['build.progress', 'build.progress', 'build.done']);
    const text = await pkgcat(['build', '--repo', repo, '--out', join(dir, 'out'), '--log-format', 'text'], { env });
    expect(text.stderr).toMatch(/^pkgcat: [0-9a-f]{12} is already built and published \(1 commits\); nothing to do\n$/);
  });
});

describe('the JSON log of a field that would hold a secret', () => {
  it('is censored, wherever a caller puts it', () => {
    const lines: string[] = [];
    const logger = createLogger('json', (line) => lines.push(line));
    logger.warn('test.event', 'a line', { password: PASSWORD, cookie: 'pkgcat.sid=s%3Aabc', nested: { sessionId: 'abc', authorization: 'Basic xyz' }, kept: 'visible' });
    const [line] = parseLines(lines.join(''));
    expect(line).toMatchObject({ password: '[redacted]', cookie: '[redacted]', nested: { sessionId: '[redacted]', authorization: '[redacted]' }, kept: 'visible', event: 'test.event', msg: 'a line' });
    expect(lines.join('')).not.toContain(PASSWORD);
  });
});
