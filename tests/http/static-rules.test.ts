/**
 * The header rules for static hosts (src/http/static-rules.ts): rendered from the gateway's
 * tables, written by the build into every release, and covering every file of public/.
 * tests/gateway/nginx.test.ts serves them through a real nginx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { renderHeadersFile, renderNginxAccelLocation, renderNginxRules, STATIC_SURFACES, staticSurfaceOf, staticSurfaceOfFile } from '../../src/http/static-rules.ts';
import { currentReleaseId, paths } from '../../src/store/layout.ts';
import { buildFixture, type Fixture } from '../gateway/fixtures.ts';
import { CACHE_CONTROL, HTML_CONTENT_TYPE, JSON_CONTENT_TYPE } from '../helpers/spec.ts';

let fx: Fixture;
let release: string;

beforeAll(async () => {
  fx = await buildFixture();
  release = paths.release(fx.out, (await currentReleaseId(fx.out))!);
});

afterAll(async () => {
  await fx?.cleanup();
});

/** `_headers` as path -> headers. */
function parseHeadersFile(text: string): Map<string, Record<string, string>> {
  const rules = new Map<string, Record<string, string>>();
  let current: Record<string, string> | null = null;
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    if (!line.startsWith(' ')) {
      current = {};
      rules.set(line.trim(), current);
      continue;
    }
    const colon = line.indexOf(':');
    current![line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return rules;
}

describe('static host rules', () => {
  it('cover every file the build writes into public/ with the gateway\'s Cache-Control and Content-Type', async () => {
    const root = paths.public(release);
    const files = (await readdir(root, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile()).map((entry) => `/${join(entry.parentPath, entry.name).slice(root.length + 1)}`);
    expect(files.length).toBeGreaterThan(10);
    const pages = files.filter((file) => file.endsWith('.html'));
    expect(pages).toEqual(expect.arrayContaining(['/index.html', '/changes.html', '/pkgs/curl.html', '/pkgs/llama.cpp.html', '/advisories/PKGCAT-TEST-0002.html']));
    for (const file of files) {
      if (file === '/_headers') continue;
      const surface = staticSurfaceOfFile(file);
      expect(surface, `${file} has a static rule`).not.toBeNull();
      const page = file.endsWith('.html');
      expect(surface!.cacheControl).toBe(page ? CACHE_CONTROL.pages : CACHE_CONTROL.floating);
      expect(surface!.contentType).toBe(page ? HTML_CONTENT_TYPE : JSON_CONTENT_TYPE);
    }
    // A page answers at its path without an extension, like its record's `page` link.
    expect(staticSurfaceOf('/pkgs/llama.cpp')!.id).toBe('package-page');
    expect(staticSurfaceOf('/')!.id).toBe('search-page');
    expect(staticSurfaceOf('/advisories/PKGCAT-TEST-0002')!.id).toBe('advisory-page');
    expect(staticSurfaceOf('/api/pkgs/recent-commits.json')!.queryParameter).toBe('limit');
    expect(staticSurfaceOf('/api/pkgs/bundle/latest.json')).toBeNull();
    expect(staticSurfaceOf(`/api/pkgs/bundle/${fx.tip}.json`)).toBeNull();
  });

  it('are written by the build into the release: nginx (both flavours) and _headers', async () => {
    expect(await readFile(paths.staticRules.nginx(release), 'utf8')).toBe(renderNginxRules());
    expect(await readFile(paths.staticRules.nginxGateway(release), 'utf8')).toBe(renderNginxRules({ flavour: 'gateway' }));
    expect(await readFile(join(paths.public(release), paths.publicFile.headers()), 'utf8')).toBe(renderHeadersFile());
  });

  it('nginx: one location per surface with its headers, no cookie, misses per flavour', () => {
    const standalone = renderNginxRules();
    for (const surface of STATIC_SURFACES) {
      expect(standalone).toContain(`location ${surface.nginxLocation} {`);
      expect(standalone).toContain(`add_header Cache-Control "${surface.cacheControl}";`);
    }
    expect(standalone).toContain('charset utf-8;');
    expect(standalone).toContain('add_header X-Content-Type-Options "nosniff";');
    expect(standalone).toContain('add_header Vary "Accept-Encoding";');
    expect(standalone).toContain(`add_header Cache-Control "${CACHE_CONTROL.negative}" always;`);
    expect(standalone).not.toMatch(/add_header Set-Cookie|proxy_pass|userid/i);
    expect(standalone).not.toContain('@pkgcat_gateway;');
    // A page is the file named like its path, with `.html`.
    expect(standalone).toContain('location = / {');
    expect(standalone).toContain('try_files /index.html @pkgcat_not_found;');
    expect(standalone).toContain('try_files /changes.html @pkgcat_not_found;');
    expect(standalone).toContain('location ~ ^/pkgs/[^/]+$ {');
    expect(standalone).toContain('try_files $uri.html @pkgcat_not_found;');
    const withGateway = renderNginxRules({ flavour: 'gateway' });
    expect(withGateway).toContain('try_files $uri @pkgcat_gateway;');
    expect(withGateway).toContain('if ($arg_limit) { return 418; }');
    expect(withGateway).not.toContain('@pkgcat_not_found');
  });

  it('_headers: one rule per path, so a host does not repeat values', () => {
    const rules = parseHeadersFile(renderHeadersFile());
    // A fixed page is named exactly: `/*` would give every file the search page's headers.
    expect([...rules.keys()].sort()).toEqual(['/', '/advisories/*', '/api/pkgs/*', '/changes', '/pkgs/*']);
    expect(rules.get('/api/pkgs/*')).toEqual({
      'Cache-Control': CACHE_CONTROL.floating,
      'Content-Type': JSON_CONTENT_TYPE,
      'X-Content-Type-Options': 'nosniff',
      Vary: 'Accept-Encoding',
    });
    for (const path of ['/', '/advisories/*', '/changes', '/pkgs/*']) {
      expect(rules.get(path)).toEqual({ 'Cache-Control': CACHE_CONTROL.pages, 'Content-Type': HTML_CONTENT_TYPE, 'X-Content-Type-Options': 'nosniff', Vary: 'Accept-Encoding' });
    }
  });

  it('the X-Accel-Redirect location is internal, aliases the output, and copies the gateway\'s headers', () => {
    const location = renderNginxAccelLocation('/_pkgcat', '/srv/pkgcat/out/');
    expect(location).toContain('location /_pkgcat/ {\n    internal;\n    alias /srv/pkgcat/out/;');
    for (const header of ['etag', 'vary', 'content_encoding', 'x_content_type_options']) expect(location).toContain(`$upstream_http_${header};`);
    expect(() => renderNginxAccelLocation('_pkgcat', '/srv')).toThrow();
    expect(() => renderNginxAccelLocation('/_pkgcat', 'relative/out')).toThrow();
  });
});
