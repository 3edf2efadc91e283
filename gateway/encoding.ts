/**
 * Content-Encoding: `br` or `gzip` when the client accepts it and the body is large enough to
 * gain from it. Bodies behind a sha never change, and a floating file never changes within a
 * release, so compressed bytes are cached by an identity key (ETag or release and path).
 */
import { compress } from '../src/store/compress.ts';
import { OnceCache, ownBytes, type CacheLookups, type CacheStats, type Semaphore } from './lru.ts';

export type Encoding = 'br' | 'gzip' | 'identity';

/** Below this size compression saves less than its headers and CPU cost (the build uses 4096 for files). */
export const COMPRESS_MIN_BYTES = 1024;

/** Parses `Accept-Encoding` (RFC 9110 12.5.3): `br` is preferred over `gzip` at equal or better q. */
export function negotiateEncoding(header: string | undefined): Encoding {
  if (!header) return 'identity';
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [token, ...params] = part.trim().toLowerCase().split(';');
    if (!token) continue;
    let weight = 1;
    for (const param of params) {
      const [key, value] = param.trim().split('=');
      if (key === 'q') weight = Number.parseFloat(value ?? '');
    }
    q.set(token.trim(), Number.isFinite(weight) ? weight : 0);
  }
  const weightOf = (coding: string) => q.get(coding) ?? q.get('*') ?? 0;
  const br = weightOf('br');
  const gz = Math.max(weightOf('gzip'), q.get('x-gzip') ?? 0);
  if (br > 0 && br >= gz) return 'br';
  if (gz > 0) return 'gzip';
  return 'identity';
}

/** Work the gateway does on a cache miss, reported to an observer (the tests count it; nothing else needs it). */
export type WorkEvent =
  | { readonly kind: 'assemble'; readonly etag: string }
  /** A release's joined document (`file`), joined from what it joins. */
  | { readonly kind: 'join'; readonly file: string }
  | { readonly kind: 'compress'; readonly identity: string; readonly encoding: Exclude<Encoding, 'identity'> }
  | { readonly kind: 'compose'; readonly file: string };

export type WorkObserver = (event: WorkEvent) => void;

export interface BodyCacheOptions {
  /** Total bytes of bodies kept, plain and compressed. */
  readonly maxBytes: number;
  /** Compressions running at once; the others wait (each holds its body and a brotli or gzip state). */
  readonly compressions: Semaphore;
  readonly observe?: WorkObserver;
}

/**
 * Bodies as sent, by identity and encoding, bounded by their total size: the compressed bytes of
 * any body, and the plain bytes of bodies that are no one file (a bundle assembled from its chunks).
 * Each is made once while it is kept, whatever the number of clients asking at the same time.
 */
export class BodyCache {
  readonly #cache: OnceCache<Buffer>;
  readonly #compressions: Semaphore;
  readonly #observe: WorkObserver;

  constructor(options: BodyCacheOptions) {
    this.#cache = new OnceCache<Buffer>({ maxBytes: options.maxBytes, sizeOf: (bytes, key) => bytes.length + key.length });
    this.#compressions = options.compressions;
    this.#observe = options.observe ?? (() => {});
  }

  /** The plain bytes of the body known as `identity`, loaded (assembled) only on a miss, and kept. */
  async plain(identity: string, load: () => Promise<Buffer>): Promise<Buffer> {
    return (await this.#cache.get(`identity:${identity}`, async () => ownBytes(await load())))!;
  }

  /** The plain bytes of the body known as `identity` when they are kept. */
  keptPlain(identity: string): Buffer | undefined {
    return this.#cache.peek(`identity:${identity}`);
  }

  /** The `encoding` bytes of the body known as `identity`, loading the plain bytes only on a miss. */
  async compressed(identity: string, encoding: Exclude<Encoding, 'identity'>, load: () => Promise<Buffer>): Promise<Buffer> {
    // The plain bytes are loaded once a slot is free: a queue of waiting compressions holds no bodies.
    const compressed = await this.#cache.get(`${encoding}:${identity}`, () =>
      this.#compressions.run(async () => {
        const plain = await load();
        this.#observe({ kind: 'compress', identity, encoding });
        return ownBytes(await compress(plain, encoding));
      }),
    );
    return compressed!;
  }

  stats(): CacheStats {
    return this.#cache.stats();
  }

  lookups(): CacheLookups {
    return this.#cache.lookups();
  }
}
