/**
 * `GET /api/pkgs/{name}/badge.svg` over real HTTP (SPEC.md Endpoints and its additional rule 1;
 * `style` and `label` beyond it): a badge story catalog with a scorecard in each score band, none,
 * an unknown score, critical and low advisories, and none. What each badge says and in which
 * colour, every style parsed as SVG, the fallbacks, the headers, and the same bytes as the files a
 * static host serves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { appendCommits, createCatalogRepo, type CatalogCommit } from '../../demo/catalog-writer.ts';
import { advisory, build, hoursLater, manifest, temporaryDirectory } from '../helpers/catalog.ts';
import { CACHE_CONTROL, SVG_CONTENT_TYPE } from '../helpers/spec.ts';
import { expectSvgDocuments, parseFlatBadge } from '../helpers/svg.ts';
import { expected, send, startGateway, type Gateway } from './harness.ts';

const scorecard = (score: number) => ({ score, checks: [{ name: 'Maintained', score: 10 }] });

/** Each package with what its two badges must say and their message colours (badge-maker's values of docs/badges.md's names). */
const STORY = {
  top: { score: 9.5, badges: ['scorecard: 95/100', '#67ac09', 'advisories: 0', '#67ac09'] },
  edge: { score: 8, badges: ['scorecard: 80/100', '#67ac09', 'advisories: 0', '#67ac09'] },
  good: { score: 7, badges: ['scorecard: 70/100', '#95991a', 'advisories: 0', '#67ac09'] },
  fair: { score: 5, badges: ['scorecard: 50/100', '#d8b800', 'advisories: 0', '#67ac09'] },
  weak: { score: 2.5, badges: ['scorecard: 25/100', '#ea7233', 'advisories: 0', '#67ac09'] },
  poor: { score: 1, badges: ['scorecard: 10/100', '#dd4343', 'advisories: 0', '#67ac09'] },
  unscored: { score: null, badges: ['scorecard: no score', '#939393', 'advisories: 0', '#67ac09'] },
  'Unknown-Score': { score: -1, badges: ['scorecard: no score', '#939393', 'advisories: 0', '#67ac09'] },
  vulnerable: { score: 6.1, badges: ['scorecard: 61/100', '#95991a', 'advisories: 2', '#a4161a'] },
} as const;

const STORY_COMMITS: CatalogCommit[] = [
  {
    message: 'The badge story\n',
    time: hoursLater(0),
    files: {
      ...Object.fromEntries(Object.keys(STORY).map((name) => [`packages/${name}/manifest.json`, manifest(name)])),
      ...Object.fromEntries(
        Object.entries(STORY)
          .filter(([, { score }]) => score !== null)
          .map(([name, { score }]) => [`packages/${name}/scorecard.json`, scorecard(score!)]),
      ),
      'advisories/BADGE-CRIT.json': advisory('BADGE-CRIT', { package: 'vulnerable', severity: 'CRITICAL' }),
      'advisories/BADGE-LOW.json': advisory('BADGE-LOW', { package: 'vulnerable', severity: 'LOW' }),
      // Fixed in the version the catalog has: not active, not counted.
      'advisories/BADGE-OLD.json': advisory('BADGE-OLD', { package: 'vulnerable', severity: 'HIGH', fixed: '0.9.0' }),
    },
  },
];
/** A commit that changes another package only. */
const UNRELATED: CatalogCommit = { message: 'Bump poor\n', time: hoursLater(1), files: { 'packages/poor/manifest.json': manifest('poor', { version: '1.0.1' }) } };

const STYLES = ['flat', 'flat-square', 'plastic', 'for-the-badge', 'social'];

let repo: string;
let out: string;
let gw: Gateway;

beforeAll(async () => {
  const dir = await temporaryDirectory('pkgcat-badges-');
  repo = join(dir, 'catalog');
  out = join(dir, 'out');
  await createCatalogRepo(repo, STORY_COMMITS);
  await build(repo, out);
  gw = await startGateway(out, dir);
});

afterAll(async () => {
  await gw?.close();
});

const get = (path: string) => send(gw.url, path);
const badgePath = (name: string, query = '') => `/api/pkgs/${encodeURIComponent(name)}/badge.svg${query}`;

describe('what each badge says (SPEC.md Endpoints, additional rule 1)', () => {
  it.each(Object.entries(STORY))('%s', async (name, { badges: [scoreTitle, scoreColor, advisoriesTitle, advisoriesColor] }) => {
    const score = await get(badgePath(name));
    expect(score.status).toBe(200);
    expect(await parseFlatBadge(score.body.toString('utf8'))).toEqual({ title: scoreTitle, messageColor: scoreColor });
    expect((await get(badgePath(name, '?metric=score'))).body.equals(score.body)).toBe(true);
    const advisories = await get(badgePath(name, '?metric=advisories'));
    expect(await parseFlatBadge(advisories.body.toString('utf8'))).toEqual({ title: advisoriesTitle, messageColor: advisoriesColor });
  });

  it('draws every package\'s badges, both metrics in every style, as SVG documents', async () => {
    const svgs: string[] = [];
    for (const name of Object.keys(STORY)) {
      for (const metric of ['score', 'advisories']) {
        for (const style of STYLES) {
          const reply = await get(badgePath(name, `?metric=${metric}&style=${style}`));
          expect(reply.status).toBe(200);
          svgs.push(reply.body.toString('utf8'));
        }
      }
    }
    await expectSvgDocuments(svgs);
  });
});

describe('headers', () => {
  it.each(['', '?metric=advisories', '?style=for-the-badge&label=my%20lib'])('%s: SPEC.md\'s Content-Type and Cache-Control, no cookie, no ETag', async (query) => {
    const reply = await get(badgePath('top', query));
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe(SVG_CONTENT_TYPE);
    expect(reply.headers.get('cache-control')).toBe(CACHE_CONTROL.floating);
    expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
    expect(reply.headers.get('set-cookie')).toBeNull();
    expect(reply.headers.get('etag')).toBeNull();
  });
});

describe('fallbacks: never a 400', () => {
  it('an unknown metric is the score, an unknown style is flat, the first of repeated values counts', async () => {
    const plain = (await get(badgePath('vulnerable'))).body;
    expect((await get(badgePath('vulnerable', '?metric=bogus'))).body.equals(plain)).toBe(true);
    expect((await get(badgePath('vulnerable', '?metric=ADVISORIES'))).body.equals(plain)).toBe(true);
    expect((await get(badgePath('vulnerable', '?style=bogus'))).body.equals(plain)).toBe(true);
    expect((await get(badgePath('vulnerable', '?style=flat&label='))).body.equals(plain)).toBe(true);
    const advisories = (await get(badgePath('vulnerable', '?metric=advisories'))).body;
    expect((await get(badgePath('vulnerable', '?metric=advisories&metric=score'))).body.equals(advisories)).toBe(true);
  });

  it('a 500-character label is cut to 40; markup in a label is text', async () => {
    const long = await get(badgePath('top', `?label=${'a'.repeat(500)}`));
    expect(long.status).toBe(200);
    expect((await parseFlatBadge(long.body.toString('utf8'))).title).toBe(`${'a'.repeat(40)}: 95/100`);
    const markup = await get(badgePath('top', `?label=${encodeURIComponent('<script>alert(1)</script>')}`));
    expect(markup.status).toBe(200);
    await expectSvgDocuments([markup.body.toString('utf8')]);
    expect(markup.body.toString('utf8')).not.toContain('<script');
    expect((await parseFlatBadge(markup.body.toString('utf8'))).title).toBe('<script>alert(1)</script>: 95/100');
  });
});

describe('not found', () => {
  it('an unknown name is a 404 with the negative cache; another spelling is the package\'s badge', async () => {
    const missing = await get(badgePath('no-such-package'));
    expect(missing.status).toBe(404);
    expect(missing.headers.get('cache-control')).toBe(CACHE_CONTROL.negative);
    expect(missing.json()).toMatchObject({ error: 'not_found' });
    const spelled = await get(badgePath('unknown-score', '?metric=advisories'));
    expect(spelled.status).toBe(200);
    expect(spelled.body.equals((await get(badgePath('Unknown-Score', '?metric=advisories'))).body)).toBe(true);
  });
});

describe('byte-stable, and the same bytes as the static files', () => {
  it('answers the release\'s public files for the default style and label, and draws the same bytes when asked explicitly', async () => {
    for (const name of Object.keys(STORY)) {
      const score = await get(badgePath(name));
      expect(score.body.equals(await expected.publicFile(out, `api/pkgs/${name}/badge.svg`))).toBe(true);
      const advisories = await get(badgePath(name, '?metric=advisories'));
      expect(advisories.body.equals(await expected.publicFile(out, `api/pkgs/${name}/badge.advisories.svg`))).toBe(true);
      // A label equal to the default is drawn by the gateway, from the record the file was drawn from.
      expect((await get(badgePath(name, '?label=scorecard'))).body.equals(score.body)).toBe(true);
      expect((await get(badgePath(name, '?metric=advisories&label=advisories'))).body.equals(advisories.body)).toBe(true);
    }
  });

  it('gives the same bytes twice, and after a commit that changes another package', async () => {
    const paths = [badgePath('top'), badgePath('vulnerable', '?metric=advisories'), badgePath('good', '?style=social&label=x')];
    const before = await Promise.all(paths.map(async (path) => (await get(path)).body));
    for (const [index, path] of paths.entries()) expect((await get(path)).body.equals(before[index])).toBe(true);
    await appendCommits(repo, [UNRELATED]);
    expect((await build(repo, out)).releaseId).not.toBeNull();
    for (const [index, path] of paths.entries()) expect((await get(path)).body.equals(before[index]), path).toBe(true);
  });
});
