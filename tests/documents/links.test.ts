/**
 * Every link of the documents leads somewhere: each site URL in llms.txt, llms-full.txt, every
 * markdown mirror and both feeds is a path of a registry row, and when that row is served, the
 * gateway answers it (signed in where the row is sha-pinned). Links to rows still to come (the
 * HTML pages, SBOMs, badges, the OpenAPI document, the tool server) are listed, so the day they
 * are served this test asks for them too.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SURFACES, type SurfaceRow } from '../../src/surfaces/registry.ts';
import { send, startGateway, type Gateway } from '../gateway/harness.ts';
import { buildDocumentsStory, type DocumentsFixture } from './story.ts';

const SITE = 'http://127.0.0.1:8080';

let fx: DocumentsFixture;
let gw: Gateway;
let cookie: string;

beforeAll(async () => {
  fx = await buildDocumentsStory();
  gw = await startGateway(fx.out, fx.dir);
  cookie = await gw.signIn();
});

afterAll(async () => {
  await gw?.close();
  await fx?.cleanup();
});

/** The registry row whose path template matches a URL path, the first in registry order (as routes match). */
function rowOf(path: string): SurfaceRow | null {
  return (
    SURFACES.find((row) => new RegExp(`^${row.path.split(/\{\w+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+')}$`).test(path)) ?? null
  );
}

/** Site URLs in a markdown document (links, autolinks) or an Atom feed (href attributes), without fragments. */
function siteLinks(text: string): string[] {
  const found = [...text.matchAll(/\]\(<?([^)\s>]+)>?\)|<(https?:[^>\s]+)>|href="([^"]+)"/g)].map((match) => match[1] ?? match[2] ?? match[3]);
  return found.filter((url) => url.startsWith(`${SITE}/`)).map((url) => url.replace(/#.*$/, '').replaceAll('&amp;', '&'));
}

it('every site link of llms.txt, llms-full.txt, the mirrors and the feeds is a registry path; the served ones answer', async () => {
  const documents = ['/llms.txt', '/llms-full.txt', '/pkgs/advisories.xml', '/pkgs/changes.xml'];
  const llms = (await send(gw.url, '/llms.txt')).body.toString('utf8');
  documents.push(...siteLinks(llms).map((url) => url.slice(SITE.length)).filter((path) => path.endsWith('.md')));
  expect(documents.filter((path) => path.startsWith('/pkgs/') && path.endsWith('.md'))).toHaveLength(8);
  expect(documents.filter((path) => path.startsWith('/advisories/'))).toHaveLength(3);

  const links = new Set<string>();
  for (const path of documents) {
    const reply = await send(gw.url, path);
    expect(reply.status, path).toBe(200);
    for (const url of siteLinks(reply.body.toString('utf8'))) links.add(url.slice(SITE.length));
  }

  const coming = new Map<string, string[]>();
  for (const link of links) {
    const path = link.split('?')[0];
    const row = rowOf(path);
    expect(row, `${link} is a path of the registry`).not.toBeNull();
    if (!row!.served || row!.method !== 'GET') {
      // The tool server is linked for agents to POST to; its own tests speak MCP to it.
      coming.set(row!.id, [...(coming.get(row!.id) ?? []), link]);
      continue;
    }
    const reply = await send(gw.url, link, { headers: row!.family === 'pinned' ? { cookie } : {} });
    expect(reply.status, link).toBe(row!.family === 'alias' ? 302 : 200);
  }
  // What the documents link to that is not asked for: each one a registry row to come (answering 404 until then), or the tool server.
  for (const id of coming.keys()) {
    const row = SURFACES.find((candidate) => candidate.id === id)!;
    expect(!row.served || row.family === 'tool', id).toBe(true);
  }
  console.info(`links.test.ts: ${links.size} links; not asked for (not served yet, or POST): ${[...coming].map(([id, paths]) => `${id} (${paths.length})`).join(', ')}`);
  expect(links.size).toBeGreaterThan(60);
});
