/**
 * closureDigests (src/compose/closure.ts): one digest per package's closure, made in one walk of
 * the graph. A floating SBOM is kept while its package's closure digest is the same, so the digest
 * must change exactly when a package of the closure changes, and a dependency cycle must share one.
 * The digest here writes its arguments out, so each expected value shows the closure's structure.
 */
import { describe, expect, it } from 'vitest';
import { closureDigests } from '../../src/compose/closure.ts';

/** A package's dependencies that are packages, as the build gives them. */
type Graph = Record<string, string[]>;

const spelled = (graph: Graph, text: Record<string, string> = {}) =>
  closureDigests(
    Object.keys(graph),
    (key) => graph[key],
    (members, reached) => `[${members.map((key) => `${key}${text[key] ? `=${text[key]}` : ''}`).join(',')}${reached.length > 0 ? ` > ${reached.join(' ')}` : ''}]`,
  );

/** curl needs openssl, which needs zlib; wget needs curl and zlib; a, b and c need each other, and c needs zlib; x needs itself. */
const STORY: Graph = { zlib: [], openssl: ['zlib'], curl: ['openssl'], wget: ['curl', 'zlib'], a: ['b'], b: ['c'], c: ['a', 'zlib'], x: ['x'], leaf: [] };

describe('closureDigests', () => {
  it('digests each package with the components its closure reaches', () => {
    expect(Object.fromEntries(spelled(STORY))).toEqual({
      zlib: '[zlib]',
      openssl: '[openssl > [zlib]]',
      curl: '[curl > [openssl > [zlib]]]',
      wget: '[wget > [curl > [openssl > [zlib]]] [zlib]]',
      a: '[a,b,c > [zlib]]',
      b: '[a,b,c > [zlib]]',
      c: '[a,b,c > [zlib]]',
      x: '[x]',
      leaf: '[leaf]',
    });
  });

  it('changes the digest of every package that reaches a changed one, and of no other', () => {
    const before = spelled(STORY);
    const after = spelled(STORY, { zlib: 'changed' });
    expect(Object.keys(STORY).filter((key) => before.get(key) !== after.get(key))).toEqual(['zlib', 'openssl', 'curl', 'wget', 'a', 'b', 'c']);
  });

  it('gives the same digest whatever order the packages are walked in', () => {
    const reversed = Object.fromEntries(Object.entries(STORY).reverse());
    expect(Object.fromEntries(spelled(reversed))).toEqual(Object.fromEntries(spelled(STORY)));
  });

  it('digests a cycle through 20,000 packages as one component, without running out of stack', () => {
    const cycle: Graph = Object.fromEntries(Array.from({ length: 20_000 }, (_, index) => [`p${index}`, [`p${(index + 1) % 20_000}`]]));
    const digests = closureDigests(Object.keys(cycle), (key) => cycle[key], (members, reached) => `${members.length} members, ${reached.length} reached`);
    expect(new Set(digests.values())).toEqual(new Set(['20000 members, 0 reached']));
    expect(digests.size).toBe(20_000);
  });
});
