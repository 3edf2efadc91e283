/**
 * The X-Accel-Redirect mode (`--accel-redirect <prefix>`, docs/deployment.md): the gateway decides
 * (route, sha, session gate, headers) and nginx sends the bytes. For a body that is one file of
 * the output directory, the gateway answers with every header it would send, `X-Accel-Redirect:
 * <prefix>/<path relative to out>` and an empty body; nginx, through an `internal` location
 * aliasing the output directory, sends that file.
 *
 * Which file:
 *   - a sha-pinned body that is no one file (a content-addressed object such as deps.json,
 *     versions.json or a commit's diff against its parent, which live in packs; a bundle assembled
 *     from chunks; a compressed copy): written on first request to
 *     `<out>/cache/bodies/<etag hash>.json[.br|.gz]` (atomically, within the cache's size cap:
 *     disk-cache.ts), the same bytes the default mode sends (for an object, the build's
 *     precompressed copy when it made one); the name is the body's ETag hash, so a file never goes
 *     stale, and one deleted to make room is written again when next asked for;
 *   - a body composed on request (a diff of another pair of commits, an SBOM) sent uncompressed:
 *     its file under `cache/` (composed-store.ts);
 *   - a floats-latest file of the release's public/ tree, when the client gets it uncompressed.
 * Anything else (a floats-latest body sent compressed, a body when the cache cannot be written)
 * is sent by the gateway itself, exactly as in the default mode.
 */
import { stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { contentHash } from '../src/store/hash.ts';
import { paths } from '../src/store/layout.ts';
import type { DiskCache } from './disk-cache.ts';
import type { Encoding } from './encoding.ts';
import { Once } from './lru.ts';

/** Checks and normalizes the internal location prefix: `/name[/name...]`, no trailing slash. */
export function accelPrefix(value: string): string {
  const prefix = value.trim().replace(/\/+$/, '');
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(prefix)) {
    throw new Error(`the X-Accel-Redirect prefix must be an absolute path such as /_pkgcat (letters, digits, . _ ~ -), got "${value}"`);
  }
  return prefix;
}

/** A file name fit for an ETag (`W/"<hex>"`): its hex when it is one, else a hash of it. */
export function etagKey(etag: string): string {
  const inner = /^(?:W\/)?"([0-9a-f]{16,64})"$/.exec(etag)?.[1];
  return inner ?? contentHash(etag);
}

const SUFFIX: Record<Encoding, string> = { identity: '', br: '.br', gzip: '.gz' };

export class AccelBodies {
  /** The internal location nginx serves `out` under, e.g. `/_pkgcat`. */
  readonly prefix: string;
  readonly #out: string;
  readonly #dir: string;
  readonly #disk: DiskCache;
  readonly #once = new Once<string | null>();

  constructor(out: string, prefix: string, disk: DiskCache) {
    this.#out = out;
    this.prefix = accelPrefix(prefix);
    this.#dir = paths.bodyCache(out);
    this.#disk = disk;
  }

  /** The `X-Accel-Redirect` value for a file under `out`. */
  uri(file: string): string {
    const path = relative(this.#out, file);
    if (path.startsWith('..')) throw new Error(`${file} is outside the output directory`);
    return `${this.prefix}/${path.split(sep).join('/')}`;
  }

  /**
   * `<out>/cache/bodies/<key>.json[.br|.gz]`, written from `load` when absent. Null when it cannot be
   * kept (a read-only output directory, a body larger than the cache's cap): the caller sends the body itself.
   */
  async materialize(key: string, encoding: Encoding, load: () => Promise<Buffer>): Promise<string | null> {
    const file = join(this.#dir, `${key}.json${SUFFIX[encoding]}`);
    return this.#once.run(file, async () => {
      // Kept, and still there: another gateway over the same output may have deleted it to make room.
      const kept = (await this.#disk.has(file)) && (await stat(file).then(() => true, () => false));
      if (kept) return file;
      // A failure to read the body is the request's (a 500, as in the default mode); one to write it is not.
      return (await this.#disk.write(file, await load())) ? file : null;
    });
  }
}
