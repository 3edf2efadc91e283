/** Accept-Encoding negotiation, the bounded caches and the trust-proxy setting of the gateway. */
import { describe, expect, it } from 'vitest';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { trustProxySetting } from '../../gateway/app.ts';
import { CompressedCache, negotiateEncoding } from '../../gateway/encoding.ts';
import { Lru, Once } from '../../gateway/lru.ts';

describe('negotiateEncoding', () => {
  it.each([
    [undefined, 'identity'],
    ['', 'identity'],
    ['identity', 'identity'],
    ['gzip', 'gzip'],
    ['x-gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip;q=1.0, br;q=0.8', 'gzip'],
    ['br;q=0.8, gzip;q=0.8', 'br'],
    ['br;q=0, gzip', 'gzip'],
    ['br;q=0, gzip;q=0', 'identity'],
    ['*', 'br'],
    ['*;q=0, gzip', 'gzip'],
    ['deflate', 'identity'],
    ['GZIP', 'gzip'],
    ['br;q=abc', 'identity'],
  ])('Accept-Encoding %j gives %s', (header, encoding) => {
    expect(negotiateEncoding(header)).toBe(encoding);
  });
});

describe('Lru', () => {
  it('evicts the least recently used entries beyond its size, and refuses an entry larger than itself', () => {
    const lru = new Lru<string>(10, (value) => value.length);
    lru.set('a', 'aaaa');
    lru.set('b', 'bbbb');
    expect(lru.get('a')).toBe('aaaa');
    lru.set('c', 'cccc');
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe('aaaa');
    expect(lru.size).toBe(8);
    lru.set('huge', 'x'.repeat(11));
    expect(lru.get('huge')).toBeUndefined();
    expect(lru.size).toBe(8);
  });

  it('Once shares a running load and forgets a failure', async () => {
    const once = new Once<number>();
    let calls = 0;
    const load = async () => ++calls;
    expect(await Promise.all([once.run('k', load), once.run('k', load)])).toEqual([1, 1]);
    await expect(once.run('f', async () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(await once.run('f', load)).toBe(2);
  });
});

describe('CompressedCache', () => {
  it('compresses once per identity and encoding, and the bytes decode to the body', async () => {
    const cache = new CompressedCache(1 << 20);
    const body = Buffer.from('{"a":1}'.repeat(500));
    let loads = 0;
    const load = async () => (loads++, body);
    const [br1, br2] = await Promise.all([cache.get('x', 'br', load), cache.get('x', 'br', load)]);
    expect(br1).toBe(br2);
    expect(brotliDecompressSync(br1).equals(body)).toBe(true);
    expect(gunzipSync(await cache.get('x', 'gzip', load)).equals(body)).toBe(true);
    await cache.get('x', 'br', load);
    expect(loads).toBe(2);
  });
});

describe('trustProxySetting', () => {
  it.each([
    [undefined, false],
    [true, true],
    [2, 2],
    ['true', true],
    ['false', false],
    ['', false],
    ['1', 1],
    ['loopback, 10.0.0.0/8', 'loopback, 10.0.0.0/8'],
  ])('%j gives %j', (value, setting) => {
    expect(trustProxySetting(value)).toEqual(setting);
  });
});
