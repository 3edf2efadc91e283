import { describe, it, expect } from 'vitest';
import { RawJson, StoredArray, serialize, serializeChunk, serializeSegments, type Segment } from '../../src/serialize.ts';
import { analyze } from '../../src/compose/analysis.ts';
import { advisoryMap } from '../../src/compose/advisories.ts';
import { composeFullBundle, composeListingBundle, fullBundle, listingBundle, packageKeys, allCategories } from '../../src/compose/bundles.ts';
import { composeCard, composeEnvelope, composeRecord } from '../../src/compose/package.ts';
import { transitiveAdvisories } from '../../src/compose/advisories.ts';
import { advisory, catalogState, manifest, scorecard } from '../helpers/state.ts';

/** Joins a stored body: literal text as is, chunk references resolved through the store. */
function assemble(segments: Segment[], store: ReadonlyMap<string, string>): string {
  return segments
    .map((segment) => {
      if (typeof segment === 'string') return segment;
      const text = store.get(segment.object);
      if (text === undefined) throw new Error(`no chunk ${segment.object}`);
      return text;
    })
    .join('');
}

/** Stores `items` split into chunks of the given sizes, the way the build does. */
function storeChunks(items: readonly unknown[], sizes: number[], store: Map<string, string>, prefix: string): StoredArray {
  expect(sizes.reduce((a, b) => a + b, 0)).toBe(items.length);
  const hashes: string[] = [];
  let start = 0;
  sizes.forEach((size, index) => {
    const hash = `${prefix}-${index}`;
    store.set(hash, serializeChunk(items.slice(start, start + size)));
    hashes.push(hash);
    start += size;
  });
  return new StoredArray(hashes);
}

describe('serialize: sorted keys at every depth (serialize.ts: bytes depend only on the data)', () => {
  it.each([
    ['flat object', { b: 1, a: 2, c: 3 }, '{"a":2,"b":1,"c":3}'],
    ['nested objects', { z: { y: 1, x: { w: 2, v: 3 } }, a: 0 }, '{"a":0,"z":{"x":{"v":3,"w":2},"y":1}}'],
    ['objects inside arrays', [{ b: 1, a: 2 }, [{ d: 1, c: 2 }]], '[{"a":2,"b":1},[{"c":2,"d":1}]]'],
    ['arrays keep their order', { list: [3, 1, 2] }, '{"list":[3,1,2]}'],
    ['UTF-16 code-unit order, digits < upper < `_` < lower', { a: 1, _: 2, B: 3, '9': 4, '10': 5 }, '{"10":5,"9":4,"B":3,"_":2,"a":1}'],
    ['code-unit (not code-point) order: a surrogate pair sorts before U+FFFF', { '\uffff': 1, '😀': 2 }, '{"😀":2,"\uffff":1}'],
    ['the empty key sorts first', { a: 1, '': 0 }, '{"":0,"a":1}'],
    ['assembly order does not matter', Object.fromEntries([['m', 1], ['k', 2], ['l', 3]]), '{"k":2,"l":3,"m":1}'],
  ])('%s', (_why, value, expected) => {
    expect(serialize(value)).toBe(expected);
    expect(JSON.parse(serialize(value))).toEqual(value);
  });

  it('keeps a `__proto__` key, as catalog data parsed from JSON may hold one', () => {
    const value = JSON.parse('{"b":1,"__proto__":{"x":2},"a":[{"__proto__":3}]}') as unknown;
    expect(serialize(value)).toBe('{"__proto__":{"x":2},"a":[{"__proto__":3}],"b":1}');
    expect(serializeSegments(value)).toEqual(['{"__proto__":{"x":2},"a":[{"__proto__":3}],"b":1}']);
  });

  it('two objects with the same members in different insertion order give the same bytes', () => {
    const one = { pkg: { name: 'zlib', version: '1.0', deps: { runtime: [], build: [] } }, sha: 'x' };
    const two = { sha: 'x', pkg: { deps: { build: [], runtime: [] }, version: '1.0', name: 'zlib' } };
    expect(serialize(one)).toBe(serialize(two));
    expect(serialize(one)).toBe('{"pkg":{"deps":{"build":[],"runtime":[]},"name":"zlib","version":"1.0"},"sha":"x"}');
  });
});

describe('serialize: HTML-unsafe characters are \\u-escaped and the text still parses (serialize.ts)', () => {
  it.each([
    ['`<` and `>`', '</script><script>', String.raw`"\u003c/script\u003e\u003cscript\u003e"`],
    ['`&`', 'a&b&amp;', String.raw`"a\u0026b\u0026amp;"`],
    ['U+2028 LINE SEPARATOR', 'a\u2028b', String.raw`"a\u2028b"`],
    ['U+2029 PARAGRAPH SEPARATOR', 'a\u2029b', String.raw`"a\u2029b"`],
    ['HTML comment opener', '<!--', String.raw`"\u003c!--"`],
    ['JSON escapes are kept as JSON.stringify writes them', 'q"b\\n\n\t', String.raw`"q\"b\\n\n\t"`],
    ['a lone surrogate is escaped (well-formed JSON.stringify)', '\ud800', String.raw`"\ud800"`],
    ['non-ASCII text stays literal', 'é 😀', '"é 😀"'],
    ['a literal backslash-u sequence is not mistaken for an escape', String.raw`\u003c<`, String.raw`"\\u003c\u003c"`],
  ])('%s', (_why, text, expected) => {
    const bytes = serialize(text);
    expect(bytes).toBe(expected);
    expect(bytes).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(bytes)).toBe(text);
  });

  it('keys are escaped too, and the whole value parses back to itself', () => {
    const value = { '<k>': '&', nested: [{ 'a\u2028': '\u2029' }] };
    const bytes = serialize(value);
    expect(bytes).toBe(String.raw`{"\u003ck\u003e":"\u0026","nested":[{"a\u2028":"\u2029"}]}`);
    expect(JSON.parse(bytes)).toEqual(value);
  });
});

describe('serialize: values (serialize.ts: undefined omitted as JSON.stringify does)', () => {
  it.each([
    ['undefined members are omitted', { a: undefined, b: 1 }, '{"b":1}'],
    ['undefined members are omitted at depth', { x: { a: undefined, b: { c: undefined } } }, '{"x":{"b":{}}}'],
    ['an object of only undefined members is {}', { a: undefined }, '{}'],
    ['an undefined array item becomes null', [undefined, 1], '[null,1]'],
    ['null is kept', { a: null }, '{"a":null}'],
    ['non-finite numbers become null', [NaN, Infinity, -Infinity], '[null,null,null]'],
    ['numbers as JSON.stringify writes them', [0, -0, 1.5, 1e21, 1e-7, -3], '[0,0,1.5,1e+21,1e-7,-3]'],
    ['booleans', [true, false], '[true,false]'],
    ['empty containers', { a: [], b: {} }, '{"a":[],"b":{}}'],
    ['toJSON is honored', { at: new Date('2026-03-01T12:00:00Z') }, '{"at":"2026-03-01T12:00:00.000Z"}'],
  ])('%s', (_why, value, expected) => {
    expect(serialize(value)).toBe(expected);
    // Same data as the platform serializer gives (modulo key order and escapes, absent here).
    expect(JSON.parse(serialize(value))).toEqual(JSON.parse(JSON.stringify(value)));
  });

  it('refuses values JSON cannot carry', () => {
    expect(() => serialize({ f: () => 1 })).toThrow(TypeError);
    expect(() => serialize({ n: 1n })).toThrow(TypeError);
  });
});

describe('serializeSegments: StoredArray chunks joined give exactly serialize() of the whole (serialize.ts)', () => {
  const items = [
    { name: 'b<', n: 2, z: undefined },
    { n: 1, name: 'a&' },
    { name: 'c', list: [{ y: 1, x: 2 }] },
    'text\u2028',
    null,
    7,
  ];

  it.each([
    ['the empty array: no chunks', [], []],
    ['one chunk of one item', items.slice(0, 1), [1]],
    ['one chunk of every item', items, [6]],
    ['several chunks', items, [2, 1, 3]],
    ['one item per chunk', items, [1, 1, 1, 1, 1, 1]],
  ])('%s', (_why, list, sizes) => {
    const store = new Map<string, string>();
    const stored = storeChunks(list, sizes, store, 'chunk');
    const whole = { after: 1, before: '<', list };
    const segments = serializeSegments({ after: 1, before: '<', list: stored });
    expect(assemble(segments, store)).toBe(serialize(whole));
    // The stored array serialized on its own is the same array too.
    expect(assemble(serializeSegments(stored), store)).toBe(serialize(list));
  });

  it('yields literal text and references, adjacent text merged', () => {
    const value = { b: 1, a: new StoredArray(['h1', 'h2']), c: [new StoredArray([])] };
    expect(serializeSegments(value)).toEqual(['{"a":[', { object: 'h1' }, ',', { object: 'h2' }, '],"b":1,"c":[[]]}']);
  });

  it('a value without StoredArray is one literal segment equal to serialize()', () => {
    const value = { b: [1, 2], a: 'x' };
    expect(serializeSegments(value)).toEqual([serialize(value)]);
  });

  it('serializeChunk joins serialized items with "," and no brackets', () => {
    expect(serializeChunk([{ b: 1, a: 2 }, '<', null])).toBe(String.raw`{"a":2,"b":1},"\u003c",null`);
    expect(serializeChunk([])).toBe('');
  });

  it('serialize() refuses a StoredArray with chunks', () => {
    expect(() => serialize({ list: new StoredArray(['h']) })).toThrow(TypeError);
  });

  it('two stored arrays in one value (the full bundle) assemble to the whole bundle', () => {
    const state = catalogState({
      packages: [
        manifest('zlib', { version: '1.2.11', categories: ['compression'] }),
        manifest('curl', { runtime: ['zlib', 'openssl'], categories: ['networking'] }),
        { manifest: manifest('openssl', { version: '3.0.0' }), scorecard: scorecard(6.3) },
        manifest('app', { build: ['curl'] }),
      ],
      advisories: [
        advisory('OSV-2', { package: 'zlib', fixed: '1.2.12', severity: 'HIGH', summary: 'heap <overflow> & more' }),
        advisory('OSV-1', { package: ['openssl', 'zlib'], severity: 'LOW' }),
      ],
    });
    const analysis = analyze(state);
    const keys = packageKeys(state);
    const store = new Map<string, string>();
    const records = storeChunks(keys.map((key) => composeRecord(state, analysis, key)), [3, 1], store, 'records');
    const transitive = keys.flatMap((key) => transitiveAdvisories(state, analysis, key));
    expect(transitive.length).toBeGreaterThan(2);
    const rollup = storeChunks(transitive, [1, transitive.length - 1], store, 'transitive');
    const advisories = new RawJson(serialize(advisoryMap(state, analysis)));
    const assembled = assemble(serializeSegments(fullBundle(state.commit, records, advisories, rollup)), store);
    expect(assembled).toBe(serialize(composeFullBundle(state, analysis)));

    const cards = storeChunks(keys.map((key) => composeCard(state, analysis, key)), [2, 2], store, 'cards');
    expect(assemble(serializeSegments(listingBundle(state.commit, cards, allCategories(state))), store)).toBe(
      serialize(composeListingBundle(state, analysis)),
    );
  });
});

describe('RawJson: embedded text as is (serialize.ts)', () => {
  it.each([
    ['not re-sorted nor re-escaped', { b: new RawJson('{"z":1,"a":"<"}'), a: 1 }, '{"a":1,"b":{"z":1,"a":"<"}}'],
    ['inside an array', [new RawJson('1'), new RawJson('[2, 3]')], '[1,[2, 3]]'],
    ['at the top level', new RawJson('{"x":true}'), '{"x":true}'],
  ])('%s', (_why, value, expected) => {
    expect(serialize(value)).toBe(expected);
  });

  it('an envelope around a stored record equals the envelope around the record', () => {
    const state = catalogState({ packages: [manifest('zlib', { homepage: 'https://zlib.net/?a=1&b=<2>' })] });
    const analysis = analyze(state);
    const record = composeRecord(state, analysis, 'zlib');
    expect(serialize(composeEnvelope(state.commit, new RawJson(serialize(record))))).toBe(serialize(composeEnvelope(state.commit, record)));
  });
});
