/**
 * The search of `search_packages` (src/compose/search.ts; the rules as docs/mcp.md states them)
 * and the closest names of an "unknown package" answer, on a hand-made listing bundle.
 */
import { describe, expect, it } from 'vitest';
import { buildSearchIndex, closestNames, searchPackages, type SearchQuery } from '../../src/compose/search.ts';
import type { ListingBundle, PackageCard } from '../../src/schemas/wire.ts';

const card = (name: string, description: string, extra: Partial<PackageCard> = {}): PackageCard => ({
  name,
  version: '1.0.0',
  description,
  license: 'MIT',
  categories: [],
  stars: 0,
  advisories: [],
  maxSeverity: null,
  ...extra,
});

const high = { id: 'ADV-1', severity: 'high' as const, summary: 'overflow' };
const low = { id: 'ADV-2', severity: 'low' as const, summary: null };

/** In the listing's order: by case-folded name. */
const LISTING: ListingBundle = {
  schemaVersion: 1,
  commitSha: 'a'.repeat(40),
  pushedAt: '2026-01-01T00:00:00Z',
  packages: [
    card('brotli', 'A generic-purpose lossless compression algorithm.', { categories: ['Compression'], advisories: [low], maxSeverity: 'low' }),
    card('json-c', 'A JSON implementation in C.', { categories: ['json'] }),
    card('libzip', 'A C library for reading, creating and modifying zip archives.', { categories: ['compression'], advisories: [high, low], maxSeverity: 'high' }),
    card('minizip', 'Zip file manipulation library, based on zlib.', { categories: ['compression'] }),
    card('nlohmann-json', 'JSON for Modern C++.', { categories: ['json'], advisories: [high], maxSeverity: 'high' }),
    card('zlib', 'A compression library.', { categories: ['compression'] }),
    card('zlib-ng', 'zlib data compression library for the next generation systems.', { categories: ['compression'] }),
  ],
  allCategories: ['Compression', 'compression', 'json'],
};

const index = buildSearchIndex(LISTING);
const names = (query: Omit<SearchQuery, 'limit' | 'offset'> & Partial<SearchQuery>) =>
  searchPackages(index, { limit: 50, offset: 0, ...query }).packages.map((hit) => hit.name);

describe('search_packages', () => {
  it('without arguments lists every package by name, with listing-tier records', () => {
    const result = searchPackages(index, { limit: 3, offset: 0 });
    expect(result).toMatchObject({ schemaVersion: 1, commitSha: 'a'.repeat(40), pushedAt: '2026-01-01T00:00:00Z', total: 7, offset: 0 });
    expect(result.packages[0]).toEqual({ name: 'brotli', version: '1.0.0', license: 'MIT', categories: ['Compression'], advisories: [low], maxSeverity: 'low' });
  });

  it('ranks names equal to a query word, then names starting with one, then names containing one, then descriptions', () => {
    expect(names({ query: 'zlib' })).toEqual(['zlib', 'zlib-ng', 'minizip']);
    expect(names({ query: 'ZIP' })).toEqual(['libzip', 'minizip']);
    expect(names({ query: 'json' })).toEqual(['json-c', 'nlohmann-json']);
    expect(names({ query: 'library' })).toEqual(['libzip', 'minizip', 'zlib', 'zlib-ng']);
    expect(names({ query: 'c json' })).toEqual(['json-c', 'nlohmann-json']);
    expect(names({ query: 'modern json' })).toEqual(['nlohmann-json']);
  });

  it('needs every word, each in the name or the description, case-insensitively', () => {
    expect(names({ query: 'zlib  LIBRARY' })).toEqual(['zlib', 'zlib-ng', 'minizip']);
    expect(names({ query: 'lossless algorithm' })).toEqual(['brotli']);
    expect(names({ query: 'zip archives' })).toEqual(['libzip']);
    expect(names({ query: 'zip nothing' })).toEqual([]);
    // A word never matches across two packages' texts, nor across the name and the description.
    expect(names({ query: 'c.brotli' })).toEqual([]);
    expect(names({ query: 'json-cA' })).toEqual([]);
    expect(names({ query: '\u0000' })).toEqual([]);
    expect(names({ query: '   ' })).toHaveLength(7);
  });

  it('filters by category (any case, any of a package\'s) and by severity (at least one of exactly that)', () => {
    expect(names({ category: 'COMPRESSION' })).toEqual(['brotli', 'libzip', 'minizip', 'zlib', 'zlib-ng']);
    expect(names({ severity: 'high' })).toEqual(['libzip', 'nlohmann-json']);
    expect(names({ severity: 'low' })).toEqual(['brotli', 'libzip']);
    expect(names({ severity: 'critical' })).toEqual([]);
    expect(names({ severity: 'high', category: 'json', query: 'modern' })).toEqual(['nlohmann-json']);
    expect(names({ category: 'none' })).toEqual([]);
  });

  it('pages with limit and offset over the whole ordered list', () => {
    const pages = [0, 2, 4, 6, 8].map((offset) => searchPackages(index, { limit: 2, offset }));
    expect(pages.map((page) => page.total)).toEqual([7, 7, 7, 7, 7]);
    expect(pages.flatMap((page) => page.packages.map((hit) => hit.name))).toEqual(LISTING.packages.map((one) => one.name));
  });
});

describe('closest names', () => {
  const catalog = ['zlib', 'zlib-ng', 'libzip', 'openssl', 'openssl3', 'curl', 'llama.cpp', 'SQLite'];

  it('are the names a few edits away, then those containing it, nearest first', () => {
    expect(closestNames(catalog, 'zlibb')).toEqual(['zlib']);
    expect(closestNames(catalog, 'zlib-n')).toEqual(['zlib-ng', 'zlib']);
    expect(closestNames(catalog, 'openss')).toEqual(['openssl', 'openssl3']);
    expect(closestNames(catalog, 'sqlite3')).toEqual(['SQLite']);
    expect(closestNames(catalog, 'llama')).toEqual(['llama.cpp']);
    expect(closestNames(catalog, 'tensorflow')).toEqual([]);
    expect(closestNames(catalog, '')).toEqual([]);
  });

  it('are at most five', () => {
    expect(closestNames(['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7'], 'a')).toHaveLength(5);
  });
});
