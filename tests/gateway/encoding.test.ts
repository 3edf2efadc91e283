/** Accept-Encoding negotiation, the bounded caches, the semaphore and the trust-proxy setting of the gateway. */
import { describe, expect, it } from 'vitest';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { trustProxySetting } from '../../gateway/app.ts';
import { BodyCache, negotiateEncoding, type WorkEvent } from '../../gateway/encoding.ts';
import { BoundedCache, Once, OnceCache, Semaphore } from '../../gateway/lru.ts';

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

describe('BoundedCache', () => {
  it('evicts the least recently used entries beyond its bytes, and refuses an entry larger than itself', () => {
    const evicted: string[] = [];
    const cache = new BoundedCache<string>({ maxBytes: 10, sizeOf: (value) => value.length, onEvict: (_value, key) => evicted.push(key) });
    cache.set('a', 'aaaa');
    cache.set('b', 'bbbb');
    expect(cache.get('a')).toBe('aaaa');
    cache.set('c', 'cccc');
    expect(cache.get('b')).toBeUndefined();
    expect(evicted).toEqual(['b']);
    expect(cache.get('a')).toBe('aaaa');
    expect(cache.stats()).toEqual({ entries: 2, bytes: 8, maxBytes: 10 });
    cache.set('huge', 'x'.repeat(11));
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.stats()).toEqual({ entries: 2, bytes: 8, maxBytes: 10 });
    // A deletion is not an eviction.
    cache.delete('a');
    expect(evicted).toEqual(['b']);
  });

  it('Once shares a running load and forgets a failure', async () => {
    const once = new Once<number>();
    let calls = 0;
    const load = async () => ++calls;
    expect(await Promise.all([once.run('k', load), once.run('k', load)])).toEqual([1, 1]);
    await expect(once.run('f', async () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(await once.run('f', load)).toBe(2);
  });

  it('OnceCache loads a key once for concurrent callers, keeps values, and never keeps null', async () => {
    const cache = new OnceCache<{ n: number }>({ maxBytes: 100, sizeOf: () => 10 });
    let loads = 0;
    const load = async () => ({ n: ++loads });
    const [first, second] = await Promise.all([cache.get('k', load), cache.get('k', load)]);
    expect(first).toBe(second);
    expect(await cache.get('k', load)).toBe(first);
    expect(await cache.get('none', async () => (loads++, null))).toBeNull();
    expect(await cache.get('none', async () => (loads++, null))).toBeNull();
    expect(loads).toBe(3);
    expect(cache.stats()).toEqual({ entries: 1, bytes: 10, maxBytes: 100 });
  });
});

describe('Semaphore', () => {
  it('runs at most its size of tasks at once, the others in the order they came', async () => {
    const semaphore = new Semaphore(2);
    const started: number[] = [];
    const release: (() => void)[] = [];
    const tasks = [0, 1, 2, 3].map((n) =>
      semaphore.run(async () => {
        started.push(n);
        await new Promise<void>((resolve) => release.push(resolve));
        return n;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(semaphore.stats()).toEqual({ running: 2, waiting: 2, size: 2 });
    release[0]();
    await tasks[0];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    release[1]();
    release[2]();
    await Promise.all([tasks[1], tasks[2]]);
    release[3]();
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3]);
    expect(semaphore.stats()).toEqual({ running: 0, waiting: 0, size: 2 });
  });

  it('frees the slot of a task that fails', async () => {
    const semaphore = new Semaphore(1);
    await expect(semaphore.run(async () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(await semaphore.run(async () => 'ran')).toBe('ran');
  });
});

describe('BodyCache', () => {
  it('compresses once per identity and encoding, and the bytes decode to the body', async () => {
    const events: WorkEvent[] = [];
    const cache = new BodyCache({ maxBytes: 1 << 20, compressions: new Semaphore(1), observe: (event) => events.push(event) });
    const body = Buffer.from('{"a":1}'.repeat(500));
    let loads = 0;
    const load = async () => (loads++, body);
    const [br1, br2] = await Promise.all([cache.compressed('x', 'br', load), cache.compressed('x', 'br', load)]);
    expect(br1).toBe(br2);
    expect(brotliDecompressSync(br1).equals(body)).toBe(true);
    expect(gunzipSync(await cache.compressed('x', 'gzip', load)).equals(body)).toBe(true);
    await cache.compressed('x', 'br', load);
    expect(loads).toBe(2);
    expect(events).toEqual([
      { kind: 'compress', identity: 'x', encoding: 'br' },
      { kind: 'compress', identity: 'x', encoding: 'gzip' },
    ]);
    const plain = await cache.plain('x', load);
    expect(plain.equals(body)).toBe(true);
    expect(await cache.plain('x', load)).toBe(plain);
    expect(loads).toBe(3);
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
