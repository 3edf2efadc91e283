/**
 * Driving the gateway over real HTTP: a server on an ephemeral port (gateway/server.ts, as
 * `pkgcat serve` runs it), a user who can sign in, and requests that see exactly what was sent
 * (no redirect following; identity encoding unless a test asks for another).
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { addUser } from '../../gateway/auth/users.ts';
import { startServer, type RunningServer, type ServerOptions } from '../../gateway/server.ts';
import { assembleBody, currentReleaseId, lookupPackage, readListing, readObject, readStateRoot } from '../../src/store/layout.ts';
import { composeDiff } from '../../src/compose/diff.ts';
import { serialize } from '../../src/serialize.ts';
import { afterAll, beforeAll } from 'vitest';
import { buildFixture, type Fixture } from './fixtures.ts';
import { exportedFile } from '../helpers/catalog.ts';

export const USER = { username: 'alice', password: 'correct horse battery staple' } as const;
const SECRET = 'gateway-test-secret-gateway-test-secret-0123456789';

export interface Gateway extends RunningServer {
  /** Signs in with USER; resolves with the `name=value` cookie to replay. */
  signIn(): Promise<string>;
}

/** Signs USER in at a gateway (or a proxy in front of one); resolves with the `name=value` cookie to replay. */
export async function signIn(base: string): Promise<string> {
  const response = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(USER),
  });
  if (response.status !== 200) throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
  const cookie = response.headers.getSetCookie().find((line) => line.startsWith('pkgcat.sid='));
  if (!cookie) throw new Error('sign-in set no session cookie');
  return cookie.split(';')[0];
}

/** Starts the gateway over `out`; sessions and the users file live in `dir`. `options` go to startServer as they are. */
export async function startGateway(out: string, dir: string, options: Partial<ServerOptions> = {}): Promise<Gateway> {
  const usersFile = join(dir, 'users.json');
  await addUser(usersFile, USER.username, USER.password);
  const server = await startServer({ out, usersFile, host: '127.0.0.1', port: 0, sessionDir: join(dir, 'sessions'), sessionSecret: SECRET, log: () => {}, ...options });
  return {
    ...server,
    close: () => server.close(),
    signIn: () => signIn(server.url),
  };
}

export interface SignedInGateway {
  fx: Fixture;
  gw: Gateway;
  /** The `name=value` session cookie of USER. */
  cookie: string;
}

/**
 * For a whole test file: builds the fixture catalog, starts a gateway over it and signs in;
 * `receive` gets them before the first test, and everything is stopped after the last.
 */
export function withSignedInGateway(receive: (context: SignedInGateway) => void): void {
  let context: SignedInGateway | undefined;
  beforeAll(async () => {
    const fx = await buildFixture();
    const gw = await startGateway(fx.out, fx.dir);
    context = { fx, gw, cookie: await gw.signIn() };
    receive(context);
  });
  afterAll(async () => {
    await context?.gw.close();
    await context?.fx.cleanup();
  });
}

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Buffer;
  json<T = unknown>(): T;
}

/** GET (or `method`, with `body` of `contentType`) with fetch: `redirect: 'manual'`, `Accept-Encoding: identity` unless given. */
export async function send(
  base: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer; contentType?: string } = {},
): Promise<Reply> {
  const response = await fetch(`${base}${path}`, {
    method: init.method ?? 'GET',
    headers: { 'accept-encoding': 'identity', ...(init.contentType ? { 'content-type': init.contentType } : {}), ...init.headers },
    body: init.body,
    redirect: 'manual',
  });
  const body = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, body, json: <T>() => JSON.parse(body.toString('utf8')) as T };
}

/** A GET that keeps the body exactly as sent (fetch would decode br/gzip). */
export function rawGet(base: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${base}${path}`, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

/** The bytes the build wrote for each surface: what the gateway must answer, byte for byte. */
export const expected = {
  publicFile(out: string, file: string): Promise<Buffer> {
    return exportedFile(out, file);
  },
  packageRecord(out: string, canonical: string): Promise<Buffer> {
    return expected.publicFile(out, `api/pkgs/${canonical}.json`);
  },
  async listing(out: string, sha: string): Promise<{ bytes: Buffer; etag: string }> {
    const root = (await readStateRoot(out, sha))!;
    return { bytes: await assembleBody(out, root.listing), etag: root.listing.etag };
  },
  async full(out: string, sha: string): Promise<{ bytes: Buffer; etag: string }> {
    const root = (await readStateRoot(out, sha))!;
    return { bytes: await assembleBody(out, root.full), etag: root.full.etag };
  },
  /** deps.json or versions.json of `key` at `sha`; null when the index has no such body. */
  async packageObject(out: string, sha: string, key: string, member: 'deps' | 'versions'): Promise<{ bytes: Buffer; etag: string; hash: string } | null> {
    const root = (await readStateRoot(out, sha))!;
    const hash = (await lookupPackage(out, root, key))?.[member];
    return hash ? { bytes: await readObject(out, hash), etag: `W/"${hash}"`, hash } : null;
  },
  /** The diff endpoint's body of `sha` against `base`: composeDiff over the two commits' listing bundles. */
  async diff(out: string, sha: string, base: string): Promise<Buffer> {
    const [older, newer] = await Promise.all([readListing(out, base), readListing(out, sha)]);
    return Buffer.from(serialize(composeDiff(older!, newer!)), 'utf8');
  },
};

/** A 7-hex prefix that starts no sha of `shas`. */
export function unusedPrefix(shas: readonly string[]): string {
  for (let n = 0xfffffff; ; n--) {
    const prefix = n.toString(16).padStart(7, '0');
    if (!shas.some((sha) => sha.startsWith(prefix))) return prefix;
  }
}

/** `sha`'s first `length` characters, checked to start no other sha of `shas`. */
export function uniquePrefix(shas: readonly string[], sha: string, length: number): string {
  const prefix = sha.slice(0, length);
  const matches = shas.filter((other) => other.startsWith(prefix));
  if (matches.length !== 1) throw new Error(`${prefix} is not unique in the fixture chain`);
  return prefix;
}
