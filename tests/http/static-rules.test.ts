/**
 * The header rules for static hosts (src/http/static-rules.ts): rendered from the gateway's
 * tables, written by the build into every release, and covering every file of public/.
 * tests/gateway/nginx.test.ts serves them through a real nginx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { renderHeadersFile, renderNginxAccelLocation, renderNginxRules, STATIC_SURFACES, staticSurfaceOf, staticSurfaceOfFile } from '../../src/http/static-rules.ts';
import { paths } from '../../src/store/layout.ts';
import { exported } from '../helpers/catalog.ts';
import { buildFixture, type Fixture } from '../gateway/fixtures.ts';
import { CACHE_CONTROL, CYCLONEDX_CONTENT_TYPE, DOCUMENT_CONTENT_TYPE, HTML_CONTENT_TYPE, JSON_CONTENT_TYPE, SVG_CONTENT_TYPE } from '../helpers/spec.ts';

let fx: Fixture;
/** The static export of the fixture's release (pkgcat export). */
let release: string;

beforeAll(async () => {
  fx = await buildFixture();
  release = (await exported(fx.out))!;
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

/** What each kind of public file must be served with: SPEC.md's values (DECISIONS.md 8 where it is silent). */
const HEADERS_BY_FILE: [RegExp, { cacheControl: string; contentType: string }][] = [
  [/^\/api\/pkgs\/openapi\.json$/, { cacheControl: CACHE_CONTROL.openapi, contentType: JSON_CONTENT_TYPE }],
  [/^\/api\/pkgs\/[^/]+\.json$/, { cacheControl: CACHE_CONTROL.floating, contentType: JSON_CONTENT_TYPE }],
  // SPEC.md: an SBOM's Content-Type follows its format; the file is the default, CycloneDX.
  [/^\/api\/pkgs\/[^/]+\/sbom\.json$/, { cacheControl: CACHE_CONTROL.floating, contentType: CYCLONEDX_CONTENT_TYPE }],
  [/^\/pkgs\/(advisories|changes)\.xml$/, { cacheControl: CACHE_CONTROL.feed, contentType: DOCUMENT_CONTENT_TYPE.atom }],
  [/^\/(pkgs|advisories)\/[^/]+\.md$/, { cacheControl: CACHE_CONTROL.pages, contentType: DOCUMENT_CONTENT_TYPE.markdown }],
  [/^\/llms(-full)?\.txt$/, { cacheControl: CACHE_CONTROL.pages, contentType: DOCUMENT_CONTENT_TYPE.text }],
  // llms-full.txt in parts (the first is /llms-full.txt too).
  [/^\/llms-full\/[1-9][0-9]*\.txt$/, { cacheControl: CACHE_CONTROL.pages, contentType: DOCUMENT_CONTENT_TYPE.text }],
  [/^\/sitemap\.xml$/, { cacheControl: CACHE_CONTROL.pages, contentType: DOCUMENT_CONTENT_TYPE.xml }],
  [/^\/api\/pkgs\/[^/]+\/badge(\.advisories)?\.svg$/, { cacheControl: CACHE_CONTROL.floating, contentType: SVG_CONTENT_TYPE }],
  // DECISIONS.md 8: the HTML pages.
  [/\.html$/, { cacheControl: CACHE_CONTROL.pages, contentType: HTML_CONTENT_TYPE }],
];

describe('static host rules', () => {
  it('cover every file pkgcat export writes into public/ with the gateway\'s Cache-Control and Content-Type', async () => {
    const root = paths.public(release);
    const files = (await readdir(root, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile()).map((entry) => `/${join(entry.parentPath, entry.name).slice(root.length + 1)}`);
    expect(files.length).toBeGreaterThan(10);
    const pages = files.filter((file) => file.endsWith('.html'));
    expect(pages).toEqual(expect.arrayContaining(['/index.html', '/changes.html', '/pkgs/curl.html', '/pkgs/llama.cpp.html', '/advisories/PKGCAT-TEST-0002.html']));
    for (const file of files) {
      if (file === '/_headers') continue;
      const surface = staticSurfaceOfFile(file);
      expect(surface, `${file} has a static rule`).not.toBeNull();
      const want = HEADERS_BY_FILE.find(([pattern]) => pattern.test(file));
      expect(want, `${file} is a known kind of file`).toBeDefined();
      expect({ cacheControl: surface!.cacheControl, contentType: surface!.contentType }, file).toEqual(want![1]);
    }
    for (const file of ['/api/pkgs/curl/sbom.json', '/pkgs/llama.cpp.md', '/advisories/PKGCAT-TEST-0002.md', '/pkgs/advisories.xml', '/pkgs/changes.xml', '/llms.txt', '/llms-full.txt', '/llms-full/1.txt', '/sitemap.xml']) {
      expect(files, `the build wrote ${file}`).toContain(file);
    }
    expect(files).toContain('/api/pkgs/zlib/badge.svg');
    expect(files).toContain('/api/pkgs/zlib/badge.advisories.svg');
    expect(staticSurfaceOf('/api/pkgs/zlib/badge.svg')!.gatewayQuery).toEqual(['style', 'label']);
    expect(staticSurfaceOf('/api/pkgs/zlib/badge.advisories.svg')!.gatewayQuery).toEqual([]);
    // A page answers at its path without an extension, like its record's `page` link.
    expect(staticSurfaceOf('/pkgs/llama.cpp')!.id).toBe('package-page');
    expect(staticSurfaceOf('/')!.id).toBe('search-page');
    expect(staticSurfaceOf('/advisories/PKGCAT-TEST-0002')!.id).toBe('advisory-page');
    expect(staticSurfaceOf('/api/pkgs/recent-commits.json')!.gatewayQuery).toEqual(['limit']);
    expect(staticSurfaceOf('/api/pkgs/bundle/latest.json')).toBeNull();
    expect(staticSurfaceOf(`/api/pkgs/bundle/${fx.tip}.json`)).toBeNull();
  });

  it('are written by pkgcat export beside public/: nginx (both flavours), and _headers inside it', async () => {
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
    // A page is the file named like its path, with `.html`.
    expect(standalone).toContain('location = / {');
    expect(standalone).toContain('try_files /index.html @pkgcat_not_found;');
    expect(standalone).toContain('try_files /changes.html @pkgcat_not_found;');
    expect(standalone).toContain('location ~ ^/pkgs/[^/]+$ {');
    expect(standalone).toContain('try_files $uri.html @pkgcat_not_found;');
    const withGateway = renderNginxRules({ flavour: 'gateway' });
    expect(withGateway).toContain('try_files $uri @pkgcat_gateway;');
    expect(withGateway).toContain('if ($arg_limit) { return 418; }');
    // A badge: style and label go to the gateway, and so does a name that is no file, before the metric's rewrite.
    expect(withGateway).toContain(
      `    if ($arg_style) { return 418; }\n    if ($arg_label) { return 418; }\n    if (!-f $request_filename) { return 418; }\n    ${rewrite}\n`,
    );
    expect(withGateway).not.toContain('@pkgcat_not_found');
  });

  it('_headers: one rule per kind of file, none matching another\'s files but a fixed file of other headers after the rule covering it', () => {
    const rules = parseHeadersFile(renderHeadersFile());
    const common = { 'X-Content-Type-Options': 'nosniff', Vary: 'Accept-Encoding' };
    const rule = (cacheControl: string, contentType: string) => ({ 'Cache-Control': cacheControl, 'Content-Type': contentType, ...common });
    expect(Object.fromEntries(rules)).toEqual({
      // `:placeholder` is one path segment on Netlify and Cloudflare Pages: /api/pkgs/:name covers
      // zlib.json and recent-commits.json (same headers, so the latter gets no rule of its own), not zlib/sbom.json;
      // and openapi.json, whose Cache-Control differs: it has a rule of its own, after.
      '/api/pkgs/:name/sbom.json': rule(CACHE_CONTROL.floating, CYCLONEDX_CONTENT_TYPE),
      '/api/pkgs/:name': rule(CACHE_CONTROL.floating, JSON_CONTENT_TYPE),
      '/api/pkgs/openapi.json': rule(CACHE_CONTROL.openapi, JSON_CONTENT_TYPE),
      // A splat keeps the segment's text: /pkgs/:name would also match /pkgs/advisories.xml.
      '/pkgs/*.md': rule(CACHE_CONTROL.pages, DOCUMENT_CONTENT_TYPE.markdown),
      '/advisories/*.md': rule(CACHE_CONTROL.pages, DOCUMENT_CONTENT_TYPE.markdown),
      '/llms-full/*.txt': rule(CACHE_CONTROL.pages, DOCUMENT_CONTENT_TYPE.text),
      '/pkgs/advisories.xml': rule(CACHE_CONTROL.feed, DOCUMENT_CONTENT_TYPE.atom),
      '/pkgs/changes.xml': rule(CACHE_CONTROL.feed, DOCUMENT_CONTENT_TYPE.atom),
      '/llms.txt': rule(CACHE_CONTROL.pages, DOCUMENT_CONTENT_TYPE.text),
      '/llms-full.txt': rule(CACHE_CONTROL.pages, DOCUMENT_CONTENT_TYPE.text),
      '/sitemap.xml': rule(CACHE_CONTROL.pages, DOCUMENT_CONTENT_TYPE.xml),
      // A badge and its advisories variant (a file of its own, for static hosts that do not route on the query).
      '/api/pkgs/:name/badge.svg': rule(CACHE_CONTROL.floating, SVG_CONTENT_TYPE),
      '/api/pkgs/:name/badge.advisories.svg': rule(CACHE_CONTROL.floating, SVG_CONTENT_TYPE),
      // The fixed pages, named exactly; a page at a path with a parameter (/pkgs/curl) has no rule,
      // as no pattern can tell it from the other files of its folder: the host's own headers serve it.
      '/changes': rule(CACHE_CONTROL.pages, HTML_CONTENT_TYPE),
      '/': rule(CACHE_CONTROL.pages, HTML_CONTENT_TYPE),
    });
    // As the hosts match (`:name` one segment, `*` anything): every file matches exactly one rule.
    const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const hostPattern = (rule: string) => new RegExp(`^${rule.split('/').map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.split('*').map(escape).join('.*'))).join('/')}$`);
    expect([...rules.keys()].filter((key) => hostPattern(key).test('/api/pkgs/openapi.json'))).toEqual(['/api/pkgs/:name', '/api/pkgs/openapi.json']);
    for (const path of ['/api/pkgs/zlib/badge.svg', '/api/pkgs/zlib/badge.advisories.svg', '/api/pkgs/zlib.json', '/api/pkgs/recent-commits.json', '/api/pkgs/zlib/sbom.json', '/pkgs/llama.cpp.md', '/pkgs/advisories.xml', '/pkgs/changes.xml', '/advisories/X-1.md', '/llms.txt', '/llms-full.txt', '/llms-full/1.txt', '/sitemap.xml', '/', '/changes']) {
      expect([...rules.keys()].filter((key) => hostPattern(key).test(path)), path).toHaveLength(1);
    }
    expect(renderHeadersFile()).toContain('#   /api/pkgs/:name/badge.svg?metric=advisories -> /api/pkgs/:name/badge.advisories.svg\n');
  });

  it('the X-Accel-Redirect location is internal, aliases the output, and copies the gateway\'s headers', () => {
    const location = renderNginxAccelLocation('/_pkgcat', '/srv/pkgcat/out/');
    expect(location).toContain('location /_pkgcat/ {\n    internal;\n    alias /srv/pkgcat/out/;');
    for (const header of ['etag', 'vary', 'content_encoding', 'x_content_type_options']) expect(location).toContain(`$upstream_http_${header};`);
    expect(() => renderNginxAccelLocation('_pkgcat', '/srv')).toThrow();
    expect(() => renderNginxAccelLocation('/_pkgcat', 'relative/out')).toThrow();
  });
});
