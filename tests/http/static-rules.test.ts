/**
 * The header rules for static hosts (src/http/static-rules.ts): rendered from the gateway's
 * tables, written by the build into every release, and covering every file of public/.
 * tests/gateway/nginx.test.ts serves them through a real nginx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { renderHeadersFile, renderNginxAccelLocation, renderNginxRules, STATIC_SURFACES, staticSurfaceOf } from '../../src/http/static-rules.ts';
import { currentReleaseId, paths } from '../../src/store/layout.ts';
import { buildFixture, type Fixture } from '../gateway/fixtures.ts';
import { CACHE_CONTROL, CYCLONEDX_CONTENT_TYPE, JSON_CONTENT_TYPE } from '../helpers/spec.ts';

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
    for (const file of files) {
      if (file === '/_headers') continue;
      const surface = staticSurfaceOf(file);
      expect(surface, `${file} has a static rule`).not.toBeNull();
      expect(surface!.cacheControl).toBe(file === '/api/pkgs/openapi.json' ? CACHE_CONTROL.openapi : CACHE_CONTROL.floating);
      // SPEC.md: an SBOM's Content-Type follows its format; the file is the default, CycloneDX.
      expect(surface!.contentType).toBe(file.endsWith('/sbom.json') ? CYCLONEDX_CONTENT_TYPE : JSON_CONTENT_TYPE);
    }
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
    const withGateway = renderNginxRules({ flavour: 'gateway' });
    expect(withGateway).toContain('try_files $uri @pkgcat_gateway;');
    expect(withGateway).toContain('if ($arg_limit) { return 418; }');
    expect(withGateway).not.toContain('@pkgcat_not_found');
  });

  it('_headers: one rule per path, so a host does not repeat values; a fixed file of other headers after the rule covering it', () => {
    const rules = parseHeadersFile(renderHeadersFile());
    // `:placeholder` is one path segment on Netlify and Cloudflare Pages: /api/pkgs/:name covers
    // zlib.json and recent-commits.json (same headers), not zlib/sbom.json; and openapi.json, whose
    // Cache-Control differs: it has a rule of its own, after.
    expect([...rules.keys()]).toEqual(['/api/pkgs/:name/sbom.json', '/api/pkgs/:name', '/api/pkgs/openapi.json']);
    expect(rules.get('/api/pkgs/openapi.json')).toEqual({
      'Cache-Control': CACHE_CONTROL.openapi,
      'Content-Type': JSON_CONTENT_TYPE,
      'X-Content-Type-Options': 'nosniff',
      Vary: 'Accept-Encoding',
    });
    expect(rules.get('/api/pkgs/:name')).toEqual({
      'Cache-Control': CACHE_CONTROL.floating,
      'Content-Type': JSON_CONTENT_TYPE,
      'X-Content-Type-Options': 'nosniff',
      Vary: 'Accept-Encoding',
    });
    expect(rules.get('/api/pkgs/:name/sbom.json')).toEqual({
      'Cache-Control': CACHE_CONTROL.floating,
      'Content-Type': CYCLONEDX_CONTENT_TYPE,
      'X-Content-Type-Options': 'nosniff',
      Vary: 'Accept-Encoding',
    });
  });

  it('the X-Accel-Redirect location is internal, aliases the output, and copies the gateway\'s headers', () => {
    const location = renderNginxAccelLocation('/_pkgcat', '/srv/pkgcat/out/');
    expect(location).toContain('location /_pkgcat/ {\n    internal;\n    alias /srv/pkgcat/out/;');
    for (const header of ['etag', 'vary', 'content_encoding', 'x_content_type_options']) expect(location).toContain(`$upstream_http_${header};`);
    expect(() => renderNginxAccelLocation('_pkgcat', '/srv')).toThrow();
    expect(() => renderNginxAccelLocation('/_pkgcat', 'relative/out')).toThrow();
  });
});
