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
import { CACHE_CONTROL, JSON_CONTENT_TYPE, SVG_CONTENT_TYPE } from '../helpers/spec.ts';

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
      expect(surface!.cacheControl).toBe(CACHE_CONTROL.floating);
      expect(surface!.contentType).toBe(file.endsWith('.svg') ? SVG_CONTENT_TYPE : JSON_CONTENT_TYPE);
    }
    expect(files).toContain('/api/pkgs/zlib/badge.svg');
    expect(files).toContain('/api/pkgs/zlib/badge.advisories.svg');
    expect(staticSurfaceOf('/api/pkgs/recent-commits.json')!.gatewayQuery).toEqual(['limit']);
    expect(staticSurfaceOf('/api/pkgs/zlib/badge.svg')!.gatewayQuery).toEqual(['style', 'label']);
    expect(staticSurfaceOf('/api/pkgs/zlib/badge.advisories.svg')!.gatewayQuery).toEqual([]);
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
    const rewrite = 'if ($arg_metric = "advisories") { rewrite ^/api/pkgs/([^/]+)/badge\\.svg$ /api/pkgs/$1/badge.advisories.svg last; }';
    expect(standalone).toContain(rewrite);
    expect(standalone).not.toContain('$arg_style');
    const withGateway = renderNginxRules({ flavour: 'gateway' });
    expect(withGateway).toContain('try_files $uri @pkgcat_gateway;');
    expect(withGateway).toContain('if ($arg_limit) { return 418; }');
    // A badge: style and label go to the gateway, and so does a name that is no file, before the metric's rewrite.
    expect(withGateway).toContain(
      `    if ($arg_style) { return 418; }\n    if ($arg_label) { return 418; }\n    if (!-f $request_filename) { return 418; }\n    ${rewrite}\n`,
    );
    expect(withGateway).not.toContain('@pkgcat_not_found');
  });

  it('_headers: one rule per file, so a host does not repeat values', () => {
    const text = renderHeadersFile();
    const rules = parseHeadersFile(text);
    // `:name` is one path segment on both hosts, so the JSON rule does not reach the badges below it.
    expect([...rules.keys()].sort()).toEqual(['/api/pkgs/:name', '/api/pkgs/:name/badge.advisories.svg', '/api/pkgs/:name/badge.svg']);
    const common = { 'Cache-Control': CACHE_CONTROL.floating, 'X-Content-Type-Options': 'nosniff', Vary: 'Accept-Encoding' };
    expect(rules.get('/api/pkgs/:name')).toEqual({ ...common, 'Content-Type': JSON_CONTENT_TYPE });
    expect(rules.get('/api/pkgs/:name/badge.svg')).toEqual({ ...common, 'Content-Type': SVG_CONTENT_TYPE });
    expect(rules.get('/api/pkgs/:name/badge.advisories.svg')).toEqual({ ...common, 'Content-Type': SVG_CONTENT_TYPE });
    expect(text).toContain('#   /api/pkgs/:name/badge.svg?metric=advisories -> /api/pkgs/:name/badge.advisories.svg\n');
  });

  it('the X-Accel-Redirect location is internal, aliases the output, and copies the gateway\'s headers', () => {
    const location = renderNginxAccelLocation('/_pkgcat', '/srv/pkgcat/out/');
    expect(location).toContain('location /_pkgcat/ {\n    internal;\n    alias /srv/pkgcat/out/;');
    for (const header of ['etag', 'vary', 'content_encoding', 'x_content_type_options']) expect(location).toContain(`$upstream_http_${header};`);
    expect(() => renderNginxAccelLocation('_pkgcat', '/srv')).toThrow();
    expect(() => renderNginxAccelLocation('/_pkgcat', 'relative/out')).toThrow();
  });
});
