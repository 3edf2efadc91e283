/**
 * Every link of every page of the demo site resolves. A crawler starts at `/`, follows every
 * same-site `href` of every HTML page it reaches, and asks for each linked path once (signed in,
 * so the sha-pinned links answer too). A link to a surface the registry does not serve yet
 * (`served: false`: the markdown mirrors, feeds, SBOMs, badges, OpenAPI, llms.txt while their
 * branches land) is reported, with the row that will answer it, and skipped; every other link
 * must answer 200.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SURFACES, type SurfaceRow } from '../../src/surfaces/registry.ts';
import { startDemoSite, type DemoSite } from './demo-site.ts';

let site: DemoSite;
let cookie: string;

beforeAll(async () => {
  site = await startDemoSite();
  cookie = await site.gateway.signIn();
});

afterAll(async () => {
  await site?.close();
});

/** The registry row whose path template matches `path`, in the registry's (the router's) order. */
function rowOf(path: string): SurfaceRow | null {
  return (
    SURFACES.find((row) => new RegExp(`^${row.path.split(/\{\w+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+')}$`).test(path)) ?? null
  );
}

/** Paths outside the registry that pages link to, and why they answer. */
const OTHER_PATHS: Readonly<Record<string, string>> = { '/auth/login': 'the sign-in form (gateway/auth)' };

describe('the demo site\'s links', () => {
  it('all resolve, except those to surfaces not served yet, which are reported', async () => {
    const origin = new URL(site.url).origin;
    const seen = new Set<string>(['/']);
    const queue = ['/'];
    const pages: string[] = [];
    const broken: string[] = [];
    const pending = new Map<string, string[]>();
    let external = 0;
    for (let head = 0; head < queue.length; head++) {
      const target = queue[head];
      const url = new URL(target, origin);
      const row = rowOf(url.pathname);
      if (row && !row.served) {
        pending.set(row.id, [...(pending.get(row.id) ?? []), target]);
        continue;
      }
      if (!row && !(url.pathname in OTHER_PATHS)) {
        broken.push(`${target}: no registry row and no known route`);
        continue;
      }
      const response = await fetch(url, { headers: { cookie }, redirect: 'manual' });
      const body = await response.text();
      if (response.status !== 200) {
        broken.push(`${target}: ${response.status}`);
        continue;
      }
      if (!response.headers.get('content-type')?.startsWith('text/html') || url.pathname.startsWith('/auth/')) continue;
      pages.push(target);
      for (const [, href] of body.matchAll(/\shref="([^"]*)"/g)) {
        const link = new URL(href.replaceAll('&amp;', '&'), url);
        if (link.protocol === 'data:') continue;
        if (link.origin !== origin) {
          external += 1;
          continue;
        }
        const path = `${link.pathname}${link.search}`;
        if (!seen.has(path)) {
          seen.add(path);
          queue.push(path);
        }
      }
    }
    for (const [id, links] of pending) {
      console.info(`crawl: ${links.length} link(s) to ${id} skipped: the registry does not serve it yet (served: false), e.g. ${links[0]}`);
    }
    expect(broken).toEqual([]);
    // Every page kind was reached, and so was every package's page.
    expect(pages).toEqual(expect.arrayContaining(['/', '/changes', '/pkgs/curl', '/pkgs/llama.cpp', '/advisories/PKGCAT-DEMO-2026-0003']));
    expect(pages.filter((page) => page.startsWith('/pkgs/')).length).toBe(53);
    expect(external).toBeGreaterThan(0);
    // Only rows still to come are skipped.
    for (const id of pending.keys()) expect(SURFACES.find((row) => row.id === id)!.served).toBe(false);
  });
});
