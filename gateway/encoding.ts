/**
 * Content-Encoding: `br` or `gzip` when the client accepts it and the body is large enough to
 * gain from it. Bodies behind a sha never change, and a floating file never changes within a
 * release, so compressed bytes are cached by an identity key (ETag or release and path).
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { Lru, Once } from './lru.ts';

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

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Compresses off the event loop (zlib's thread pool); quality 6 keeps a first request of a large bundle fast. */
export function compress(bytes: Buffer, encoding: Exclude<Encoding, 'identity'>): Promise<Buffer> {
  if (encoding === 'br') {
    return brotliAsync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 6, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    });
  }
  return gzipAsync(bytes, { level: 6 });
}

/** Compressed bodies, bounded by their total size. */
export class CompressedCache {
  readonly #lru: Lru<Buffer>;
  readonly #once = new Once<Buffer>();

  constructor(maxBytes: number) {
    this.#lru = new Lru<Buffer>(maxBytes, (bytes) => bytes.length);
  }

  /** The `encoding` bytes of the body known as `identity`, loading the plain bytes only on a miss. */
  async get(identity: string, encoding: Exclude<Encoding, 'identity'>, load: () => Promise<Buffer>): Promise<Buffer> {
    const key = `${encoding}:${identity}`;
    const hit = this.#lru.get(key);
    if (hit) return hit;
    return this.#once.run(key, async () => {
      const compressed = await compress(await load(), encoding);
      this.#lru.set(key, compressed);
      return compressed;
    });
  }
}
