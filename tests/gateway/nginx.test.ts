/**
 * Through a real nginx (Debian's; skipped when it is not installed), against the fixture catalog:
 *
 *   - the anonymous directory served by nginx with the rules the build wrote
 *     (`static/nginx-anonymous.conf`): the gateway's headers and bytes, no cookie;
 *   - the same with misses sent to the gateway (`static/nginx-anonymous-gateway.conf`);
 *   - nginx in front of a gateway in X-Accel-Redirect mode: every answer, headers and bytes, as
 *     the gateway alone sends it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { renderNginxAccelFront, renderNginxRules } from '../../src/http/static-rules.ts';
import { paths } from '../../src/store/layout.ts';
import { exported } from '../helpers/catalog.ts';
import { findNginx, startNginx, type Nginx } from '../../bench/helpers/nginx.ts';
import { AT, buildFixture, type Fixture } from './fixtures.ts';
import { rawGet, startGateway, type Gateway, signIn } from './harness.ts';
import { CACHE_CONTROL } from '../helpers/spec.ts';

const binary = findNginx();
if (binary === null) {
  console.warn('nginx.test.ts: nginx is not installed, so the tests through a real nginx are SKIPPED (apt-get install -y nginx)');
}

const PREFIX = '/_pkgcat';

type Raw = Awaited<ReturnType<typeof rawGet>>;

/** What nginx adds or sends per connection, and the gateway's per-transfer headers. */
const TRANSPORT = new Set(['date', 'connection', 'keep-alive', 'server', 'last-modified', 'transfer-encoding', 'content-length', 'x-accel-redirect']);

function comparable(reply: Raw): Record<string, string | string[] | undefined> {
  return Object.fromEntries(Object.entries(reply.headers).filter(([name]) => !TRANSPORT.has(name)));
}

function expectSame(through: Raw, direct: Raw): void {
  expect(through.status).toBe(direct.status);
  expect(comparable(through)).toEqual(comparable(direct));
  expect(through.headers['set-cookie']).toBeUndefined();
  expect(through.headers['x-accel-redirect']).toBeUndefined();
  if (direct.headers['content-length'] !== undefined && through.headers['transfer-encoding'] === undefined) {
    expect(through.headers['content-length']).toBe(direct.headers['content-length']);
  }
  expect(through.body.equals(direct.body)).toBe(true);
}

describe.skipIf(binary === null)('through nginx', () => {
  let fx: Fixture;
  let gateway: Gateway;
  let accel: Gateway;
  let nginx: Nginx;
  let ports: { standalone: number; withGateway: number; accel: number };
  let cookie: string;
  let accelCookie: string;

  beforeAll(async () => {
    fx = await buildFixture();
    gateway = await startGateway(fx.out, join(fx.dir, 'plain'));
    accel = await startGateway(fx.out, join(fx.dir, 'accel'), { accelRedirect: PREFIX });
    cookie = await gateway.signIn();
    // A static host serves the release as pkgcat export writes it, with the export's own rules, so this checks what it wrote as much as the renderer.
    const current = (await exported(fx.out))!;
    expect(await readFile(paths.staticRules.nginx(current), 'utf8')).toBe(renderNginxRules());
    expect(await readFile(paths.staticRules.nginxGateway(current), 'utf8')).toBe(renderNginxRules({ flavour: 'gateway' }));
    const gatewayPort = new URL(gateway.url).port;
    const accelPort = new URL(accel.url).port;
    // One nginx per server block: each needs a free port of its own.
    const standalone = await startNginx(binary!, {
      http: `  server {
    listen 127.0.0.1:{{port}};
    root ${paths.public(current)};
    include ${paths.staticRules.nginx(current)};
  }`,
    });
    const withGateway = await startNginx(binary!, {
      http: `  server {
    listen 127.0.0.1:{{port}};
    root ${paths.public(current)};
    include ${paths.staticRules.nginxGateway(current)};
    location @pkgcat_gateway { proxy_pass http://127.0.0.1:${gatewayPort}; }
  }`,
    });
    const front = await startNginx(binary!, {
      http: renderNginxAccelFront({ gateways: [`127.0.0.1:${accelPort}`], listen: '127.0.0.1:{{port}}', prefix: PREFIX, out: fx.out, keepalive: 8 }),
    });
    nginxes.push(standalone, withGateway, front);
    nginx = front;
    ports = { standalone: standalone.port, withGateway: withGateway.port, accel: front.port };
    accelCookie = await signIn(nginx.url);
  });

  const nginxes: Nginx[] = [];

  afterAll(async () => {
    for (const server of nginxes) await server.stop();
    await gateway?.close();
    await accel?.close();
    await fx?.cleanup();
  });


  const at = (port: number) => `http://127.0.0.1:${port}`;

  describe('the anonymous directory with the generated rules', () => {
    it.each([
      '/api/pkgs/curl.json', '/api/pkgs/SQLite.json', '/api/pkgs/llama.cpp.json', '/api/pkgs/recent-commits.json',
      '/pkgs/llama.cpp.md', '/pkgs/curl.md', '/advisories/PKGCAT-TEST-0002.md', '/llms.txt', '/llms-full.txt', '/llms-full/1.txt', '/sitemap.xml', '/pkgs/advisories.xml', '/pkgs/changes.xml',
      // The pages: each path served from its `.html` file.
      '/', '/pkgs/curl', '/pkgs/llama.cpp', '/changes', '/advisories/PKGCAT-TEST-0002',
    ])('%s: the gateway\'s headers and bytes', async (path) => {
      const direct = await rawGet(gateway.url, path, { 'accept-encoding': 'identity' });
      expect(direct.status).toBe(200);
      expectSame(await rawGet(at(ports.standalone), path, { 'accept-encoding': 'identity' }), direct);
      expectSame(await rawGet(at(ports.withGateway), path, { 'accept-encoding': 'identity' }), direct);
    });

    it.each(['/api/pkgs/zlib/badge.svg', '/api/pkgs/zlib/badge.svg?metric=advisories', '/api/pkgs/curl/badge.svg?metric=bogus', '/api/pkgs/curl/badge.svg?metric=score'])(
      '%s: the gateway\'s headers and bytes (a metric with a file of its own is rewritten to it)',
      async (path) => {
        const direct = await rawGet(gateway.url, path, { 'accept-encoding': 'identity' });
        expect(direct.status).toBe(200);
        expectSame(await rawGet(at(ports.standalone), path, { 'accept-encoding': 'identity' }), direct);
        expectSame(await rawGet(at(ports.withGateway), path, { 'accept-encoding': 'identity' }), direct);
      },
    );

    it('standalone: a badge\'s style and label are ignored, the default badge comes back', async () => {
      const plain = await rawGet(gateway.url, '/api/pkgs/zlib/badge.svg?metric=advisories', { 'accept-encoding': 'identity' });
      expectSame(await rawGet(at(ports.standalone), '/api/pkgs/zlib/badge.svg?metric=advisories&style=plastic&label=x', { 'accept-encoding': 'identity' }), plain);
    });

    it('compresses from 1 KiB when asked, as the gateway does (gzip: nginx has no brotli)', async () => {
      const reply = await rawGet(at(ports.standalone), '/api/pkgs/curl.json', { 'accept-encoding': 'gzip' });
      expect(reply.headers['content-encoding']).toBe('gzip');
      expect(reply.headers.vary).toBe('Accept-Encoding');
      const small = await rawGet(at(ports.standalone), '/api/pkgs/ggml.json', { 'accept-encoding': 'gzip' });
      expect(small.body.length).toBeLessThan(1024);
      expect(small.headers['content-encoding']).toBeUndefined();
    });

    it('answers no conditional or range request', async () => {
      const reply = await rawGet(at(ports.standalone), '/api/pkgs/curl.json', { 'accept-encoding': 'identity', 'if-modified-since': 'Fri, 01 Jan 2100 00:00:00 GMT', range: 'bytes=0-9' });
      expect(reply.status).toBe(200);
      expect(reply.headers.etag).toBeUndefined();
      expect(reply.headers['accept-ranges']).toBeUndefined();
    });

    it('standalone: another spelling or an unknown name is the gateway\'s 404 with its negative cache', async () => {
      for (const path of ['/api/pkgs/sqlite.json', '/api/pkgs/no-such-package.json']) {
        const reply = await rawGet(at(ports.standalone), path);
        expect(reply.status).toBe(404);
        expect(reply.headers['cache-control']).toBe(CACHE_CONTROL.negative);
        expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(JSON.parse(reply.body.toString()).error).toBe('not_found');
      }
    });

    it('with the gateway: another spelling, an unknown name, ?limit=, a badge\'s style and label are the gateway\'s answers', async () => {
      for (const path of [
        '/api/pkgs/sqlite.json',
        '/api/pkgs/no-such-package.json',
        '/api/pkgs/recent-commits.json?limit=3',
        '/pkgs/sqlite.md',
        '/advisories/PKGCAT-TEST-0001.md',
        '/api/pkgs/zlib/badge.svg?style=plastic',
        '/api/pkgs/zlib/badge.svg?metric=advisories&label=zlib%20advisories',
        '/api/pkgs/SQLITE/badge.svg?metric=advisories',
        '/api/pkgs/no-such-package/badge.svg?metric=advisories',
      ]) {
        expectSame(await rawGet(at(ports.withGateway), path, { 'accept-encoding': 'identity' }), await rawGet(gateway.url, path, { 'accept-encoding': 'identity' }));
      }
    });
  });

  describe('nginx in front of the gateway in X-Accel-Redirect mode', () => {
    const paths = () => [
      '/api/pkgs/curl.json',
      '/api/pkgs/recent-commits.json',
      '/api/pkgs/recent-commits.json?limit=4',
      '/api/pkgs/curl/badge.svg?metric=advisories',
      '/api/pkgs/curl/badge.svg?style=for-the-badge&label=curl',
      `/api/pkgs/bundle/${fx.tip}.json`,
      `/api/pkgs/bundle/${fx.tip}/full.json`,
      `/api/pkgs/bundle/${fx.tip}/curl/deps.json`,
      `/api/pkgs/bundle/${fx.tip}/ticker/versions.json`,
      `/api/pkgs/bundle/${fx.tip}/diff/${fx.shas[AT.import]}.json`,
      `/api/pkgs/bundle/${fx.tip.slice(0, 12)}/full.json`,
      `/api/pkgs/bundle/${fx.tip}/nosuchpackage/deps.json`,
      '/api/pkgs/bundle/latest.json',
    ];

    it.each(['identity', 'br', 'gzip'])('every answer, signed in, Accept-Encoding %s: headers and bytes as the gateway alone sends them', async (encoding) => {
      for (const path of paths()) {
        const direct = await rawGet(gateway.url, path, { 'accept-encoding': encoding, cookie });
        const through = await rawGet(nginx.url, path, { 'accept-encoding': encoding, cookie: accelCookie });
        expectSame(through, direct);
      }
    });

    it('signed out: the 401 comes through as the gateway sends it', async () => {
      const path = `/api/pkgs/bundle/${fx.tip}/full.json`;
      const through = await rawGet(nginx.url, path, { 'accept-encoding': 'br' });
      expect(through.status).toBe(401);
      expectSame(through, await rawGet(gateway.url, path, { 'accept-encoding': 'br' }));
    });

    it('HEAD: the headers of the body, no body', async () => {
      const path = `/api/pkgs/bundle/${fx.tip}/full.json`;
      const head = await fetch(`${nginx.url}${path}`, { method: 'HEAD', headers: { 'accept-encoding': 'br', cookie: accelCookie } });
      const get = await rawGet(gateway.url, path, { 'accept-encoding': 'br', cookie });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe(get.headers['content-length']);
      expect(head.headers.get('content-encoding')).toBe('br');
      expect(head.headers.get('etag')).toBe(get.headers.etag);
    });

    it('does not serve the internal location to a client', async () => {
      const reply = await rawGet(nginx.url, `${PREFIX}/current/release.json`);
      expect(reply.status).not.toBe(200);
    });
  });
});
