/**
 * What each page says, decided by the pure view models (src/site/): the search filter the page's
 * script runs, the detail page's dependencies, advisories and paths, an advisory's blast radius,
 * and the changes page. States are built with tests/helpers/state.ts and composed with the same
 * functions the build uses.
 */
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/compose/analysis.ts';
import { transitiveAdvisories } from '../../src/compose/advisories.ts';
import { composeListingBundle } from '../../src/compose/bundles.ts';
import { composeDiff } from '../../src/compose/diff.ts';
import { composeEnvelope, composeRecord } from '../../src/compose/package.ts';
import { advisoryReach, rollupReach } from '../../src/compose/documents.ts';
import { compareNames, nameKey } from '../../src/grammar.ts';
import type { CatalogState } from '../../src/compose/types.ts';
import { serialize } from '../../src/serialize.ts';
import { EMPTY_STATE, readState, select, writeState, type FilterCard } from '../../src/site/search-filter.ts';
import { advisoryPage, changesPage, packagePages, searchPage, siteContext, type SiteInput } from '../../src/site/pages.ts';
import { signInHref } from '../../src/site/frame.ts';
import { REVERSE_DEPENDENCIES_ON_PAGE } from '../../src/site/package-page.ts';
import { advisory, catalogState, manifest, scorecard, sha, shipped } from '../helpers/state.ts';

/** What the build gathers for the pages of `state` (build/writers.ts, build/page-content.ts), composed whole. */
function siteInput(state: CatalogState, changes: SiteInput['changes'] = [], chain: SiteInput['chain'] = [state.commit]): SiteInput {
  const analysis = analyze(state);
  const keys = [...state.packages.keys()];
  const transitive = new Map(keys.map((key) => [key, transitiveAdvisories(state, analysis, key)]));
  const records = keys.map((key) => composeRecord(state, analysis, key)).sort((a, b) => compareNames(a.name, b.name));
  return {
    tip: state.commit,
    chain,
    siteUrl: 'https://pkgs.example.com',
    listing: serialize(composeListingBundle(state, analysis)),
    envelope: (key) => serialize(composeEnvelope(state.commit, composeRecord(state, analysis, key))),
    record: (key) => composeRecord(state, analysis, key),
    transitive,
    reach: advisoryReach(new Map(records.map((record) => [nameKey(record.name), record])), rollupReach(records.map((record) => nameKey(record.name)), transitive)),
    history: state.history,
    changes,
  };
}

/** app -> lib -> zlib (advisory ZLIB-1, high), app -> ghost (not in the catalog), tool -> lib (build). */
const story = () =>
  catalogState({
    commit: { sha: sha(0xc0ffee), pushedAt: '2026-03-01T12:34:56Z', message: 'Tip' },
    packages: [
      {
        manifest: manifest('app', {
          description: 'An application <with markup> that compresses things.',
          runtime: ['lib', 'ghost'],
          categories: ['apps'],
          stars: 12345,
          homepage: 'javascript:alert(1)',
          repository: 'https://github.com/example/app',
        }),
        scorecard: scorecard(7.5),
      },
      manifest('lib', { runtime: ['zlib'], categories: ['libs'], stars: 10 }),
      manifest('tool', { build: ['lib'], categories: ['apps'], stars: 500 }),
      manifest('zlib', { version: '1.2.11', categories: ['libs', 'compression'], stars: 9000 }),
    ],
    advisories: [
      advisory('ZLIB-1', {
        package: 'zlib',
        fixed: '1.2.12',
        severity: 'HIGH',
        summary: 'Overflow',
        references: [{ type: 'WEB', url: 'https://example.org/zlib-1' }, { type: 'WEB', url: 'javascript:alert(1)' }],
      }),
    ],
    history: { app: [shipped('0.9.0', { sha: sha(1), pushedAt: '2026-01-01T00:00:00Z', linesAdded: 3 }), shipped('1.0.0', { sha: sha(0xc0ffee), pushedAt: '2026-03-01T12:34:56Z' })] },
  });

describe('the search filter (the page script and the tests share it)', () => {
  const cards: FilterCard[] = [
    { name: 'brotli', description: 'A general-purpose compressor', categories: ['compression'], stars: 10, advisories: [] },
    { name: 'curl', description: 'Transfers data with URLs', categories: ['http', 'networking'], stars: 30, advisories: [{ severity: 'medium' }] },
    { name: 'zlib', description: 'A massively spiffy yet delicately unobtrusive compression library', categories: ['compression'], stars: 20, advisories: [{ severity: 'high' }, { severity: 'low' }] },
  ];
  const known = { categories: ['compression', 'http', 'networking'], severities: ['critical', 'high', 'medium', 'low', 'unknown'] };
  const state = (query: string) => readState(new URLSearchParams(query), known);

  it('finds packages by every word of the query, in the name or the description, ignoring case', () => {
    expect(select(cards, state('q=COMPRESS'))).toEqual([0, 2]);
    expect(select(cards, state('q=spiffy+library'))).toEqual([2]);
    expect(select(cards, state('q=curl+urls'))).toEqual([1]);
    expect(select(cards, state('q=spiffy+urls'))).toEqual([]);
    expect(select(cards, state(''))).toEqual([0, 1, 2]);
  });

  it('filters by category, and by an active advisory of exactly that severity (DECISIONS.md 9)', () => {
    expect(select(cards, state('category=compression'))).toEqual([0, 2]);
    expect(select(cards, state('severity=low'))).toEqual([2]);
    expect(select(cards, state('severity=medium&category=http'))).toEqual([1]);
    expect(select(cards, state('severity=critical'))).toEqual([]);
  });

  it('sorts by name (the listing order) or by stars, most first', () => {
    expect(select(cards, state('sort=stars'))).toEqual([1, 2, 0]);
    expect(select(cards, state('sort=stars&category=compression'))).toEqual([2, 0]);
  });

  it('keeps its state in the query string, defaults left out, and ignores values it does not know', () => {
    expect(writeState(EMPTY_STATE)).toBe('');
    expect(writeState({ q: 'tls library', category: 'http', severity: 'high', sort: 'stars' })).toBe('?q=tls+library&category=http&severity=high&sort=stars');
    expect(state('q=%20zlib%20&category=nope&severity=HIGH&sort=size')).toEqual({ q: 'zlib', category: '', severity: '', sort: 'name' });
    for (const query of ['?q=a+b&category=http', '?severity=low&sort=stars']) expect(writeState(state(query))).toBe(query);
  });
});

describe('the package detail page', () => {
  const context = siteContext(siteInput(story()));
  const pages = new Map([...packagePages(context)].map((view) => [view.name, view]));

  it('inlines the envelope verbatim, the bytes of /api/pkgs/{name}.json', () => {
    expect(pages.get('app')!.envelope).toBe(context.input.envelope('app'));
  });

  it('splits dependencies by scope, links present ones and marks missing ones, without their versions', () => {
    const app = pages.get('app')!;
    expect(app.dependencies.runtime).toEqual([
      { name: 'lib', href: '/pkgs/lib', missing: false, maxSeverity: null },
      { name: 'ghost', href: null, missing: true, maxSeverity: null },
    ]);
    expect(app.dependencies.build).toEqual([]);
    expect(app.missingCount).toBe(1);
    expect(pages.get('tool')!.dependencies.build.map((row) => row.name)).toEqual(['lib']);
    expect(pages.get('lib')!.reverseDependencies).toEqual({
      items: [
        { name: 'app', href: '/pkgs/app' },
        { name: 'tool', href: '/pkgs/tool' },
      ],
      more: 0,
    });
    expect(pages.get('lib')!.reverseDependencyCount).toBe(2);
  });

  it('shows the advisories reached through dependencies with the path to the culprit', () => {
    expect(pages.get('app')!.transitive).toEqual([
      {
        advisoryId: 'ZLIB-1',
        href: '/advisories/ZLIB-1',
        severity: 'high',
        summary: 'Overflow',
        path: [
          { name: 'app', href: '/pkgs/app' },
          { name: 'lib', href: '/pkgs/lib' },
          { name: 'zlib', href: '/pkgs/zlib' },
        ],
      },
    ]);
    const zlib = pages.get('zlib')!;
    expect(zlib.transitive).toEqual([]);
    expect(zlib.advisories.map((row) => [row.id, row.severity, row.fixedIn])).toEqual([['ZLIB-1', 'high', ['1.2.12']]]);
  });

  it('links only http(s) addresses from catalog data', () => {
    const app = pages.get('app')!;
    expect(app.homepage).toEqual({ text: 'javascript:alert(1)', url: null });
    expect(app.repository).toEqual({ text: 'https://github.com/example/app', url: 'https://github.com/example/app' });
    expect(pages.get('zlib')!.advisories[0].references).toEqual([{ label: 'web: example.org', url: 'https://example.org/zlib-1' }]);
  });

  it('shows the scorecard, the version history with the shipping commits, the badge snippet and the other forms', () => {
    const app = pages.get('app')!;
    expect(app.scorecard).toMatchObject({ scoreText: '7.5 / 10', normalized: 75, date: '2026-02-01' });
    expect(app.versions.map((row) => [row.version, row.short, row.time, row.message, row.current])).toEqual([
      ['1.0.0', sha(0xc0ffee).slice(0, 12), '2026-03-01 12:34 UTC', 'Tip', true],
      ['0.9.0', sha(1).slice(0, 12), '2026-01-01 00:00 UTC', null, false],
    ]);
    expect(app.badge.markdown).toBe('[![app on pkgcat](https://pkgs.example.com/api/pkgs/app/badge.svg)](https://pkgs.example.com/pkgs/app)');
    expect(app.links.map((link) => link.href)).toEqual([
      '/api/pkgs/app.json',
      '/pkgs/app.md',
      '/api/pkgs/app/sbom.json',
      '/api/pkgs/app/sbom.json?format=spdx',
      `/api/pkgs/bundle/${sha(0xc0ffee)}/app/deps.json`,
      `/api/pkgs/bundle/${sha(0xc0ffee)}/app/versions.json`,
    ]);
    expect(app.frame).toMatchObject({ title: 'app 1.0.0 · pkgcat', path: '/pkgs/app', canonical: 'https://pkgs.example.com/pkgs/app', signIn: '/auth/login?next=%2Fpkgs%2Fapp' });
    expect(app.starsText).toBe('12,345');
  });
});

describe('a package everything depends on', () => {
  it('lists its first 300 dependents on the page, and says how many more the JSON has', () => {
    const users = Array.from({ length: 305 }, (_, index) => manifest(`user-${String(index).padStart(3, '0')}`, { runtime: ['core'] }));
    const state = catalogState({ packages: [manifest('core'), ...users] });
    const core = [...packagePages(siteContext(siteInput(state)))].find((view) => view.name === 'core')!;
    expect(core.reverseDependencyCount).toBe(305);
    expect(core.reverseDependencies.items).toHaveLength(REVERSE_DEPENDENCIES_ON_PAGE);
    expect(core.reverseDependencies.more).toBe(5);
    expect(core.reverseDependencies.items[299]).toEqual({ name: 'user-299', href: '/pkgs/user-299' });
  });
});

describe('the search page', () => {
  it('inlines the listing bundle verbatim and lists every package in its order', () => {
    const input = siteInput(story());
    const view = searchPage(siteContext(input));
    expect(view.bundle).toBe(input.listing);
    expect(view.packages.map((row) => [row.name, row.href, row.maxSeverity])).toEqual([
      ['app', '/pkgs/app', null],
      ['lib', '/pkgs/lib', null],
      ['tool', '/pkgs/tool', null],
      ['zlib', '/pkgs/zlib', 'high'],
    ]);
    expect(view.categories).toEqual(['apps', 'compression', 'libs']);
    expect(view.frame.signIn).toBe('/auth/login');
  });
});

describe('the advisory page', () => {
  it('lists the packages it affects directly and every package reaching one, with the shortest path', () => {
    const context = siteContext(siteInput(story()));
    expect([...context.input.reach.keys()]).toEqual(['ZLIB-1']);
    const view = advisoryPage(context, 'ZLIB-1');
    expect(view.advisory).toMatchObject({ id: 'ZLIB-1', severity: 'high', summary: 'Overflow' });
    expect(view.affected).toEqual([{ name: 'zlib', href: '/pkgs/zlib', version: '1.2.11', fixedIn: ['1.2.12'] }]);
    expect(view.reached.map((row) => row.path.map((ref) => ref.name))).toEqual([
      ['lib', 'zlib'],
      ['app', 'lib', 'zlib'],
      ['tool', 'lib', 'zlib'],
    ]);
    expect(view.summaryText).toBe('Affects 1 package directly; 3 more packages reach it through dependencies.');
    expect(view.frame.path).toBe('/advisories/ZLIB-1');
  });

  it('shows the 300 nearest of a larger blast radius (shortest path, then name), not the first 300 by name, and counts the rest', () => {
    // 200 packages named first reach zlib through `mid` (paths of 3); `mid` and 250 named last depend on it directly (paths of 2).
    const far = Array.from({ length: 200 }, (_, index) => manifest(`aa-${String(index).padStart(3, '0')}`, { runtime: ['mid'] }));
    const near = Array.from({ length: 250 }, (_, index) => manifest(`zz-${String(index).padStart(3, '0')}`, { runtime: ['zlib'] }));
    const state = catalogState({ packages: [manifest('zlib'), manifest('mid', { runtime: ['zlib'] }), ...far, ...near], advisories: [advisory('ZLIB-1', { package: 'zlib' })] });
    const view = advisoryPage(siteContext(siteInput(state)), 'ZLIB-1');
    const starts = view.reached.map((row) => row.name);
    expect(starts).toHaveLength(300);
    expect(starts.slice(0, 3)).toEqual(['mid', 'zz-000', 'zz-001']);
    expect(starts[250]).toBe('zz-249');
    expect(starts.slice(251, 253)).toEqual(['aa-000', 'aa-001']);
    expect(starts[299]).toBe('aa-048');
    expect(view.reached[299].path.map((ref) => ref.name)).toEqual(['aa-048', 'mid', 'zlib']);
    expect(view.reachedMore).toBe(151);
    expect(view.summaryText).toBe('Affects 1 package directly; 451 more packages reach it through dependencies.');
  });

  it('gets a page for every advisory, a colon in its id percent-encoded in the link (the catalog\'s id grammar allows it)', () => {
    const state = catalogState({ packages: [manifest('zlib')], advisories: [advisory('RHSA-2026:0001', { package: 'zlib' }), advisory('GHSA-aaaa-bbbb-cccc', { package: 'zlib' })] });
    const context = siteContext(siteInput(state));
    const views = [...context.input.reach.keys()].map((id) => advisoryPage(context, id));
    expect(views.map((view) => [view.advisory.id, view.frame.path])).toEqual([
      ['GHSA-aaaa-bbbb-cccc', '/advisories/GHSA-aaaa-bbbb-cccc'],
      ['RHSA-2026:0001', '/advisories/RHSA-2026%3A0001'],
    ]);
    const [zlib] = packagePages(siteContext(siteInput(state)));
    expect(zlib.advisories.map((row) => [row.id, row.href])).toEqual([
      ['GHSA-aaaa-bbbb-cccc', '/advisories/GHSA-aaaa-bbbb-cccc'],
      ['RHSA-2026:0001', '/advisories/RHSA-2026%3A0001'],
    ]);
  });
});

describe('the changes page', () => {
  it('projects each commit\'s diff against its parent (composeDiff, as the diff endpoint) and the first commit as all added', () => {
    const before = catalogState({ commit: { sha: sha(1), pushedAt: '2026-01-01T00:00:00Z', message: 'Import' }, packages: [manifest('zlib', { version: '1.2.11' }), manifest('old')] });
    const after = catalogState({
      commit: { sha: sha(2), pushedAt: '2026-01-02T00:00:00Z', message: 'Upgrade zlib, add curl' },
      packages: [manifest('zlib', { version: '1.2.12' }), manifest('curl', { runtime: ['zlib'] })],
      advisories: [advisory('CURL-1', { package: 'curl', severity: 'LOW' })],
    });
    const side = (state: CatalogState) => JSON.parse(serialize(composeListingBundle(state, analyze(state))));
    const first = composeDiff({ commitSha: sha(1), pushedAt: before.commit.pushedAt, packages: [] }, side(before));
    const view = changesPage(
      siteContext(
        siteInput(after, [
          { commit: after.commit, root: false, diff: composeDiff(side(before), side(after)) },
          { commit: before.commit, root: true, diff: first },
        ], [after.commit, before.commit]),
      ),
    );
    const [tip, root] = view.commits;
    expect(tip.summary).toBe('1 package added, 1 package removed, 1 version change, 1 advisory change.');
    expect(tip.added.items).toEqual([{ name: 'curl', href: '/pkgs/curl', version: '1.0.0' }]);
    expect(tip.removed.items).toEqual([{ name: 'old', href: null, version: '1.0.0' }]);
    expect(tip.versionChanges.items).toEqual([{ name: 'zlib', href: '/pkgs/zlib', from: '1.2.11', to: '1.2.12', direction: 'upgrade' }]);
    expect(tip.advisoryChanges.items).toEqual([
      { name: 'curl', href: '/pkgs/curl', fromSeverity: null, toSeverity: 'low', fromCount: 0, toCount: 1, added: [{ id: 'CURL-1', href: '/advisories/CURL-1' }], removed: [] },
    ]);
    expect(tip.diffHref).toBe(`/api/pkgs/bundle/${sha(2)}/diff/${sha(1)}.json`);
    expect(root).toMatchObject({ first: true, diffHref: null, message: 'Import', summary: '2 packages added.' });
  });
});

describe('the frame', () => {
  it('signs in and comes back to the page (the search page is the default)', () => {
    expect(signInHref('/')).toBe('/auth/login');
    expect(signInHref('/pkgs/llama.cpp')).toBe('/auth/login?next=%2Fpkgs%2Fllama.cpp');
  });
});
