/**
 * What the build's output holds on disk, by kind, and what candidate storage layouts would make of
 * the same content (issue 16, "the store grows with the change"):
 *
 *   npm run bench -- store --corpus vcpkg-16193 --corpus-dir <dir> [--store-out <built output>] [--runs 3]
 *
 * Without --store-out the corpus is cloned and built first (the build suite measures that build).
 *
 * 1. Inventory: files, bytes and allocated bytes of every kind: objects by what the state roots
 *    name them as (served bodies deps.json and versions.json, record/card/transitive/index chunks,
 *    advisory maps), their `.br`/`.gz` siblings, state roots, diffs, checkpoints, releases.
 * 2. Candidates, over the same keyed blobs (every object as stored today, every state root, every
 *    diff; no sibling):
 *    (a) append-only pack files with one index per pack (hash -> offset, length; git's and restic's packs);
 *    (b) SQLite through node:sqlite (one table key -> bytes, WAL);
 *    (c) zstd at rest for every blob, plain and with a dictionary (trained by the zstd command
 *        line when there is one, and a raw-content dictionary of sample bodies, which Node can use
 *        without training), on a sample per kind;
 *    (d) fewer stored encodings: what the siblings cost, and what compressing a served body on
 *        request costs instead.
 *    Writes and lookups are timed `--runs` times (the page cache is warm: the files were just
 *    written; a cold read is the disk's). Lookups read random keys over all of them.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { brotliCompressSync, constants, gzipSync, zstdCompressSync, zstdDecompressSync } from 'node:zlib';
import { contentHash } from '../src/store/hash.ts';
import { paths, type StateRootFile } from '../src/store/layout.ts';
import { decodeAtRest } from '../src/store/object-codec.ts';
import { checkChild, count, machine, median, mib, projectRevision, runChild, table, writeResults } from './lib.ts';
import type { Suite } from './suite.ts';

const CORPORA = ['vcpkg-300', 'vcpkg-5000', 'vcpkg-16193'];
/** What the suite measures besides the inventory (`--store-parts`). */
const PARTS = ['candidates', 'compression', 'encodings'];
/** A pack is closed once it passes this many bytes (restic's packs are 16 MiB by default, git's unbounded). */
const PACK_BYTES = 64 * 1024 * 1024;
/** An entry of the merged index: key (16 bytes), pack (u16), offset (u32), length (u32). */
const MULTI_ENTRY = 26;
/** Random lookups per run. */
const LOOKUPS = 20_000;
/** Objects per kind whose compression is measured. */
const COMPRESSION_SAMPLE = 3_000;
/** Plain bytes per kind whose compression is measured, at most. */
const SAMPLE_BYTES = 24 * 1024 * 1024;
/** Objects per kind a dictionary is trained on (a different sample). */
const TRAINING_SAMPLE = 2_000;
/** zstd's default dictionary size. */
const DICTIONARY_BYTES = 112_640;
/** Served bodies compressed on request, for the cost of dropping the siblings. */
const ON_REQUEST_SAMPLE = 400;

type Kind = 'deps.json' | 'versions.json' | 'record chunk' | 'card chunk' | 'transitive chunk' | 'index chunk' | 'advisory map' | 'other object';

interface Figures {
  files: number;
  bytes: number;
  allocated: number;
}

/** A keyed blob of the candidates: a content hash, a state's sha, or a diff's pair. */
interface Blob {
  key: Buffer;
  file: string;
  kind: string;
}

const zero = (): Figures => ({ files: 0, bytes: 0, allocated: 0 });
const add = (into: Figures, file: string) => {
  const stat = lstatSync(file);
  into.files += 1;
  into.bytes += stat.size;
  into.allocated += stat.blocks * 512;
};

/** A deterministic shuffle (mulberry32), so two runs sample the same keys. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other], copy[index]];
  }
  return copy;
}

function percentiles(values: number[]): { p50: number; p99: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { p50: at(0.5), p99: at(0.99) };
}
const us = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;

function walkFiles(dir: string, visit: (file: string) => void): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walkFiles(path, visit);
    else if (entry.isFile()) visit(path);
  }
}

/** The kind of every object the state roots name, and of the served bodies their index chunks name. */
function objectKinds(out: string, log: (line: string) => void): Map<string, Kind> {
  const kinds = new Map<string, Kind>();
  const indexChunks = new Set<string>();
  const states = readdirSync(paths.states(out)).filter((name) => name.endsWith('.json'));
  for (const name of states) {
    const root = JSON.parse(decodeAtRest(readFileSync(join(paths.states(out), name))).toString('utf8')) as StateRootFile;
    for (const segment of root.listing.segments) if (typeof segment !== 'string') kinds.set(segment.object, 'card chunk');
    for (const chunk of root.records) kinds.set(chunk.object, 'record chunk');
    for (const chunk of root.transitive) kinds.set(chunk.object, 'transitive chunk');
    for (const chunk of root.packages) indexChunks.add(chunk.object);
    kinds.set(root.full.advisories, 'advisory map');
  }
  for (const hash of indexChunks) {
    kinds.set(hash, 'index chunk');
    const entries = JSON.parse(decodeAtRest(readFileSync(paths.object(out, hash))).toString('utf8')) as Record<string, { deps?: string; versions?: string }>;
    for (const entry of Object.values(entries)) {
      if (entry.deps) kinds.set(entry.deps, 'deps.json');
      if (entry.versions) kinds.set(entry.versions, 'versions.json');
    }
  }
  log(`store: ${count(states.length)} state roots name ${count(kinds.size)} objects (${count(indexChunks.size)} index chunks)`);
  return kinds;
}

interface Inventory {
  byKind: Record<string, Figures>;
  directories: Figures;
  total: Figures;
  blobs: Blob[];
}

/** Every file of the output by kind; the blobs a candidate store would hold (objects as stored, states, diffs). */
function inventory(out: string, kinds: Map<string, Kind>): Inventory {
  const byKind: Record<string, Figures> = {};
  const figures = (kind: string) => (byKind[kind] ??= zero());
  const blobs: Blob[] = [];
  const directories = zero();
  const total = zero();
  const countDirectories = (dir: string) => {
    const stat = lstatSync(dir);
    directories.files += 1;
    directories.allocated += stat.blocks * 512;
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) countDirectories(join(dir, entry.name));
  };
  countDirectories(out);
  walkFiles(paths.objects(out), (file) => {
    const match = /([0-9a-f]{2})[\\/]([0-9a-f]{30})(\.br|\.gz)?$/.exec(file);
    if (!match) return add(figures('other'), file);
    const hash = match[1] + match[2];
    const kind = kinds.get(hash) ?? 'other object';
    if (match[3]) return add(figures(`${kind} ${match[3]} sibling`), file);
    add(figures(kind), file);
    blobs.push({ key: Buffer.from(hash, 'hex'), file, kind });
  });
  walkFiles(paths.states(out), (file) => {
    add(figures('state root'), file);
    blobs.push({ key: Buffer.from(contentHash(`state:${file}`), 'hex'), file, kind: 'state root' });
  });
  walkFiles(join(out, 'diffs'), (file) => {
    add(figures('diff'), file);
    blobs.push({ key: Buffer.from(contentHash(`diff:${file}`), 'hex'), file, kind: 'diff' });
  });
  walkFiles(join(paths.buildPrivate(out), 'checkpoints'), (file) => add(figures('checkpoint'), file));
  walkFiles(paths.releases(out), (file) => add(figures(/[\\/]public[\\/]/.test(file) ? 'release public/' : 'release other'), file));
  walkFiles(paths.cache(out), (file) => add(figures('gateway cache'), file));
  for (const entry of readdirSync(out)) {
    if (!['objects', 'states', 'diffs', 'releases', 'cache', 'build'].includes(entry) && lstatSync(join(out, entry)).isFile()) add(figures('other'), join(out, entry));
  }
  walkFiles(paths.buildPrivate(out), (file) => {
    if (!file.includes(`${join(paths.buildPrivate(out), 'checkpoints')}`)) add(figures('build other'), file);
  });
  for (const value of Object.values(byKind)) {
    total.files += value.files;
    total.bytes += value.bytes;
    total.allocated += value.allocated;
  }
  total.allocated += directories.allocated;
  return { byKind, directories, total, blobs };
}

interface Timing {
  seconds: number;
  mbPerSecond: number;
  blobsPerSecond: number;
}

interface CandidateRun {
  write: Timing;
  lookup: { p50Ms: number; p99Ms: number };
  openMs: number;
}

/** Reads the blobs' bytes in batches, so the write timing counts only the store's writes. */
function* batches(blobs: Blob[], batchBytes = 64 * 1024 * 1024): Generator<{ blob: Blob; bytes: Buffer }[]> {
  let batch: { blob: Blob; bytes: Buffer }[] = [];
  let size = 0;
  for (const blob of blobs) {
    const bytes = readFileSync(blob.file);
    batch.push({ blob, bytes });
    size += bytes.length;
    if (size >= batchBytes) {
      yield batch;
      batch = [];
      size = 0;
    }
  }
  if (batch.length) yield batch;
}

const timing = (ms: number, bytes: number, blobs: number): Timing => ({
  seconds: Number((ms / 1000).toFixed(2)),
  mbPerSecond: Number((bytes / 1e6 / (ms / 1000)).toFixed(1)),
  blobsPerSecond: Math.round(blobs / (ms / 1000)),
});

/**
 * (a) Append-only packs: `pack-N.pack` holds blobs end to end, `pack-N.idx` the sorted (key,
 * offset, length) of each. `compressed`: every blob zstd-compressed (level 3, no 4 KiB floor: in a
 * pack no object takes a disk block of its own), the compression timed with the writes and the
 * decompression with the lookups.
 */
function packRun(dir: string, blobs: Blob[], probes: Blob[], compressed = false): CandidateRun & { files: Figures } {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  let writeMs = 0;
  let written = 0;
  let pack = -1;
  let fd = -1;
  let offset = 0;
  let entries: { key: Buffer; offset: number; length: number }[] = [];
  const close = () => {
    if (fd < 0) return;
    const started = performance.now();
    fsyncSync(fd);
    closeSync(fd);
    entries.sort((a, b) => Buffer.compare(a.key, b.key));
    const index = Buffer.alloc(entries.length * 28);
    entries.forEach((entry, at) => {
      entry.key.copy(index, at * 28);
      index.writeBigUInt64BE(BigInt(entry.offset), at * 28 + 16);
      index.writeUInt32BE(entry.length, at * 28 + 24);
    });
    writeFileSync(join(dir, `pack-${pack}.idx`), index, { flush: true });
    writeMs += performance.now() - started;
    entries = [];
  };
  for (const batch of batches(blobs)) {
    const started = performance.now();
    for (const { blob, bytes: stored } of batch) {
      const bytes = compressed ? zstdCompressSync(decodeAtRest(stored), { params: { [constants.ZSTD_c_compressionLevel]: 3 } }) : stored;
      if (fd < 0 || offset >= PACK_BYTES) {
        writeMs += performance.now() - started;
        close();
        pack += 1;
        fd = openSync(join(dir, `pack-${pack}.pack`), 'w');
        offset = 0;
      }
      writeSync(fd, bytes);
      entries.push({ key: blob.key, offset, length: bytes.length });
      offset += bytes.length;
      written += stored.length;
    }
    writeMs += performance.now() - started;
  }
  close();

  // One sorted index over every pack (git's multi-pack-index): key, pack, offset, length. Written
  // once the packs are closed, so it counts as a write; a reader loads it whole and searches it.
  const merging = performance.now();
  const all: { key: Buffer; pack: number; offset: number; length: number }[] = [];
  for (let at = 0; at <= pack; at++) {
    const keys = readFileSync(join(dir, `pack-${at}.idx`));
    for (let entry = 0; entry < keys.length; entry += 28) {
      all.push({ key: keys.subarray(entry, entry + 16), pack: at, offset: Number(keys.readBigUInt64BE(entry + 16)), length: keys.readUInt32BE(entry + 24) });
    }
  }
  all.sort((a, b) => Buffer.compare(a.key, b.key));
  const merged = Buffer.alloc(all.length * MULTI_ENTRY);
  all.forEach((entry, at) => {
    entry.key.copy(merged, at * MULTI_ENTRY);
    merged.writeUInt16BE(entry.pack, at * MULTI_ENTRY + 16);
    merged.writeUInt32BE(entry.offset, at * MULTI_ENTRY + 18);
    merged.writeUInt32BE(entry.length, at * MULTI_ENTRY + 22);
  });
  writeFileSync(join(dir, 'multi-pack.idx'), merged, { flush: true });
  writeMs += performance.now() - merging;

  const opened = performance.now();
  const index = readFileSync(join(dir, 'multi-pack.idx'));
  const descriptors: number[] = [];
  for (let at = 0; at <= pack; at++) descriptors.push(openSync(join(dir, `pack-${at}.pack`), 'r'));
  const openMs = performance.now() - opened;
  const find = (key: Buffer): Buffer | null => {
    let low = 0;
    let high = index.length / MULTI_ENTRY - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const at = middle * MULTI_ENTRY;
      const order = index.compare(key, 0, 16, at, at + 16);
      if (order === 0) {
        const length = index.readUInt32BE(at + 22);
        const bytes = Buffer.allocUnsafe(length);
        readSync(descriptors[index.readUInt16BE(at + 16)], bytes, 0, length, index.readUInt32BE(at + 18));
        return compressed ? decodeAtRest(bytes) : bytes;
      }
      // index.compare(key) > 0: the entry sorts after the key.
      if (order > 0) high = middle - 1;
      else low = middle + 1;
    }
    return null;
  };
  const latencies = probes.map((blob) => {
    const started = performance.now();
    const bytes = find(blob.key);
    const ms = performance.now() - started;
    if (!bytes) throw new Error(`pack: ${blob.file} not found`);
    return ms;
  });
  for (const descriptor of descriptors) closeSync(descriptor);
  const files = zero();
  walkFiles(dir, (file) => add(files, file));
  const { p50, p99 } = percentiles(latencies);
  return { write: timing(writeMs, written, blobs.length), lookup: { p50Ms: p50, p99Ms: p99 }, openMs, files };
}

/** (b) SQLite as the application file format: one table key -> bytes, WAL, one transaction per batch. */
function sqliteRun(dir: string, blobs: Blob[], probes: Blob[]): CandidateRun & { files: Figures } {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'store.sqlite');
  const db = new DatabaseSync(file);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; CREATE TABLE blobs (key BLOB PRIMARY KEY, bytes BLOB NOT NULL);');
  const insert = db.prepare('INSERT OR IGNORE INTO blobs (key, bytes) VALUES (?, ?)');
  let writeMs = 0;
  let written = 0;
  for (const batch of batches(blobs, 16 * 1024 * 1024)) {
    const started = performance.now();
    db.exec('BEGIN');
    for (const { blob, bytes } of batch) {
      insert.run(blob.key, bytes);
      written += bytes.length;
    }
    db.exec('COMMIT');
    writeMs += performance.now() - started;
  }
  const checkpoint = performance.now();
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  writeMs += performance.now() - checkpoint;
  db.close();

  const opened = performance.now();
  const reader = new DatabaseSync(file, { readOnly: true });
  const select = reader.prepare('SELECT bytes FROM blobs WHERE key = ?');
  const openMs = performance.now() - opened;
  const latencies = probes.map((blob) => {
    const started = performance.now();
    const row = select.get(blob.key) as { bytes: Uint8Array } | undefined;
    const ms = performance.now() - started;
    if (!row) throw new Error(`sqlite: ${blob.file} not found`);
    return ms;
  });
  reader.close();
  const files = zero();
  walkFiles(dir, (path) => add(files, path));
  const { p50, p99 } = percentiles(latencies);
  return { write: timing(writeMs, written, blobs.length), lookup: { p50Ms: p50, p99Ms: p99 }, openMs, files };
}

/** Today's layout, for the same probes: one file per blob, read whole. */
function filesLookup(probes: Blob[]): { p50Ms: number; p99Ms: number } {
  const latencies = probes.map((blob) => {
    const started = performance.now();
    readFileSync(blob.file);
    return performance.now() - started;
  });
  const { p50, p99 } = percentiles(latencies);
  return { p50Ms: p50, p99Ms: p99 };
}

/** A dictionary from the zstd command line's trainer; null when it is not installed or cannot train on these samples (too few). */
function trainDictionary(dir: string, samples: Buffer[]): Buffer | null {
  try {
    execFileSync('zstd', ['--version'], { stdio: 'ignore' });
  } catch {
    return null;
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  samples.forEach((bytes, at) => writeFileSync(join(dir, String(at)), bytes));
  const dictionary = join(dir, '..', `${dir.split(/[\\/]/).pop()}.dict`);
  try {
    execFileSync('zstd', ['--train', '-q', '-r', dir, '-o', dictionary, '--maxdict', String(DICTIONARY_BYTES)], { stdio: 'ignore' });
    return readFileSync(dictionary);
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Raw-content dictionary: sample bodies end to end, newest last (zstd prefers matches near the end). */
function rawDictionary(samples: Buffer[]): Buffer {
  const parts: Buffer[] = [];
  let size = 0;
  for (const bytes of samples) {
    if (size + bytes.length > DICTIONARY_BYTES) continue;
    parts.push(bytes);
    size += bytes.length;
  }
  return Buffer.concat(parts);
}

interface CompressionRow {
  kind: string;
  objects: number;
  sampled: number;
  plainBytes: number;
  /** Bytes of the sample as stored today (served bodies plain, pieces zstd from 4 KiB). */
  storedToday: number;
  zstd3: number;
  zstd19: number;
  zstdTrained: number | null;
  zstdRaw: number;
  /** Median microseconds to decompress one object. */
  decompressUs: { zstd3: number; zstdTrained: number | null };
  compressMbPerSecond: { zstd3: number; zstdTrained: number | null };
}

/** (c) Compression at rest, per kind, on a sample; dictionaries trained on another sample. */
function compression(work: string, blobs: Blob[], log: (line: string) => void): CompressionRow[] {
  const byKind = new Map<string, Blob[]>();
  for (const blob of blobs) {
    const list = byKind.get(blob.kind);
    if (list) list.push(blob);
    else byKind.set(blob.kind, [blob]);
  }
  const rows: CompressionRow[] = [];
  for (const [kind, all] of byKind) {
    const mixed = shuffled(all, 16);
    // Up to COMPRESSION_SAMPLE objects or SAMPLE_BYTES of plain bytes, whichever comes first (zstd 19 runs at a few MB/s).
    const sample: Blob[] = [];
    const plain: Buffer[] = [];
    let sampledBytes = 0;
    for (const blob of mixed) {
      // At most half of a kind's objects: the dictionaries are trained on the other half, never on what they compress.
      if (sample.length >= COMPRESSION_SAMPLE || sampledBytes >= SAMPLE_BYTES || sample.length >= mixed.length / 2) break;
      const bytes = decodeAtRest(readFileSync(blob.file));
      sample.push(blob);
      plain.push(bytes);
      sampledBytes += bytes.length;
    }
    const training = mixed.slice(sample.length, sample.length + TRAINING_SAMPLE);
    const stored = sample.reduce((sum, blob) => sum + statSync(blob.file).size, 0);
    const trainingBytes = training.map((blob) => decodeAtRest(readFileSync(blob.file)));
    const trained = trainDictionary(join(work, `train-${kind.replace(/\W+/g, '-')}`), trainingBytes);
    const raw = rawDictionary(trainingBytes);
    const level = (value: number) => ({ params: { [constants.ZSTD_c_compressionLevel]: value } });
    const sizeWith = (options: object) => {
      const started = performance.now();
      const compressed = plain.map((bytes) => zstdCompressSync(bytes, options));
      return { ms: performance.now() - started, compressed, bytes: compressed.reduce((sum, bytes) => sum + bytes.length, 0) };
    };
    const decompressMedian = (compressed: Buffer[], options: object) =>
      median(compressed.slice(0, 500).map((bytes) => {
        const started = performance.now();
        zstdDecompressSync(bytes, options);
        return (performance.now() - started) * 1000;
      }));
    const plainBytes = plain.reduce((sum, bytes) => sum + bytes.length, 0);
    const z3 = sizeWith(level(3));
    const z19 = sizeWith(level(19));
    const withTrained = trained ? sizeWith({ ...level(3), dictionary: trained }) : null;
    const withRaw = sizeWith({ ...level(3), dictionary: raw });
    rows.push({
      kind,
      objects: all.length,
      sampled: sample.length,
      plainBytes,
      storedToday: stored,
      zstd3: z3.bytes,
      zstd19: z19.bytes,
      zstdTrained: withTrained?.bytes ?? null,
      zstdRaw: withRaw.bytes,
      decompressUs: { zstd3: Number(decompressMedian(z3.compressed, {}).toFixed(1)), zstdTrained: withTrained ? Number(decompressMedian(withTrained.compressed, { dictionary: trained }).toFixed(1)) : null },
      compressMbPerSecond: { zstd3: Number((plainBytes / 1e6 / (z3.ms / 1000)).toFixed(1)), zstdTrained: withTrained ? Number((plainBytes / 1e6 / (withTrained.ms / 1000)).toFixed(1)) : null },
    });
    log(`store: compression of ${kind} measured (${count(sample.length)} of ${count(all.length)})`);
  }
  return rows;
}

/** (d) What compressing a served body on request costs, per encoding, on bodies of 4 KiB or more. */
function onRequest(blobs: Blob[]): Record<string, { p50Ms: number; p99Ms: number; ratio: number }> {
  const served = shuffled(blobs.filter((blob) => (blob.kind === 'deps.json' || blob.kind === 'versions.json') && statSync(blob.file).size >= 4096), 7).slice(0, ON_REQUEST_SAMPLE);
  const bodies = served.map((blob) => readFileSync(blob.file));
  const plainBytes = bodies.reduce((sum, bytes) => sum + bytes.length, 0);
  const encoders: Record<string, (bytes: Buffer) => Buffer> = {
    'br q9 (the build)': (bytes) => brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
    'br q5': (bytes) => brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
    'gzip 9 (the build)': (bytes) => gzipSync(bytes, { level: 9 }),
    'gzip 6': (bytes) => gzipSync(bytes, { level: 6 }),
  };
  const result: Record<string, { p50Ms: number; p99Ms: number; ratio: number }> = {};
  for (const [name, encode] of Object.entries(encoders)) {
    let size = 0;
    const latencies = bodies.map((bytes) => {
      const started = performance.now();
      size += encode(bytes).length;
      return performance.now() - started;
    });
    const { p50, p99 } = percentiles(latencies);
    result[name] = { p50Ms: Number(p50.toFixed(3)), p99Ms: Number(p99.toFixed(3)), ratio: Number((size / plainBytes).toFixed(3)) };
  }
  return result;
}

const uptime = () => {
  try {
    return execFileSync('uptime', { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
};

export const suite: Suite = {
  name: 'store',
  description: "the output's files and bytes by kind, and candidate stores over the same blobs: packs, SQLite, zstd dictionaries, fewer encodings",
  options: {
    corpus: { type: 'string' },
    'store-out': { type: 'string' },
    runs: { type: 'string' },
    'store-parts': { type: 'string' },
  },
  usage: [
    `--corpus ${CORPORA.join('|')}   the corpus (default vcpkg-5000)`,
    '--store-out <dir>              measure an existing build output instead of building the corpus first',
    '--runs <n>                     timed runs of each candidate store (default 3)',
    `--store-parts <list>           what to measure besides the inventory, of ${PARTS.join(',')} (default all;`,
    '                               a partial run writes bench/results/store-<corpus>-<parts>.json)',
  ],
  async run(context) {
    const { log } = context;
    const corpus = typeof context.values.corpus === 'string' ? context.values.corpus : 'vcpkg-5000';
    if (!CORPORA.includes(corpus)) throw new Error(`--corpus must be one of ${CORPORA.join(', ')}, not ${corpus}`);
    const runs = Number(context.values.runs ?? 3);
    if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, not ${String(context.values.runs)}`);
    const parts = typeof context.values['store-parts'] === 'string' ? context.values['store-parts'].split(',').map((part) => part.trim()) : PARTS;
    const unknown = parts.filter((part) => !PARTS.includes(part));
    if (unknown.length > 0) throw new Error(`--store-parts takes ${PARTS.join(', ')}, not ${unknown.join(', ')}`);
    let out = typeof context.values['store-out'] === 'string' ? context.values['store-out'] : null;
    if (!out) {
      const repo = join(context.work, 'catalog');
      out = join(context.work, 'out');
      checkChild('git clone', await runChild('git', ['clone', '-q', context.corpusFile(`${corpus}.bundle`), repo], { cwd: context.work }));
      log(`store: building ${corpus} (the build suite measures this build)...`);
      checkChild('pkgcat build', await runChild(process.execPath, [join(context.root, 'bin', 'pkgcat.js'), 'build', '--repo', repo, '--out', out, '--quiet'], { cwd: context.root }));
    }
    const loadBefore = uptime();
    log(`store: ${loadBefore}`);

    const kinds = objectKinds(out, log);
    const { byKind, directories, total, blobs } = inventory(out, kinds);
    log(table(
      ['kind', 'files', 'bytes', 'allocated'],
      [...Object.entries(byKind).sort(([, a], [, b]) => b.allocated - a.allocated), ['directories', directories], ['total', total]].map(([kind, figures]) => [
        String(kind), count((figures as Figures).files), mib((figures as Figures).bytes), mib((figures as Figures).allocated),
      ]),
    ));
    let blobBytes = 0;
    let blobAllocated = 0;
    for (const blob of blobs) {
      const stat = statSync(blob.file);
      blobBytes += stat.size;
      blobAllocated += stat.blocks * 512;
    }
    log(`store: ${count(blobs.length)} blobs for the candidates (objects as stored, state roots, diffs), ${mib(blobBytes)} (${mib(blobAllocated)} allocated)`);

    const results: Record<string, unknown> = {};
    if (parts.includes('candidates')) {
      const probes = shuffled(blobs, 1).slice(0, LOOKUPS);
      const files: { p50Ms: number; p99Ms: number }[] = [];
      const packs: (CandidateRun & { files: Figures })[] = [];
      const sqlite: (CandidateRun & { files: Figures })[] = [];
      const zstdPacks: (CandidateRun & { files: Figures })[] = [];
      for (let run = 0; run < runs; run++) {
        files.push(filesLookup(probes));
        packs.push(packRun(join(context.work, 'packs'), blobs, probes));
        log(`store: run ${run + 1}: packs written in ${packs.at(-1)!.write.seconds} s, lookup p50 ${us(packs.at(-1)!.lookup.p50Ms)} (${uptime()})`);
        rmSync(join(context.work, 'packs'), { recursive: true, force: true });
        zstdPacks.push(packRun(join(context.work, 'packs'), blobs, probes, true));
        log(`store: run ${run + 1}: packs, zstd for every blob, written in ${zstdPacks.at(-1)!.write.seconds} s, lookup p50 ${us(zstdPacks.at(-1)!.lookup.p50Ms)} (${uptime()})`);
        rmSync(join(context.work, 'packs'), { recursive: true, force: true });
        sqlite.push(sqliteRun(join(context.work, 'sqlite'), blobs, probes));
        log(`store: run ${run + 1}: SQLite written in ${sqlite.at(-1)!.write.seconds} s, lookup p50 ${us(sqlite.at(-1)!.lookup.p50Ms)} (${uptime()})`);
        rmSync(join(context.work, 'sqlite'), { recursive: true, force: true });
      }
      const candidateRows = [
        ['files (today)', count(blobs.length), mib(blobAllocated), '', ...files.map((run) => `${us(run.p50Ms)} / ${us(run.p99Ms)}`)],
        ['packs', count(packs[0].files.files), mib(packs[0].files.allocated), packs.map((run) => `${run.write.mbPerSecond}`).join(', '), ...packs.map((run) => `${us(run.lookup.p50Ms)} / ${us(run.lookup.p99Ms)}`)],
        ['packs, zstd for every blob', count(zstdPacks[0].files.files), mib(zstdPacks[0].files.allocated), zstdPacks.map((run) => `${run.write.mbPerSecond}`).join(', '), ...zstdPacks.map((run) => `${us(run.lookup.p50Ms)} / ${us(run.lookup.p99Ms)}`)],
        ['SQLite', count(sqlite[0].files.files), mib(sqlite[0].files.allocated), sqlite.map((run) => `${run.write.mbPerSecond}`).join(', '), ...sqlite.map((run) => `${us(run.lookup.p50Ms)} / ${us(run.lookup.p99Ms)}`)],
      ];
      log(table(['store', 'files', 'allocated', 'write MB/s', ...files.map((_, run) => `lookup p50 / p99, run ${run + 1}`)], candidateRows));
      results.candidates = { blobs: blobs.length, blobBytes, blobAllocated, lookups: probes.length, files, packs, zstdPacks, sqlite, packBytes: PACK_BYTES };
    }
    if (parts.includes('compression')) {
      const compressionRows = compression(context.work, blobs, log);
      log(table(
        ['kind', 'objects', 'sampled', 'plain', 'today', 'zstd 3', 'zstd 19', 'zstd 3 + trained dict', 'zstd 3 + raw dict'],
        compressionRows.map((row) => [row.kind, count(row.objects), count(row.sampled), mib(row.plainBytes), mib(row.storedToday), mib(row.zstd3), mib(row.zstd19), row.zstdTrained === null ? 'not trained' : mib(row.zstdTrained), mib(row.zstdRaw)]),
      ));
      results.compression = compressionRows;
    }
    if (parts.includes('encodings')) {
      const encodings = onRequest(blobs);
      log(table(['on request', 'p50 ms', 'p99 ms', 'ratio'], Object.entries(encodings).map(([name, row]) => [name, String(row.p50Ms), String(row.p99Ms), String(row.ratio)])));
      results.onRequest = encodings;
    }
    const name = parts.length === PARTS.length ? `store-${corpus}` : `store-${corpus}-${parts.join('-')}`;
    const file = await writeResults(context.resultsDir, name, {
      machine: machine(),
      project: projectRevision(context.root),
      uptime: { before: loadBefore, after: uptime() },
      inventory: { byKind, directories, total },
      ...results,
    });
    log(`store: results in ${file}`);
  },
};
