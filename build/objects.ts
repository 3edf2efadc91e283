/**
 * The content-addressed object store: every body or chunk is written once, under the content
 * hash of its bytes (src/store/hash.ts), into the output's packs (src/store/objects.ts), which
 * write atomically, so a killed build never leaves a partial object where a reader could find it.
 */
import { compress } from '../src/store/compress.ts';
import { contentHash } from '../src/store/hash.ts';
import { openObjects, readStoredObject, type PackObjects } from '../src/store/objects.ts';
import { Semaphore } from '../src/concurrency.ts';

/**
 * Bodies served whole at or above this size get `br` and `gzip` copies. Below it the saving
 * is a few hundred bytes, while compressing on request costs less than a read.
 */
export const PRECOMPRESS_MIN_BYTES = 4096;

const WRITES_AT_A_TIME = 8;

/**
 * Bytes put and not yet written, past which put() waits before it returns. Composing and
 * rendering run ahead of the thread pool's compression: a popular package's commit renders
 * 38,000 documents at 20,000 packages, and their bodies once waited in memory all at once
 * (1.6 GB). Waiting here keeps the bodies in flight to about this much, for every caller.
 */
export const QUEUED_BYTES_LIMIT = 32 * 1024 * 1024;

/**
 * Objects are written in the background: put() returns the hash as soon as the bytes in flight
 * are under QUEUED_BYTES_LIMIT, and the build goes on composing while the thread pool writes (and
 * compresses) them. `settled()` resolves when what was put so far is in the packs, where another
 * process finds it; `putRoot` awaits it before writing a state root that names those objects, so
 * a state on disk never names a missing object. `close()` ends the build's pack and merges the
 * small ones.
 */
export class ObjectStore {
  private readonly objects: PackObjects;
  /**
   * The objects put and not yet in the packs, with their byte length: a second put of the same
   * bytes meanwhile writes nothing. Once written, the packs' index knows them (kept for every
   * object a build ever wrote, this map held a string per object: 250,000 at vcpkg-16193).
   */
  readonly #inFlight = new Map<string, number>();
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
  /** Bytes put and not written yet, and what the callers waiting for them to go under the limit await (resolved once they do). */
  #queuedBytes = 0;
  #room: PromiseWithResolvers<void> | null = null;
  /** The look at the packs' folder this build makes before its first lookup; the build holds the output's lock, so no other writes follow. */
  #looked: Promise<void> | null = null;

  constructor(out: string) {
    // The process's shared reader (openObjects): publishing and the release's checks read through
    // it too, so the packs' index is read once, and the items this build writes are found as written.
    this.objects = openObjects(out);
  }

  /** Stores bytes once; `served` bodies also get precompressed copies. Returns the hash. */
  async put(data: string | Buffer, options: { served?: boolean } = {}): Promise<string> {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    const hash = contentHash(bytes);
    if (this.#inFlight.has(hash)) return hash;
    this.#inFlight.set(hash, bytes.length);
    this.#queuedBytes += bytes.length;
    const write = (async () => {
      try {
        // An earlier build's object stays as it is: the bytes under a hash never change.
        if (await this.#stored(hash)) return;
        this.written += 1;
        this.bytesWritten += bytes.length;
        await this.#writing.run(() => this.write(hash, bytes, options.served === true));
      } finally {
        this.#inFlight.delete(hash);
        this.#queuedBytes -= bytes.length;
        if (this.#room && this.#queuedBytes <= QUEUED_BYTES_LIMIT) {
          this.#room.resolve();
          this.#room = null;
        }
      }
    })();
    // A failure is reported by settled(), not as an unhandled rejection while the build composes on.
    write.catch(() => {});
    this.pending.push(write);
    while (this.#queuedBytes > QUEUED_BYTES_LIMIT) await (this.#room ??= Promise.withResolvers()).promise;
    return hash;
  }

  /** A served body large enough gets its precompressed copies; the packs compress every item at rest. */
  private async write(hash: string, bytes: Buffer, served: boolean): Promise<void> {
    if (served && bytes.length >= PRECOMPRESS_MIN_BYTES) {
      const [br, gz] = await Promise.all([compress(bytes, 'br'), compress(bytes, 'gzip')]);
      await Promise.all([this.objects.put(hash, br, 'br'), this.objects.put(hash, gz, 'gzip')]);
    }
    // The object last: its precompressed copies exist whenever it does.
    await this.objects.put(hash, bytes);
  }

  /** Resolves when every object put so far is in the packs, for every reader (rejects if a write failed). */
  async settled(): Promise<void> {
    const pending = this.pending;
    this.pending = [];
    this.#settledSoFar = Promise.all([this.#settledSoFar, ...pending]);
    await this.#settledSoFar;
  }

  /**
   * Stores the state root of commit `sha` once every object put so far is in the packs: a state
   * on disk never names a missing object.
   */
  async putRoot(sha: string, root: string): Promise<void> {
    await this.settled();
    await this.objects.putRoot(sha, Buffer.from(root, 'utf8'));
  }

  /** Whether commit `sha` was built: its state root is stored. */
  async hasRoot(sha: string): Promise<boolean> {
    await this.#look();
    return this.objects.knowsRoot(sha);
  }

  /** Whether the packs hold the object (PackObjects.knows). */
  async #stored(hash: string): Promise<boolean> {
    await this.#look();
    return this.objects.knows(hash);
  }

  /** The folder is looked at once, at the build's first lookup. */
  #look(): Promise<void> {
    return (this.#looked ??= this.objects.look());
  }

  /**
   * Waits for the writes, ends this build's pack and merges the small packs. `keepIndex`: the
   * process builds again soon (build/build.ts Builder), so the packs' index stays in memory and the
   * next build does not read it back (it looks at the folder for what others wrote meanwhile).
   */
  async close({ keepIndex = false } = {}): Promise<void> {
    await this.settled();
    await this.objects.seal();
    await this.objects.consolidate();
    if (!keepIndex) await this.objects.close();
  }

  /** The bytes of an object this build or an earlier one put (after its write, when it is in flight). */
  async get(hash: string): Promise<Buffer> {
    if (this.#inFlight.has(hash) || !this.objects.knows(hash)) await this.settled();
    return readStoredObject(this.objects, hash);
  }

  /** The byte length of a stored object. */
  async size(hash: string): Promise<number> {
    return this.#inFlight.get(hash) ?? (await readStoredObject(this.objects, hash)).length;
  }
}
