/**
 * Where the output's content-addressed objects are kept: append-only pack files with an index
 * (docs/decisions.md, "Storage"). The build writes objects and the gateway, the tool server and
 * `pkgcat verify` read them only through `ObjectBackend`, so another backend (an object store)
 * can replace the packs without touching composition or the surfaces.
 *
 * An object is named by the content hash of its plain bytes (hash.ts); a body served whole may
 * also have precompressed copies, one per encoding (`br`, `gzip`): each is an item of its own.
 * `get` gives back exactly the bytes `put` was given. A commit's state root is an item too, the
 * one found by a name that is not its content: the commit's sha (`getRoot`, `putRoot`).
 *
 *   <out>/objects/<id>.pack   a 32-byte header, then items, each the bytes of an object or copy
 *                             (zstd-compressed when that saves space), appended and never rewritten
 *   <out>/objects/<id>.idx    a 32-byte header, then one 32-byte record per item: hash (16 bytes),
 *                             kind (0 an object, 1 and 2 its br and gzip copies, 3 a state root,
 *                             whose hash is that of its commit's sha), flags (zstd), offset (6 bytes),
 *                             length (4), and the CRC-32 of the 28 bytes before it; a last record of
 *                             kind 0xff seals the pack
 *
 * One writer (a build, which holds the output's lock) appends to a pack of its own: the items of a
 * moment, then their records, so a record never names bytes that are not there. A SIGKILL leaves
 * at most a tail no record names and a torn last record, whose CRC fails: readers stop at it.
 * `put` returns once the record is in the index file, which is when a reader in another process
 * finds the item. Sealing fsyncs the pack and its index, and merging fsyncs the pack it writes
 * before deleting any: what a build wrote survives a power cut once it has ended (what a build cut
 * short wrote may not).
 *
 * Readers keep every record in memory (an open-addressing table over a buffer, 45 to 80 bytes an item)
 * and look again at the folder when a lookup misses: new index files, and the tails of the unsealed
 * ones. Consolidation (`consolidate`, run by the build when it ends) merges the small packs into one
 * (git's geometric repack: each pack, by size, must be at least twice the sum of the smaller ones,
 * or the smaller ones are merged), writes it whole and fsynced, renames it into place, and only
 * then deletes the packs it replaces: a reader holding them open reads on (an unlinked file lives as
 * long as a descriptor on it), and one that finds a pack gone looks at the folder again.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { zstdCompress, zstdCompressSync, zstdDecompressSync } from 'node:zlib';
import { CONTENT_HASH_LENGTH, contentHash } from './hash.ts';
import { syncDirectory } from './atomic.ts';

/** The stored object itself, or one of its precompressed copies (the names of HTTP content codings). */
export type ObjectEncoding = 'identity' | 'br' | 'gzip';

export interface ObjectBackend {
  /** The bytes stored under `hash` (for `encoding`, default the object itself), or null when there are none. */
  get(hash: string, encoding?: ObjectEncoding): Promise<Buffer | null>;
  /**
   * Stores `bytes` under `hash`. Atomic: a reader (in this process or another) finds all of them or
   * nothing, also after a crash or a SIGKILL, and finds them once `put` has returned. Write-once:
   * the bytes under a hash never change, so storing them again is harmless.
   */
  put(hash: string, bytes: Uint8Array, encoding?: ObjectEncoding): Promise<void>;
  /** Whether bytes are stored under `hash` (for `encoding`). */
  has(hash: string, encoding?: ObjectEncoding): Promise<boolean>;
  /** The hash of every stored object (precompressed copies and state roots are not listed), in no particular order. */
  list(): AsyncIterable<string>;
  /** The state root of commit `sha` (layout.ts StateRootFile), or null when it was never built. */
  getRoot(sha: string): Promise<Buffer | null>;
  /** Stores the state root of commit `sha`: atomic and write-once, as `put`. */
  putRoot(sha: string, bytes: Uint8Array): Promise<void>;
  hasRoot(sha: string): Promise<boolean>;
}

/** `<out>/objects`: the pack files and their indexes. */
export const objectsFolder = (out: string): string => join(out, 'objects');

const RECORD = 32;
const PACK_HEADER = header('pkgcat pack 1');
const INDEX_HEADER = header('pkgcat pack index 1');
const ENCODINGS: readonly ObjectEncoding[] = ['identity', 'br', 'gzip'];
/** The kind byte of a state root's key (after the encodings'). */
const STATE_ROOT = 3;
const SEAL = 0xff;
const ZSTD = 1;
/** Items shorter than this are stored as they are: a zstd frame's overhead eats the saving. */
const COMPRESS_FROM_BYTES = 64;
/** Items from this size are compressed in the thread pool, smaller ones on the caller's thread. */
const COMPRESS_IN_POOL_FROM_BYTES = 16 * 1024;
/** Merging reads the items of a pack this many bytes at a time. */
const READ_RUN_BYTES = 8 * 1024 * 1024;
const HEX = /^[0-9a-f]+$/;
const COMMIT_SHA = /^[0-9a-f]{40}$/;
const zstd = promisify(zstdCompress);

function header(text: string): Buffer {
  const bytes = Buffer.alloc(RECORD);
  bytes.write(`${text}\n`, 'latin1');
  return bytes;
}

/** The 17-byte key of an item (its hash's 16 bytes, its kind), or null for a name that is no content hash. */
function keyOf(hash: string, encoding: ObjectEncoding): Buffer | null {
  if (hash.length !== CONTENT_HASH_LENGTH || !HEX.test(hash)) return null;
  return itemKey(hash, ENCODINGS.indexOf(encoding));
}

/**
 * The key of a commit's state root: the content hash of the sha's 40 hex characters, so two
 * commits never share one (their shas' first 16 bytes might), of kind STATE_ROOT, so no object's
 * key is one. Null for a name that is no commit sha.
 */
function rootKeyOf(sha: string): Buffer | null {
  return COMMIT_SHA.test(sha) ? itemKey(contentHash(sha), STATE_ROOT) : null;
}

function itemKey(hash: string, kind: number): Buffer {
  const key = Buffer.alloc(17);
  key.write(hash, 0, 'hex');
  key[16] = kind;
  return key;
}

/** The CRC-32 lookup table (the polynomial of zlib's crc32). */
const CRC_TABLE = Int32Array.from({ length: 256 }, (_, byte) => {
  let crc = byte;
  for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  return crc;
});

/**
 * The CRC-32 of the 28 bytes of a record at `at`. Computed here, not by zlib's crc32: an index of
 * 300,000 records is checked when a process opens the packs, and a native call and a buffer view
 * per record cost five times the table loop.
 */
function recordCrc(bytes: Buffer, at: number): number {
  let crc = -1;
  for (let index = at; index < at + 28; index++) crc = CRC_TABLE[(crc ^ bytes[index]) & 0xff] ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

/** Whether the record at `at` is whole: its CRC-32 matches. */
const validRecord = (bytes: Buffer, at: number): boolean => recordCrc(bytes, at) === bytes.readUInt32LE(at + 28);

/** An index record: the key, flags, where the item sits, and a CRC-32 over those 28 bytes. */
function indexRecord(key: Buffer, flags: number, offset: number, length: number): Buffer {
  const record = Buffer.alloc(RECORD);
  key.copy(record, 0);
  record[17] = flags;
  record.writeUIntLE(offset, 18, 6);
  record.writeUInt32LE(length, 24);
  record.writeUInt32LE(recordCrc(record, 0), 28);
  return record;
}

/** The last record of a pack's index: the pack is whole. */
function sealRecord(): Buffer {
  const seal = Buffer.alloc(RECORD);
  seal[16] = SEAL;
  seal.writeUInt32LE(recordCrc(seal, 0), 28);
  return seal;
}

async function writeFully(handle: FileHandle, bytes: Buffer, position: number): Promise<void> {
  for (let done = 0; done < bytes.length; ) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, position + done);
    done += bytesWritten;
  }
}

async function readFully(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const bytes = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(bytes, done, length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done === length ? bytes : bytes.subarray(0, done);
}

const isAbsent = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/** A new pack's name: time first (so a listing reads oldest first), then randomness (never reused). */
const packName = () => `${Date.now().toString(36).padStart(9, '0')}-${randomBytes(6).toString('hex')}`;

/** Every item's location by key: an open-addressing table of entry numbers over a buffer of 32-byte entries. */
class Locations {
  /** Per entry: key (17 bytes), flags, offset (6), length (4), pack number (2). */
  #entries = Buffer.alloc(RECORD * 1024);
  #count = 0;
  #slots = new Int32Array(2048).fill(-1);

  get size(): number {
    return this.#count;
  }

  #slotOf(key: Buffer, at: number, slots: Int32Array): number {
    const mask = slots.length - 1;
    let slot = (key.readUInt32LE(at) ^ Math.imul(key[at + 16] + 1, 0x9e3779b1)) & mask;
    for (;;) {
      const entry = slots[slot];
      if (entry < 0 || this.#sameKey(entry * RECORD, key, at)) return slot;
      slot = (slot + 1) & mask;
    }
  }

  /** Whether the entry at `from` has the key at `at` in `key` (compared here: a native compare per probe costs more than the loop). */
  #sameKey(from: number, key: Buffer, at: number): boolean {
    const entries = this.#entries;
    for (let index = 0; index < 17; index++) if (entries[from + index] !== key[at + index]) return false;
    return true;
  }

  find(key: Buffer): number {
    return this.#slots[this.#slotOf(key, 0, this.#slots)];
  }

  /** Makes room for `more` items at once (a whole index file read), rather than doubling step by step. */
  reserve(more: number): void {
    const wanted = this.#count + more;
    if (wanted * RECORD > this.#entries.length) {
      let size = this.#entries.length;
      while (size < wanted * RECORD) size *= 2;
      const grown = Buffer.alloc(size);
      this.#entries.copy(grown);
      this.#entries = grown;
    }
    if (wanted * 2 > this.#slots.length) {
      let size = this.#slots.length;
      while (size < wanted * 2) size *= 2;
      this.#rehash(size);
    }
  }

  /** Adds the item of an index record (at `at` in `records`) unless its key is there already. */
  add(records: Buffer, at: number, pack: number): void {
    const slot = this.#slotOf(records, at, this.#slots);
    if (this.#slots[slot] >= 0) return;
    if ((this.#count + 1) * RECORD > this.#entries.length) {
      const grown = Buffer.alloc(this.#entries.length * 2);
      this.#entries.copy(grown);
      this.#entries = grown;
    }
    const entry = this.#count++;
    records.copy(this.#entries, entry * RECORD, at, at + 28);
    this.#entries.writeUInt16LE(pack, entry * RECORD + 28);
    this.#slots[slot] = entry;
    if (this.#count * 2 > this.#slots.length) this.#rehash(this.#slots.length * 2);
  }

  #rehash(size: number): void {
    const slots = new Int32Array(size).fill(-1);
    for (let entry = 0; entry < this.#count; entry++) slots[this.#slotOf(this.#entries, entry * RECORD, slots)] = entry;
    this.#slots = slots;
  }

  entry(entry: number): { key: Buffer; flags: number; offset: number; length: number; pack: number } {
    const at = entry * RECORD;
    return {
      key: this.#entries.subarray(at, at + 17),
      flags: this.#entries[at + 17],
      offset: this.#entries.readUIntLE(at + 18, 6),
      length: this.#entries.readUInt32LE(at + 24),
      pack: this.#entries.readUInt16LE(at + 28),
    };
  }
}

interface Pack {
  readonly name: string;
  readonly number: number;
  /** The pack file, open for reading as long as this process may read it. */
  readonly handle: FileHandle;
  /** Bytes of the index file read so far. */
  consumed: number;
  sealed: boolean;
}

/** What a reader knows of the folder: its packs, and every item's location. */
interface Loaded {
  readonly packs: Map<string, Pack>;
  readonly byNumber: Pack[];
  readonly locations: Locations;
  /** The folder's identity and modification time when last listed, and when that was (ms). */
  folder: { ino: number; mtimeMs: number; listedAt: number } | null;
}

/** A pack found missing while loading: another process consolidated it away; list the folder again. */
class Vanished extends Error {}

interface Batch {
  readonly packStart: number;
  readonly items: Buffer[];
  readonly records: Buffer[];
  readonly done: PromiseWithResolvers<void>;
}

const newBatch = (packStart: number): Batch => ({ packStart, items: [], records: [], done: Promise.withResolvers<void>() });

interface Writer {
  readonly name: string;
  readonly pack: FileHandle;
  readonly index: FileHandle;
  packEnd: number;
  indexEnd: number;
  /** Items and records waiting for the next writes (the items from `packStart` on), and the puts waiting for them. */
  waiting: Batch;
  flushing: boolean;
  failed: unknown;
}

/** Append-only packs with an index, under `<out>/objects/`. */
export class PackObjects implements ObjectBackend {
  readonly folder: string;
  #loaded: Loaded = emptyLoaded();
  #asked = 0;
  #answered = 0;
  #refreshing: Promise<void> | null = null;
  #writer: Promise<Writer> | null = null;
  /** The writer once open, until sealed. */
  #writing: Writer | null = null;

  constructor(out: string) {
    this.folder = objectsFolder(out);
  }

  get(hash: string, encoding: ObjectEncoding = 'identity'): Promise<Buffer | null> {
    return this.#get(keyOf(hash, encoding), `${hash} (${encoding})`);
  }

  getRoot(sha: string): Promise<Buffer | null> {
    return this.#get(rootKeyOf(sha), `state root of ${sha}`);
  }

  async #get(key: Buffer | null, name: string): Promise<Buffer | null> {
    if (!key) return null;
    for (let attempt = 0; ; attempt++) {
      const found = await this.#locate(key);
      if (!found) return null;
      try {
        const stored = await readFully(found.pack.handle, found.offset, found.length);
        if (stored.length !== found.length) throw new Error(`pack ${found.pack.name} ends before item ${name} does`);
        return found.flags & ZSTD ? zstdDecompressSync(stored) : stored;
      } catch (error) {
        // The pack was closed under this read: it was consolidated away, and its items are in another.
        if (attempt > 0 || this.#loaded.packs.get(found.pack.name) === found.pack) throw error;
      }
    }
  }

  async has(hash: string, encoding: ObjectEncoding = 'identity'): Promise<boolean> {
    const key = keyOf(hash, encoding);
    return key !== null && (await this.#locate(key)) !== null;
  }

  async hasRoot(sha: string): Promise<boolean> {
    const key = rootKeyOf(sha);
    return key !== null && (await this.#locate(key)) !== null;
  }

  /**
   * Whether this process knows the item, without looking at the folder again: for a build, which
   * holds the output's lock, so that once it has looked (`look`) only its own writes are added
   * there, and this process knows each of those as written. A look per miss cost 9 s of the 200 s
   * vcpkg's 16,193 commits took to compose.
   */
  knows(hash: string, encoding: ObjectEncoding = 'identity'): boolean {
    const key = keyOf(hash, encoding);
    return key !== null && this.#loaded.locations.find(key) >= 0;
  }

  knowsRoot(sha: string): boolean {
    const key = rootKeyOf(sha);
    return key !== null && this.#loaded.locations.find(key) >= 0;
  }

  /** Looks at the folder for what other processes wrote. */
  look(): Promise<void> {
    return this.#refreshed();
  }

  async *list(): AsyncIterable<string> {
    await this.#refreshed();
    const { locations } = this.#loaded;
    for (let entry = 0; entry < locations.size; entry++) {
      const { key } = locations.entry(entry);
      if (key[16] === 0) yield key.toString('hex', 0, 16);
    }
  }

  async put(hash: string, bytes: Uint8Array, encoding: ObjectEncoding = 'identity'): Promise<void> {
    const key = keyOf(hash, encoding);
    if (!key) throw new Error(`"${hash}" is not a content hash (${CONTENT_HASH_LENGTH} hex characters)`);
    // The precompressed copies are compressed already.
    return this.#put(key, bytes, encoding === 'identity');
  }

  async putRoot(sha: string, bytes: Uint8Array): Promise<void> {
    const key = rootKeyOf(sha);
    if (!key) throw new Error(`"${sha}" is not a commit sha (40 hex characters)`);
    return this.#put(key, bytes, true);
  }

  async #put(key: Buffer, bytes: Uint8Array, compress: boolean): Promise<void> {
    let stored = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let flags = 0;
    // A small item is compressed on this thread: a trip to the thread pool costs more than compressing a few KB.
    if (compress && stored.length >= COMPRESS_FROM_BYTES) {
      const compressed = stored.length < COMPRESS_IN_POOL_FROM_BYTES ? zstdCompressSync(stored) : await zstd(stored);
      if (compressed.length < stored.length - stored.length / 16) [stored, flags] = [compressed, ZSTD];
    }
    const writer = await this.#openWriter();
    if (writer.failed) throw writer.failed;
    return this.#append(writer, stored, (offset) => indexRecord(key, flags, offset, stored.length));
  }

  /**
   * Seals this process's pack if it wrote one, and closes every file this backend holds open (a
   * later read opens them again).
   */
  async close(): Promise<void> {
    await this.seal();
    const loaded = this.#loaded;
    this.#loaded = emptyLoaded();
    await Promise.all([...loaded.packs.values()].map((pack) => pack.handle.close().catch(() => {})));
  }

  /** Ends this process's pack: its index says so, and readers stop looking for more of it. */
  async seal(): Promise<void> {
    if (this.#writer) {
      const writer = await this.#writer;
      this.#writer = null;
      this.#writing = null;
      if (!writer.failed) {
        // On disk before the seal says the pack is whole: what a build wrote survives a power cut once it ends.
        await writer.pack.sync();
        const seal = sealRecord();
        await this.#append(writer, null, () => seal);
        await writer.index.sync();
      }
      await writer.index.close();
      // A reader that listed the folder while the writer was opening loaded the pack through a
      // handle of its own: the writer's is then not among the loaded packs, and is closed here.
      if (this.#loaded.packs.get(writer.name)?.handle !== writer.pack) await writer.pack.close();
    }
  }

  /**
   * Merges the smaller packs into one when their sizes are no longer a geometric progression of
   * ratio 2 (git's `repack --geometric=2`), so the packs stay few (about log2 of the total over the
   * smallest) however many builds add one. Every item of a merged pack is in the new pack (or in a
   * pack kept) before the merged ones are deleted. Returns the number of packs merged (0: none).
   */
  async consolidate(): Promise<number> {
    await this.#refreshed();
    const loaded = this.#loaded;
    await this.#removeLeftovers(loaded);
    const writing = this.#writer ? (await this.#writer).name : null;
    const sized = await Promise.all(
      [...loaded.packs.values()].filter((pack) => pack.name !== writing).map(async (pack) => ({ pack, size: (await pack.handle.stat()).size })),
    );
    sized.sort((a, b) => a.size - b.size);
    const merged = sized.slice(0, geometricSplit(sized.map(({ size }) => size))).map(({ pack }) => pack);
    if (merged.length < 2) return 0;
    const mergedNumbers = new Set(merged.map((pack) => pack.number));
    const items: number[] = [];
    for (let entry = 0; entry < loaded.locations.size; entry++) if (mergedNumbers.has(loaded.locations.entry(entry).pack)) items.push(entry);
    const name = packName();
    const packFile = join(this.folder, `${name}.pack`);
    const indexFile = join(this.folder, `${name}.idx`);
    const records: Buffer[] = [INDEX_HEADER];
    const handle = await open(`${packFile}.tmp`, 'wx');
    try {
      let position = 0;
      const buffered: Buffer[] = [PACK_HEADER];
      let bufferedBytes = RECORD;
      // In pack order, read a few MB at a time (an item at a time would be a read per item).
      const sorted = items.map((entry) => loaded.locations.entry(entry)).sort((a, b) => a.pack - b.pack || a.offset - b.offset);
      let run: { pack: number; start: number; bytes: Buffer } | null = null;
      for (const [at, item] of sorted.entries()) {
        if (!run || run.pack !== item.pack || item.offset + item.length > run.start + run.bytes.length) {
          let end = item.offset + item.length;
          for (let next = at + 1; next < sorted.length && sorted[next].pack === item.pack; next++) {
            const last = sorted[next].offset + sorted[next].length;
            if (last - item.offset > READ_RUN_BYTES) break;
            end = Math.max(end, last);
          }
          const pack = loaded.byNumber[item.pack];
          const bytes = await readFully(pack.handle, item.offset, end - item.offset);
          if (bytes.length !== end - item.offset) throw new Error(`pack ${pack.name} ends before one of its items does`);
          run = { pack: item.pack, start: item.offset, bytes };
        }
        const bytes = run.bytes.subarray(item.offset - run.start, item.offset - run.start + item.length);
        records.push(indexRecord(Buffer.from(item.key), item.flags, position + bufferedBytes, item.length));
        buffered.push(bytes);
        bufferedBytes += bytes.length;
        if (bufferedBytes >= 4 * 1024 * 1024) {
          await writeFully(handle, Buffer.concat(buffered), position);
          position += bufferedBytes;
          buffered.length = 0;
          bufferedBytes = 0;
        }
      }
      await writeFully(handle, Buffer.concat(buffered), position);
      await handle.sync();
    } finally {
      await handle.close();
    }
    records.push(sealRecord());
    const index = await open(`${indexFile}.tmp`, 'wx');
    try {
      await writeFully(index, Buffer.concat(records), 0);
      await index.sync();
    } finally {
      await index.close();
    }
    // The pack before its index: a reader that finds the index finds the pack.
    await rename(`${packFile}.tmp`, packFile);
    await rename(`${indexFile}.tmp`, indexFile);
    await syncDirectory(this.folder);
    // The index before its pack: a reader that finds the index finds the pack, or lists the folder again.
    for (const pack of merged) {
      await unlink(join(this.folder, `${pack.name}.idx`));
      await unlink(join(this.folder, `${pack.name}.pack`));
    }
    await this.#refreshed();
    return merged.length;
  }

  /** What killed writers and consolidations leave: temporary files, and a pack whose index was never created. */
  async #removeLeftovers(loaded: Loaded): Promise<void> {
    const writing = this.#writer ? (await this.#writer).name : null;
    for (const file of await readdir(this.folder).catch(() => [] as string[])) {
      const pack = /^(.+)\.pack$/.exec(file)?.[1];
      const leftover = file.endsWith('.tmp') || (pack !== undefined && pack !== writing && !loaded.packs.has(pack) && !(await exists(join(this.folder, `${pack}.idx`))));
      if (leftover) await unlink(join(this.folder, file)).catch(() => {});
    }
  }

  /** The item under `key`, looking at the folder again when this process does not know it. */
  async #locate(key: Buffer): Promise<{ pack: Pack; flags: number; offset: number; length: number } | null> {
    let entry = this.#loaded.locations.find(key);
    if (entry < 0) {
      await this.#refreshed();
      entry = this.#loaded.locations.find(key);
      if (entry < 0) return null;
    }
    const { pack, flags, offset, length } = this.#loaded.locations.entry(entry);
    return { pack: this.#loaded.byNumber[pack], flags, offset, length };
  }

  /** Resolves once a look at the folder that started after this call has ended. */
  async #refreshed(): Promise<void> {
    const wanted = ++this.#asked;
    while (this.#answered < wanted) {
      if (!this.#refreshing) {
        const covers = this.#asked;
        this.#refreshing = this.#refresh()
          .then(() => void (this.#answered = Math.max(this.#answered, covers)))
          .finally(() => (this.#refreshing = null));
      }
      await this.#refreshing;
    }
  }

  async #refresh(): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#look(attempt > 0);
      } catch (error) {
        if (!(error instanceof Vanished) || attempt >= 20) throw error;
      }
    }
  }

  /**
   * New index files and the new records of unsealed ones. When a pack is gone (consolidated by
   * another process), everything is read again from the packs there are now, keeping the ones
   * still open, and the gone ones are closed once their reads in flight have ended.
   */
  async #look(relist: boolean): Promise<void> {
    const loaded = this.#loaded;
    const folder = await stat(this.folder).catch((error: unknown) => {
      if (isAbsent(error)) return null;
      throw error;
    });
    if (!folder) {
      if (loaded.packs.size > 0) this.#replace(emptyLoaded(), loaded, new Set());
      return;
    }
    const known = loaded.folder;
    // A folder's modification time moves when a file is created, renamed or deleted in it; it is
    // only trusted once the clock has moved well past it (file times have a coarse grain).
    const unchanged = !relist && known !== null && known.ino === folder.ino && known.mtimeMs === folder.mtimeMs && known.listedAt - folder.mtimeMs > 1000;
    let names: string[];
    let listed = known;
    if (unchanged) names = [...loaded.packs.keys()];
    else {
      const listedAt = Date.now();
      names = (await readdir(this.folder)).flatMap((file) => (file.endsWith('.idx') ? [file.slice(0, -4)] : []));
      listed = { ino: folder.ino, mtimeMs: folder.mtimeMs, listedAt };
    }
    const present = new Set(names);
    const gone = [...loaded.packs.values()].filter((pack) => !present.has(pack.name));
    if (gone.length > 0 || (known !== null && known.ino !== folder.ino)) {
      const fresh = emptyLoaded();
      fresh.folder = listed;
      const reused = new Set([...loaded.packs.values()].map((pack) => pack.handle));
      try {
        for (const name of names.sort()) await this.#loadPack(fresh, name, loaded.packs.get(name)?.handle);
      } catch (error) {
        for (const pack of fresh.packs.values()) if (!reused.has(pack.handle)) void pack.handle.close().catch(() => {});
        throw error;
      }
      this.#replace(fresh, loaded, new Set([...fresh.packs.values()].map((pack) => pack.handle)));
      return;
    }
    const writing = this.#writing;
    for (const name of names.sort()) {
      const pack = loaded.packs.get(name);
      if (!pack) await this.#loadPack(loaded, name);
      // This process's own pack, every record of it known already (#absorb): nothing to read.
      else if (!pack.sealed && !(writing?.name === name && pack.consumed === writing.indexEnd)) await this.#readIndex(loaded, pack);
    }
    loaded.folder = listed;
  }

  /** Swaps what this reader knows, and closes the packs of `old` not in `kept` (FileHandle.close waits for the reads in flight on them). */
  #replace(loaded: Loaded, old: Loaded, kept: Set<FileHandle>): void {
    this.#loaded = loaded;
    // The writer's own pack stays open whatever a reload found: it is still being written.
    if (this.#writing) kept.add(this.#writing.pack);
    for (const pack of old.packs.values()) if (!kept.has(pack.handle)) void pack.handle.close().catch(() => {});
  }

  async #loadPack(loaded: Loaded, name: string, handle?: FileHandle): Promise<void> {
    let opened = handle;
    if (!opened) {
      try {
        opened = await open(join(this.folder, `${name}.pack`), 'r');
      } catch (error) {
        if (isAbsent(error)) throw new Vanished(name);
        throw error;
      }
    }
    const pack: Pack = { name, number: loaded.byNumber.length, handle: opened, consumed: 0, sealed: false };
    loaded.packs.set(name, pack);
    loaded.byNumber.push(pack);
    await this.#readIndex(loaded, pack);
  }

  /** Reads the records of a pack's index from where the last read stopped, up to the first torn or missing one. */
  async #readIndex(loaded: Loaded, pack: Pack): Promise<void> {
    let bytes: Buffer;
    try {
      const handle = await open(join(this.folder, `${pack.name}.idx`), 'r');
      try {
        const { size } = await handle.stat();
        bytes = size > pack.consumed ? await readFully(handle, pack.consumed, size - pack.consumed) : Buffer.alloc(0);
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (isAbsent(error)) throw new Vanished(pack.name);
      throw error;
    }
    let at = 0;
    if (pack.consumed === 0) {
      if (bytes.length < RECORD) return;
      if (!bytes.subarray(0, RECORD).equals(INDEX_HEADER)) throw new Error(`${join(this.folder, `${pack.name}.idx`)} is not a pkgcat pack index`);
      at = RECORD;
    }
    loaded.locations.reserve(Math.floor((bytes.length - at) / RECORD));
    for (; at + RECORD <= bytes.length && validRecord(bytes, at); at += RECORD) {
      if (bytes[at + 16] === SEAL) {
        pack.sealed = true;
        at += RECORD;
        break;
      }
      loaded.locations.add(bytes, at, pack.number);
    }
    pack.consumed += at;
  }

  #openWriter(): Promise<Writer> {
    this.#writer ??= (async () => {
      await mkdir(this.folder, { recursive: true });
      const name = packName();
      const pack = await open(join(this.folder, `${name}.pack`), 'wx+');
      await writeFully(pack, PACK_HEADER, 0);
      const index = await open(join(this.folder, `${name}.idx`), 'wx');
      await writeFully(index, INDEX_HEADER, 0);
      // The reader side reads this pack through the writer's handle, and takes its records as they are written.
      const loaded = this.#loaded;
      if (!loaded.packs.has(name)) {
        const own: Pack = { name, number: loaded.byNumber.length, handle: pack, consumed: RECORD, sealed: false };
        loaded.packs.set(name, own);
        loaded.byNumber.push(own);
      }
      this.#writing = { name, pack, index, packEnd: RECORD, indexEnd: RECORD, waiting: newBatch(RECORD), flushing: false, failed: null };
      return this.#writing;
    })();
    // A failure (the folder cannot be made) is the put's, and the next put tries again.
    this.#writer.catch(() => (this.#writer = null));
    return this.#writer;
  }

  /**
   * Appends an item (its bytes at the pack's end) and its record with the others of the moment:
   * one write of the items, then one of their records, which name only bytes written. Resolves once
   * the record is in the index file.
   */
  #append(writer: Writer, item: Buffer | null, record: (offset: number) => Buffer): Promise<void> {
    const batch = writer.waiting;
    batch.records.push(record(writer.packEnd));
    if (item) {
      batch.items.push(item);
      writer.packEnd += item.length;
    }
    if (!writer.flushing) void this.#flush(writer);
    return batch.done.promise;
  }

  async #flush(writer: Writer): Promise<void> {
    writer.flushing = true;
    while (writer.waiting.records.length > 0) {
      const batch = writer.waiting;
      writer.waiting = newBatch(writer.packEnd);
      const records = Buffer.concat(batch.records);
      try {
        if (writer.failed) throw writer.failed;
        if (batch.items.length > 0) await writeFully(writer.pack, Buffer.concat(batch.items), batch.packStart);
        await writeFully(writer.index, records, writer.indexEnd);
        writer.indexEnd += records.length;
        this.#absorb(writer, records);
        batch.done.resolve();
      } catch (error) {
        // A record half written would misplace every later one: this writer stops.
        writer.failed ??= error;
        batch.done.reject(error);
      }
    }
    writer.flushing = false;
  }

  /** This process's own records, known without reading them back. */
  #absorb(writer: Writer, records: Buffer): void {
    const pack = this.#loaded.packs.get(writer.name);
    // Not known to this reader, or known from a read of the index file: the next look at the folder reads the records.
    if (!pack || pack.consumed !== writer.indexEnd - records.length) return;
    for (let at = 0; at < records.length; at += RECORD) {
      if (records[at + 16] === SEAL) pack.sealed = true;
      else this.#loaded.locations.add(records, at, pack.number);
    }
    pack.consumed = writer.indexEnd;
  }
}

function emptyLoaded(): Loaded {
  return { packs: new Map(), byNumber: [], locations: new Locations(), folder: null };
}

const exists = (file: string) => stat(file).then(() => true, () => false);


/**
 * How many of the packs (sizes ascending) to merge so that the rest, with the merged one, is a
 * geometric progression of ratio 2 (git's `split_pack_geometry`): 0 or 1 means none.
 */
export function geometricSplit(sizes: readonly number[]): number {
  const factor = 2;
  let split = Math.max(0, sizes.length - 1);
  while (split > 0 && sizes[split] >= factor * sizes[split - 1]) split -= 1;
  // The larger of the pair that breaks the progression cannot stay in it either.
  if (split > 0) split += 1;
  let total = sizes.slice(0, split).reduce((sum, size) => sum + size, 0);
  while (split > 0 && split < sizes.length && sizes[split] < factor * total) total += sizes[split++];
  return split;
}

/** The object backend of an output directory, one per directory in a process (it holds the index in memory). */
const opened = new Map<string, PackObjects>();

export function openObjects(out: string): PackObjects {
  let objects = opened.get(out);
  if (!objects) opened.set(out, (objects = new PackObjects(out)));
  return objects;
}

/** The bytes of a stored object; throws when it is missing. */
export async function readStoredObject(objects: ObjectBackend, hash: string): Promise<Buffer> {
  const stored = await objects.get(hash);
  if (!stored) throw new Error(`object ${hash} is missing from the object store`);
  return stored;
}
