/**
 * Every URL the sitemap, `llms.txt` and the advisory feed list answers 200 (issue 17). Ids outside
 * the advisory id grammar (`%2e%2e`, spaces, a double-encoded dot) are diagnostics and listed
 * nowhere; an id of the grammar with a colon (Red Hat's `RHSA-2026:0001`) gets its page and mirror.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalogRepo } from '../../demo/catalog-writer.ts';
import { advisory, build, hoursLater, manifest, temporaryDirectory } from '../helpers/catalog.ts';
import { send, startGateway, type Gateway } from '../gateway/harness.ts';

const ODD_IDS = ['%2e%2e', 'ADV with spaces', '..%252e'];
const LISTED_IDS = ['PLAIN-2026-1', 'RHSA-2026:0001'];
const SITE = 'http://127.0.0.1:8080';
let gw: Gateway;

beforeAll(async () => {
  const dir = await temporaryDirectory();
  const repo = join(dir, 'catalog');
  const out = join(dir, 'out');
  const files: Record<string, Record<string, unknown>> = { 'packages/zlib/manifest.json': manifest('zlib') };
  for (const id of [...ODD_IDS, ...LISTED_IDS]) files[`advisories/${id}.json`] = advisory(id, { package: 'zlib', severity: 'HIGH' });
  await createCatalogRepo(repo, [{ message: 'zlib and its advisories', time: hoursLater(0), files }]);
  await build(repo, out);
  gw = await startGateway(out, dir);
});

afterAll(async () => {
  await gw?.close();
});

const pathOf = (url: string) => {
  expect(url.startsWith(`${SITE}/`), url).toBe(true);
  return url.slice(SITE.length);
};

async function text(path: string): Promise<string> {
  const reply = await send(gw.url, path);
  expect(reply.status, path).toBe(200);
  return reply.body.toString('utf8');
}

describe('what the documents list answers', () => {
  it('every URL of the sitemap answers 200; the odd ids are listed nowhere, the ids of the grammar get their pages', async () => {
    const urls = [...(await text('/sitemap.xml')).matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]!.replaceAll('&amp;', '&'));
    expect(urls.map(pathOf).sort()).toEqual(['/', '/changes', '/pkgs/zlib', '/advisories/PLAIN-2026-1', '/advisories/RHSA-2026%3A0001'].sort());
    for (const url of urls) expect({ url, status: (await send(gw.url, pathOf(url))).status }).toEqual({ url, status: 200 });
  });

  it('every link of llms.txt answers: 200, the alias its 302, the tool server is for POST', async () => {
    const links = [...(await text('/llms.txt')).matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!).filter((url) => url.startsWith(SITE));
    const mirrors = links.filter((url) => url.includes('/advisories/'));
    expect(mirrors.map(pathOf).sort()).toEqual(LISTED_IDS.map((id) => `/advisories/${encodeURIComponent(id)}.md`).sort());
    for (const url of links) {
      const path = pathOf(url);
      if (path === '/api/mcp') continue;
      const status = (await send(gw.url, path)).status;
      expect({ url, status }).toEqual({ url, status: path === '/api/pkgs/bundle/latest.json' ? 302 : 200 });
    }
  });

  it('every entry of the advisory feed links a page that answers 200', async () => {
    const feed = await text('/pkgs/advisories.xml');
    const entries = [...feed.matchAll(/<link href="([^"]+)"/g)].map((match) => match[1]!.replaceAll('&amp;', '&')).filter((url) => url.includes('/advisories/'));
    expect(entries.map(pathOf).sort()).toEqual(LISTED_IDS.map((id) => `/advisories/${encodeURIComponent(id)}`).sort());
    for (const url of entries) expect({ url, status: (await send(gw.url, pathOf(url))).status }).toEqual({ url, status: 200 });
  });
});
