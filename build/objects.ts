/**
 * The content-addressed object store: every body or chunk is written once, under the content
 * hash of its bytes (src/store/hash.ts), through the output's object backend (src/store/objects.ts),
 * which writes atomically, so a killed build never leaves a partial object where a reader could find it.
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip as gzipCallback } from 'node:zlib';
import { contentHash } from '../src/store/hash.ts';
import { compressAtRest } from '../src/store/object-codec.ts';
import { openObjects, readStoredObject, type ObjectBackend } from '../src/store/objects.ts';
import { Semaphore } from '../src/concurrency.ts';

/**
 * Bodies served whole at or above this size get `.br` and `.gz` siblings. Below it the saving
 * is a few hundred bytes, while every sibling costs a file (and a disk block) per body.
 */
export const PRECOMPRESS_MIN_BYTES = 4096;

const WRITES_AT_A_TIME = 8;

const BROTLI_OPTIONS = (length: number) => ({ params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: length } });
const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzipCallback);

/**
 * Objects are written in the background: put() returns the hash at once and the build goes on
 * composing while the thread pool writes (and compresses) the bytes. `settled()` resolves when
 * what was put so far is on disk; the build awaits it before writing a state root that names
 * those objects, so a state on disk never names a missing object.
 */
export class ObjectStore {
  private readonly objects: ObjectBackend;
  /** Byte length of every object this build wrote or looked at. */
  private readonly known = new Map<string, number>();
  private pending: Promise<void>[] = [];
  /**
   * Writes at a time. A commit that upgrades a popular package puts thousands of bodies at once;
   * each compression holds native buffers of megabytes, so they take turns (the thread pool runs
   * four at a time anyway).
   */
  readonly #writing = new Semaphore(WRITES_AT_A_TIME);
  /** Objects written by this build, and their bytes as given (for the benchmark's figures). */
  written = 0;
  bytesWritten = 0;
  /** Every write put before the last call of settled(): a second caller waits for the first one's writes too. */
  #settledSoFar: Promise<unknown> = Promise.resolve();

  constructor(out: string) {
    this.objects = openObjects(out);
  }

  /** Stores bytes once; `served` bodies also get precompressed siblings. Returns the hash. */
  async put(data: string | Buffer, options: { served?: boolean } = {}): Promise<string> {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    const hash = contentHash(bytes);
    if (this.known.has(hash)) return hash;
    this.known.set(hash, bytes.length);
    const write = (async () => {
      // An earlier build's object stays as it is: the bytes under a hash never change.
      if (await this.objects.has(hash)) return;
      this.written += 1;
      this.bytesWritten += bytes.length;
      await this.#writing.run(() => this.write(hash, bytes, options.served === true));
    })();
    // A failure is reported by settled(), not as an unhandled rejection while the build composes on.
    write.catch(() => {});
    this.pending.push(write);
    return hash;
  }

  /** A served body is stored plain (with precompressed copies when large); a spliced piece compressed (object-codec.ts). */
  private async write(hash: string, bytes: Buffer, served: boolean): Promise<void> {
    if (served && bytes.length >= PRECOMPRESS_MIN_BYTES) {
      const [br, gz] = await Promise.all([brotliAsync(bytes, BROTLI_OPTIONS(bytes.length)), gzipAsync(bytes, { level: 9 })]);
      await Promise.all([this.objects.put(hash, br, 'br'), this.objects.put(hash, gz, 'gzip')]);
    }
    // The object last: its precompressed copies exist whenever it does.
    await this.objects.put(hash, served ? bytes : await compressAtRest(bytes));
  }

  /** Resolves when every object put so far is on disk (rejects if a write failed). */
  async settled(): Promise<void> {
    const pending = this.pending;
    this.pending = [];
    this.#settledSoFar = Promise.all([this.#settledSoFar, ...pending]);
    await this.#settledSoFar;
  }

  /** The byte length of a stored object. */
  async size(hash: string): Promise<number> {
    const known = this.known.get(hash);
    if (known !== undefined) return known;
    // A piece of an earlier build may be stored compressed: its length is that of its plain bytes.
    const { length } = await readStoredObject(this.objects, hash);
    this.known.set(hash, length);
    return length;
  }
}
