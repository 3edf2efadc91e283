/**
 * How an object's bytes sit on disk. Bodies served whole (deps.json, versions.json) are stored as
 * they are sent, so a static server or nginx can send the file itself. The pieces the gateway
 * splices (record, card, transitive and index chunks, advisory maps) are repetitive JSON of tens
 * of KB that a commit rewrites whole when one item in them changes: they are stored zstd-compressed
 * (a fifth to a tenth of the bytes; on vcpkg's 16,193 commits, gigabytes). The name is always the
 * hash of the plain bytes, and a compressed object is told by the zstd frame's magic number, which
 * no JSON text starts with.
 */
import { zstdCompress, zstdDecompressSync } from 'node:zlib';
import { promisify } from 'node:util';

const ZSTD_MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);
const compress = promisify(zstdCompress);

/** Pieces smaller than this stay plain: they take one disk block either way. */
export const COMPRESS_MIN_BYTES = 4096;

/** The bytes to store for a spliced piece. */
export async function encodePiece(bytes: Buffer): Promise<Buffer> {
  return bytes.length < COMPRESS_MIN_BYTES ? bytes : compress(bytes);
}

/** The plain bytes of a stored object, as read from disk. */
export function decodeObject(stored: Buffer): Buffer {
  return stored.subarray(0, 4).equals(ZSTD_MAGIC) ? zstdDecompressSync(stored) : stored;
}
