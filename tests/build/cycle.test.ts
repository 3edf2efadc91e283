/**
 * A dependency cycle through 3,000 packages, committed in one go (bad data a careless contributor
 * can write: issue 17), and a package 3,000 others depend on. The build finishes, and every body
 * and document keeps its stated bound: culprit paths of at most 64 names, blast radius and
 * dependents lists cut at 300 with the total and where the whole list is, llms-full.txt in parts
 * of at most 512 KiB, SBOMs of closures over 500 packages composed on request.
 *
 * The story: `ring-0000 -> ring-0001 -> ... -> ring-2999 -> ring-0000` (runtime), each ring
 * package build-depends on `base`; `app` depends on `ring-1500`. RING-1 is active on ring-0000,
 * BASE-1 on base. Then ring-1000 ships a new version; then ring-2999 drops ring-0000, which
 * breaks the cycle.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalogRepo, type CatalogCommit } from '../../demo/catalog-writer.ts';
import { CatalogRepo } from '../../src/catalog/git.ts';
import { CatalogModel } from '../../build/model.ts';
import { analyze, reanalyze, type CatalogAnalysis } from '../../src/compose/analysis.ts';
import { composeFullBundle } from '../../src/compose/bundles.ts';
import { serialize } from '../../src/serialize.ts';
import { paths } from '../../src/store/layout.ts';
import { send, startGateway, type Gateway } from '../gateway/harness.ts';
import { CACHE_CONTROL, CYCLONEDX_CONTENT_TYPE, DOCUMENT_CONTENT_TYPE, HTML_CONTENT_TYPE } from '../helpers/spec.ts';
import { advisory, build, exported, hoursLater, manifest, pinnedBodies, temporaryDirectory } from '../helpers/catalog.ts';

const SITE = 'http://127.0.0.1:8080';
const RING = 3000;
const ring = (i: number) => `ring-${String(((i % RING) + RING) % RING).padStart(4, '0')}`;
/** docs/decisions.md: the limits this story runs into. */
const MAX_CULPRIT_PATH = 64;
const SHOWN = 300;
const PART_BYTES = 512 * 1024;

const STORY: CatalogCommit[] = [
  {
    message: 'Import a ring of 3,000 packages',
    time: hoursLater(0),
    files: {
      'packages/base/manifest.json': manifest('base'),
      ...Object.fromEntries(
        Array.from({ length: RING }, (_, i) => [`packages/${ring(i)}/manifest.json`, manifest(ring(i), { dependencies: { runtime: [ring(i + 1)], build: ['base'] } })]),
      ),
      'packages/app/manifest.json': manifest('app', { dependencies: { runtime: ['ring-1500'] } }),
      'advisories/RING-1.json': advisory('RING-1', { package: 'ring-0000' }),
      'advisories/BASE-1.json': advisory('BASE-1', { package: 'base' }),
    },
  },
  {
    message: 'Upgrade ring-1000',
    time: hoursLater(1),
    files: { 'packages/ring-1000/manifest.json': manifest('ring-1000', { version: '1.0.1', dependencies: { runtime: ['ring-1001'], build: ['base'] } }) },
  },
  {
    message: 'ring-2999 no longer depends on ring-0000',
    time: hoursLater(2),
    files: { 'packages/ring-2999/manifest.json': manifest('ring-2999', { dependencies: { build: ['base'] } }) },
  },
];

interface Entry {
  advisoryId: string;
  culpritPath: string[];
}

let repo: string;
let out: string;
let dir: string;
let shas: string[];
let gw: Gateway;
/** Each commit's full bundle, as stored. */
const fullBundles: string[] = [];

beforeAll(async () => {
  dir = await temporaryDirectory();
  repo = join(dir, 'catalog');
  out = join(dir, 'out');
  shas = await createCatalogRepo(repo, STORY);
  await build(repo, out);
  for (const sha of shas) fullBundles.push((await pinnedBodies(out, sha)).get('full')!);
  gw = await startGateway(out, dir);
}, 600_000);

afterAll(async () => {
  await gw?.close();
});

const get = (path: string, headers: Record<string, string> = {}) => send(gw.url, path, { headers });
const entriesOf = (commit: number): Map<string, Entry[]> => {
  const bundle = JSON.parse(fullBundles[commit]) as { transitiveAdvisories: Entry[] };
  const byPackage = new Map<string, Entry[]>();
  for (const entry of bundle.transitiveAdvisories) byPackage.set(entry.culpritPath[0], [...(byPackage.get(entry.culpritPath[0]) ?? []), entry]);
  return byPackage;
};
const pathOf = (commit: number, name: string, id: string) => entriesOf(commit).get(name)?.find((entry) => entry.advisoryId === id)?.culpritPath;

describe('a 3,000-package dependency cycle', () => {
  it('builds every commit, with the same bundles as composing each state whole, analyzed from the commit before or not', async () => {
    const catalog = await CatalogRepo.open(repo);
    try {
      const model = new CatalogModel();
      const logged = await catalog.log(shas.at(-1)!, null);
      const infos = await catalog.commitInfos(logged);
      let reanalyzed: CatalogAnalysis | null = null;
      for (const [index, commit] of logged.entries()) {
        const applied = await model.apply(infos[index], commit.changes, (id) => catalog.readObject(id));
        const state = model.state();
        const analysis = analyze(state);
        if (reanalyzed) reanalyze(reanalyzed, state, applied);
        else reanalyzed = analyze(state);
        expect(reanalyzed, `analysis of commit ${index}`).toEqual(analysis);
        expect(fullBundles[index] === serialize(composeFullBundle(state, analysis)), `full bundle of commit ${index}`).toBe(true);
      }
    } finally {
      catalog.close();
    }
  });

  it('gives one entry per package and advisory it reaches, the shortest path, ties by name', () => {
    const entries = entriesOf(0);
    // Every ring package but ring-0000 reaches RING-1, every ring package BASE-1; app both.
    expect(entries.size).toBe(RING + 1);
    expect(entries.get('ring-0000')).toEqual([{ advisoryId: 'BASE-1', culpritPath: ['ring-0000', 'base'] }]);
    expect(entries.get('ring-2999')).toEqual([
      { advisoryId: 'BASE-1', culpritPath: ['ring-2999', 'base'] },
      { advisoryId: 'RING-1', culpritPath: ['ring-2999', 'ring-0000'] },
    ]);
    expect(pathOf(0, 'app', 'BASE-1')).toEqual(['app', 'ring-1500', 'base']);
    // ring-2937 is 63 steps from ring-0000: a path of 64 names, whole.
    expect(pathOf(0, 'ring-2937', 'RING-1')).toEqual([...Array.from({ length: 63 }, (_, i) => ring(2937 + i)), 'ring-0000']);
  });

  it(`cuts a path longer than ${MAX_CULPRIT_PATH} names to its first ${MAX_CULPRIT_PATH - 1} packages and the culprit`, () => {
    // ring-0001 is 2,999 steps from ring-0000, app 1,501.
    expect(pathOf(0, 'ring-0001', 'RING-1')).toEqual([...Array.from({ length: 63 }, (_, i) => ring(1 + i)), 'ring-0000']);
    expect(pathOf(0, 'app', 'RING-1')).toEqual(['app', ...Array.from({ length: 62 }, (_, i) => ring(1500 + i)), 'ring-0000']);
    for (const commit of [0, 1, 2]) {
      for (const list of entriesOf(commit).values()) for (const entry of list) expect(entry.culpritPath.length).toBeLessThanOrEqual(MAX_CULPRIT_PATH);
    }
    // The full bundle stays in proportion to the packages: 6,001 entries, not 3,000 paths of up to 3,000 names.
    expect(Buffer.byteLength(fullBundles[0])).toBeLessThan(8_000_000);
  });

  it('follows a commit that breaks the cycle: nothing reaches ring-0000 any more', () => {
    expect(pathOf(1, 'ring-0999', 'RING-1')).toEqual([...Array.from({ length: 63 }, (_, i) => ring(999 + i)), 'ring-0000']);
    const after = entriesOf(2);
    expect([...after.values()].flat().filter((entry) => entry.advisoryId === 'RING-1')).toEqual([]);
    expect(after.get('ring-2999')).toEqual([{ advisoryId: 'BASE-1', culpritPath: ['ring-2999', 'base'] }]);
  });
});

describe('documents with a bound', () => {
  /** The release's anonymous files, as pkgcat export writes them. */
  const releaseDir = async () => paths.public((await exported(out))!);

  it('llms-full.txt comes in parts of at most 512 KiB, each listed by llms.txt and answering 200', async () => {
    const llms = (await get('/llms.txt')).body.toString('utf8');
    const listed = [...llms.matchAll(/^- \[Every mirror, part (\d+) of (\d+)\]\((\S+)\)/gm)];
    const count = Number(listed[0][2]);
    expect(count).toBeGreaterThan(1);
    expect(listed.map((match) => [Number(match[1]), Number(match[2]), match[3]])).toEqual(
      Array.from({ length: count }, (_, i) => [i + 1, count, `${SITE}/llms-full/${i + 1}.txt`]),
    );
    let mirrors = 0;
    for (let part = 1; part <= count; part++) {
      const reply = await get(`/llms-full/${part}.txt`);
      expect([reply.status, reply.headers.get('content-type'), reply.headers.get('cache-control')]).toEqual([200, DOCUMENT_CONTENT_TYPE.text, CACHE_CONTROL.pages]);
      expect(reply.body.length, `part ${part}`).toBeLessThanOrEqual(PART_BYTES);
      const text = reply.body.toString('utf8');
      expect(text.split('\n')[0]).toBe(`# Package catalog at ${SITE}: every mirror, part ${part} of ${count}`);
      expect(text).toContain(part < count ? `The next part is ${SITE}/llms-full/${part + 1}.txt.` : 'This is the last part.');
      mirrors += text.split('\n---\n\n').length - 1;
    }
    // Every package mirror (3,002) and every advisory mirror (2), each once.
    expect(mirrors).toBe(RING + 2 + 2);
    expect((await get('/llms-full.txt')).body.equals((await get('/llms-full/1.txt')).body)).toBe(true);
    expect((await get(`/llms-full/${count + 1}.txt`)).status).toBe(404);
  });

  it('an advisory\'s page lists the nearest 300 of its blast radius, the total, and a link to the whole list', async () => {
    const reply = await get('/advisories/BASE-1');
    expect([reply.status, reply.headers.get('content-type')]).toEqual([200, HTML_CONTENT_TYPE]);
    const html = reply.body.toString('utf8');
    expect(html).toContain('Affects 1 package directly; 3,001 more packages reach it through dependencies.');
    expect(html).toContain(`These are the nearest 300; 2,701 more reach it. The <a href="/api/pkgs/bundle/${shas[2]}/full.json">full bundle of this commit</a> (sign in) lists every one`);
    expect(html.match(/aria-label="Dependency path from /g)).toHaveLength(SHOWN);
  });

  it('an advisory\'s mirror lists the first 300 by name, the total, and where the whole list is', async () => {
    const mirror = (await get('/advisories/BASE-1.md')).body.toString('utf8');
    expect(mirror).toContain('3001 packages reach an affected package through build and runtime dependencies');
    const rows = mirror.split('\n').filter((line) => /^\| \[(app|ring-\d+)\]/.test(line));
    expect(rows).toHaveLength(SHOWN);
    expect(rows[0]).toBe(`| [app](${SITE}/pkgs/app.md) | app → ring-1500 → base |`);
    expect(mirror).toContain(
      `These are the first 300 by name; 2701 more packages reach it. The full bundle of this commit lists every one, in each package's \`transitiveAdvisories\` (sign in): <${SITE}/api/pkgs/bundle/${shas[2]}/full.json>`,
    );
    const full = await send(gw.url, `/api/pkgs/bundle/${shas[2]}/full.json`, { headers: { cookie: await gw.signIn() } });
    expect(full.status).toBe(200);
    expect((JSON.parse(full.body.toString('utf8')) as { transitiveAdvisories: Entry[] }).transitiveAdvisories.filter((entry) => entry.advisoryId === 'BASE-1')).toHaveLength(RING + 1);
  });

  it('a package\'s mirror lists its first 300 dependents, the total and its JSON record', async () => {
    const mirror = (await get('/pkgs/base.md')).body.toString('utf8');
    const line = mirror.split('\n').find((text) => text.startsWith('3000 packages depend on base: '))!;
    expect(line.match(/\]\(/g)).toHaveLength(SHOWN);
    expect(line.endsWith(`, and 2700 more (the first 300 by name; the JSON record lists every one: <${SITE}/api/pkgs/base.json>).`)).toBe(true);
    expect(JSON.parse((await get('/api/pkgs/base.json')).body.toString('utf8')).package.reverseDependencies).toHaveLength(RING);
  });

  it('writes no SBOM of a package whose closure is over 500 packages; the gateway composes it, whole', async () => {
    const files = await releaseDir();
    expect(existsSync(join(files, 'api/pkgs/base/sbom.json'))).toBe(true);
    expect(existsSync(join(files, 'api/pkgs/ring-0000/sbom.json'))).toBe(false);
    const reply = await get('/api/pkgs/ring-0000/sbom.json');
    expect([reply.status, reply.headers.get('content-type')]).toEqual([200, CYCLONEDX_CONTENT_TYPE]);
    const sbom = JSON.parse(reply.body.toString('utf8')) as { components: { name: string }[] };
    // ring-0001 ... ring-2999 and base (the cycle is broken at the tip: ring-2999 no longer reaches ring-0000).
    expect(sbom.components.map((component) => component.name).sort()).toEqual(['base', ...Array.from({ length: RING - 1 }, (_, i) => ring(i + 1))].sort());
  });
});
