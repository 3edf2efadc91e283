/**
 * The X-Accel-Redirect mode (`--accel-redirect <prefix>`, docs/deployment.md): the gateway decides
 * (route, sha, session gate, headers) and nginx sends the bytes. For a body that is one file of
 * the output directory, the gateway answers with every header it would send, `X-Accel-Redirect:
 * <prefix>/<path relative to out>` and an empty body; nginx, through an `internal` location
 * aliasing the output directory, sends that file.
 *
 * Which file:
 *   - a content-addressed object (deps.json, versions.json): the object, or the build's `.br`/`.gz`
 *     sibling for the encoding the client accepts;
 *   - a sha-pinned body that is no one file (a bundle assembled from chunks, a compressed copy the
 *     build did not write, a diff): written once, on first request, to
 *     `<out>/cache/bodies/<etag hash>.json[.br|.gz]` (atomically, src/store/atomic.ts), the same bytes
 *     the default mode sends; the name is the body's ETag hash, so a file never goes stale;
 *   - a floats-latest file of the release's public/ tree, when the client gets it uncompressed.
 * Anything else (a floats-latest body sent compressed, a body when the cache cannot be written)
 * is sent by the gateway itself, exactly as in the default mode.
 */
import { stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { writeFileAtomic } from '../src/store/atomic.ts';
import { contentHash } from '../src/store/hash.ts';
import { paths } from '../src/store/layout.ts';
import type { Encoding } from './encoding.ts';
import { Lru, Once } from './lru.ts';

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
  readonly #log: (line: string) => void;
  /** Files known to exist (write-once files never go away while the gateway runs). */
  readonly #known = new Lru<true>(65_536);
  /** Build siblings known not to exist. */
  readonly #absent = new Lru<true>(65_536);
  /** Sizes of objects, for the compression floor. */
  readonly #sizes = new Lru<number>(65_536);
  readonly #once = new Once<string | null>();
  #warned = false;

  constructor(out: string, prefix: string, log: (line: string) => void) {
    this.#out = out;
    this.prefix = accelPrefix(prefix);
    this.#dir = paths.bodyCache(out);
    this.#log = log;
  }

  /** The `X-Accel-Redirect` value for a file under `out`. */
  uri(file: string): string {
    const path = relative(this.#out, file);
    if (path.startsWith('..')) throw new Error(`${file} is outside the output directory`);
    return `${this.prefix}/${path.split(sep).join('/')}`;
  }

  /**
   * Whether a write-once file exists. A positive answer is remembered; a negative one only with
   * `settled` (a build sibling of a published object: written before the object was referenced, or never).
   */
  async exists(file: string, settled = false): Promise<boolean> {
    if (this.#known.get(file)) return true;
    if (settled && this.#absent.get(file)) return false;
    const found = await stat(file).then(
      () => true,
      () => false,
    );
    if (found) this.#known.set(file, true);
    else if (settled) this.#absent.set(file, true);
    return found;
  }

  /** The size of a write-once file. */
  async size(file: string): Promise<number> {
    const hit = this.#sizes.get(file);
    if (hit !== undefined) return hit;
    const { size } = await stat(file);
    this.#sizes.set(file, size);
    this.#known.set(file, true);
    return size;
  }

  /**
   * `<out>/cache/bodies/<key>.json[.br|.gz]`, written from `load` when absent. Null when it cannot be
   * written (a read-only output directory): the caller sends the body itself.
   */
  async materialize(key: string, encoding: Encoding, load: () => Promise<Buffer>): Promise<string | null> {
    const file = join(this.#dir, `${key}.json${SUFFIX[encoding]}`);
    if (this.#known.get(file)) return file;
    return this.#once.run(file, async () => {
      if (!(await this.exists(file))) {
        // A failure to read the body is the request's (a 500, as in the default mode); one to write it is not.
        const bytes = await load();
        try {
          await writeFileAtomic(file, bytes);
        } catch (error) {
          if (!this.#warned) {
            this.#warned = true;
            const reason = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
            this.#log(`cannot write ${this.#dir} (${reason}); bodies that are no one file are sent by the gateway itself`);
          }
          return null;
        }
      }
      this.#known.set(file, true);
      return file;
    });
  }
}
