/**
 * How the per-commit state roots sit on disk: zstd-compressed from 4 KiB (less than half their
 * bytes; on vcpkg's 16,193 commits that is hundreds of MB). A compressed file is told by the zstd
 * frame's magic number, which no JSON text starts with. Objects are compressed by their packs
 * (objects.ts), not here.
 */
import { zstdCompress, zstdDecompressSync } from 'node:zlib';
import { promisify } from 'node:util';

const ZSTD_MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);
const compress = promisify(zstdCompress);

/** Files smaller than this stay plain: they take one disk block either way. */
export const COMPRESS_MIN_BYTES = 4096;

/** The bytes to store for a file only pkgcat reads. */
export async function compressAtRest(bytes: Buffer): Promise<Buffer> {
  return bytes.length < COMPRESS_MIN_BYTES ? bytes : compress(bytes);
}

/** The plain bytes of a stored file, as read from disk. */
export function decodeAtRest(stored: Buffer): Buffer {
  return stored.subarray(0, 4).equals(ZSTD_MAGIC) ? zstdDecompressSync(stored) : stored;
}
