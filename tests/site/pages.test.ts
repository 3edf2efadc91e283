/**
 * The HTML pages over real HTTP through the gateway, against the gateway fixture
 * (tests/gateway/fixtures.ts: PKGCAT-TEST-0002 is active on openssl at the tip; curl reaches it,
 * and every plugin through curl): the pages' headers, the inline JSON byte for byte, escaping,
 * nothing fetched from elsewhere, and the page-weight budget (docs/site.md).
 */
import { describe, expect, it } from 'vitest';
import { send, withSignedInGateway, type SignedInGateway } from '../gateway/harness.ts';
import { CACHE_CONTROL, HTML_CONTENT_TYPE } from '../helpers/spec.ts';

let context: SignedInGateway;
withSignedInGateway((received) => (context = received));

const page = async (path: string) => {
  const reply = await send(context.gw.url, path);
  return { ...reply, html: reply.body.toString('utf8') };
};

/** The text of the `<script type="application/json" id="...">` element, exactly as the page carries it. */
function inlineJson(html: string, id: string): string {
  const match = new RegExp(`<script type="application/json" id="${id}">([^]*?)</script>`).exec(html);
  if (!match) throw new Error(`no inline #${id}`);
  return match[1];
}

/**
 * The page-weight budget (docs/site.md): bytes of HTML besides the inline JSON (the search page
 * lists every package: a base and a share per package), of script and of style.
 */
const BUDGET = { html: 60 * 1024, searchBase: 20 * 1024, searchPerPackage: 400, script: 10 * 1024, style: 12 * 1024 };

const PAGES = ['/', '/pkgs/curl', '/pkgs/llama.cpp', '/pkgs/plugin-07', '/changes', '/advisories/PKGCAT-TEST-0002'];

describe('the pages over HTTP', () => {
  it.each(PAGES)('%s: 200, HTML with its charset, the pages\' Cache-Control, no cookie', async (path) => {
    const reply = await page(path);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe(HTML_CONTENT_TYPE);
    expect(reply.headers.get('cache-control')).toBe(CACHE_CONTROL.pages);
    expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
    expect(reply.headers.get('set-cookie')).toBeNull();
    expect(reply.html.startsWith('<!DOCTYPE html><html lang="en">')).toBe(true);
  });

  it('the search page inlines the listing bundle byte for byte (SPEC.md "Listing bundle")', async () => {
    const api = await send(context.gw.url, `/api/pkgs/bundle/${context.fx.tip}.json`, { headers: { cookie: context.cookie } });
    expect(api.status).toBe(200);
    expect(inlineJson((await page('/')).html, 'bundle')).toBe(api.body.toString('utf8'));
  });

  it.each(['curl', 'llama.cpp', 'SQLite', 'bundle'])('the page of %s inlines its envelope byte for byte (SPEC.md "Package record envelope")', async (name) => {
    const html = (await page(`/pkgs/${name}`)).html;
    const envelope = inlineJson(html, 'envelope');
    // A reserved name has a page but no /api/pkgs/ file (DECISIONS.md 4): the same bytes the full bundle carries for it.
    if (name === 'bundle') {
      expect(JSON.parse(envelope).package.name).toBe('bundle');
      return;
    }
    const api = await send(context.gw.url, `/api/pkgs/${name}.json`);
    expect(envelope).toBe(api.body.toString('utf8'));
  });

  it('answers any spelling of a name with the canonical page, and 404 for what is not there', async () => {
    expect((await page('/pkgs/SQLITE')).body.equals((await page('/pkgs/SQLite')).body)).toBe(true);
    for (const path of ['/pkgs/no-such-package', '/pkgs/leftpad', '/advisories/PKGCAT-TEST-0001', '/advisories/a%2Fb', '/pkgs/curl/', '/changes/']) {
      const reply = await page(path);
      expect(reply.status, path).toBe(404);
      expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
    }
    expect((await page('/advisories/PKGCAT-TEST-0001')).headers.get('cache-control')).toBe(CACHE_CONTROL.negative);
  });

  it('a detail page shows a transitive advisory with the dependency path to the culprit', async () => {
    const html = (await page('/pkgs/plugin-07')).html;
    expect(html).toContain('<a href="/advisories/PKGCAT-TEST-0002"><code>PKGCAT-TEST-0002</code></a>');
    expect(html).toContain(
      '<ol class="path" aria-label="Dependency path from plugin-07 to openssl"><li><a href="/pkgs/plugin-07">plugin-07</a></li><li><a href="/pkgs/curl">curl</a></li><li><a href="/pkgs/openssl">openssl</a></li></ol>',
    );
  });

  it('the advisory page lists the package it affects and its blast radius', async () => {
    const html = (await page('/advisories/PKGCAT-TEST-0002')).html;
    expect(html).toContain('Affects 1 package directly; 31 more packages reach it through dependencies.');
    expect(html).toContain('<a href="/pkgs/openssl">openssl</a></th><td>3.0.0</td><td>3.0.1</td>');
    expect(html).toContain('<li><a href="/pkgs/curl">curl</a></li><li><a href="/pkgs/openssl">openssl</a></li>');
  });

  it('the changes page shows what the recent commits changed, newest first', async () => {
    const html = (await page('/changes')).html;
    const curl = html.indexOf('Upgrade curl to 8.1.0');
    const plugins = html.indexOf('Import the plugin packages');
    expect(curl).toBeGreaterThan(0);
    expect(plugins).toBeGreaterThan(curl);
    expect(html).toContain('<a href="/pkgs/curl">curl</a> 8.0.0 → 8.1.0 <span class="muted">(upgrade)</span>');
    expect(html).toContain('30 packages added.');
    expect(html).toContain(`href="/api/pkgs/bundle/${context.fx.tip}/diff/${context.fx.shas[context.fx.shas.length - 2]}.json"`);
  });

  it('escapes catalog text (only http(s) addresses become links: tests/site/view-models.test.ts)', async () => {
    const html = (await page('/advisories/PKGCAT-TEST-0002')).html;
    expect(html).toContain('Certificate check skipped &lt;on renegotiation&gt; (fixture)');
    // Outside quoted attribute values (where `<` is plain text), markup characters are escaped.
    expect(html.replace(/="[^"]*"/g, '=""')).not.toContain('<on renegotiation>');
    expect(html).toContain('href="https://example.invalid/PKGCAT-TEST-0002"');
  });

  it('a package\'s and an advisory\'s page name no commit but in the envelope, so they change only with what they show; the search and changes pages name the tip', async () => {
    const { tip } = context.fx;
    for (const path of ['/pkgs/plugin-07', '/advisories/PKGCAT-TEST-0002']) {
      const html = (await page(path)).html;
      expect(html).toContain('<p>Built from the latest commit of the catalog: <a href="/changes">what changed</a>.</p>');
      const outsideEnvelope = path.startsWith('/pkgs/') ? html.replace(inlineJson(html, 'envelope'), '') : html;
      expect(outsideEnvelope).not.toContain(tip);
      expect(outsideEnvelope).not.toContain(tip.slice(0, 12));
    }
    // A package's JSON at a commit: the one that shipped its version.
    expect((await page('/pkgs/plugin-07')).html).toMatch(/<a href="\/api\/pkgs\/bundle\/[0-9a-f]{40}\/plugin-07\/deps.json"[^>]*>Dependencies when \S+ shipped \(JSON\)<\/a>/);
    for (const path of ['/', '/changes']) expect((await page(path)).html).toContain(`<p>Built from commit <code title="${tip}">${tip.slice(0, 12)}</code> of the catalog`);
  });

  it('signs in from any page and comes back to it', async () => {
    expect((await page('/pkgs/llama.cpp')).html).toContain('<a href="/auth/login?next=%2Fpkgs%2Fllama.cpp" id="sign-in" rel="nofollow">Sign in</a>');
    expect((await page('/')).html).toContain('<a href="/auth/login" id="sign-in" rel="nofollow">Sign in</a>');
  });

  it.each(PAGES)('%s fetches nothing from elsewhere: no external script, style, font or image, and keeps its budget', async (path) => {
    const { html } = await page(path);
    // Every script and style is inline; the only URLs in attributes that load something are none.
    expect(html).not.toMatch(/<script[^>]*\ssrc=/);
    expect(html).not.toMatch(/<link[^>]*rel="(stylesheet|preload|modulepreload|preconnect|dns-prefetch)"/);
    expect(html).not.toMatch(/<img[^>]*src="(https?:)?\/\//);
    expect(html).not.toMatch(/@import|url\(|@font-face/);
    const json = [...html.matchAll(/<script type="application\/json"[^>]*>([^]*?)<\/script>/g)].reduce((sum, match) => sum + Buffer.byteLength(match[1]), 0);
    const scripts = [...html.matchAll(/<script type="module"[^>]*>([^]*?)<\/script>/g)].reduce((sum, match) => sum + Buffer.byteLength(match[1]), 0);
    const styles = [...html.matchAll(/<style[^>]*>([^]*?)<\/style>/g)].reduce((sum, match) => sum + Buffer.byteLength(match[1]), 0);
    const packages = (JSON.parse(inlineJson((await page('/')).html, 'bundle')) as { packages: unknown[] }).packages.length;
    expect(Buffer.byteLength(html) - json).toBeLessThan(path === '/' ? BUDGET.searchBase + BUDGET.searchPerPackage * packages : BUDGET.html);
    expect(scripts).toBeLessThan(BUDGET.script);
    expect(styles).toBeLessThan(BUDGET.style);
    // Only the search page runs a script.
    expect(scripts > 0).toBe(path === '/');
  });
});
