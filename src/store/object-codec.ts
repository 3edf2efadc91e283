/**
 * How the build's files sit on disk. Bodies served whole (deps.json, versions.json) are stored as
 * they are sent, so a static server or nginx can send the file itself. What only pkgcat reads is
 * stored zstd-compressed from 4 KiB: the pieces the gateway splices (record, card, transitive and
 * index chunks, advisory maps: repetitive JSON of tens of KB that a commit rewrites whole when one
 * item in them changes; a fifth to a tenth of the bytes) and the per-commit state roots (less than
 * half). On vcpkg's 16,193 commits that is gigabytes. An object is still named by the hash of its
 * plain bytes, and a compressed file is told by the zstd frame's magic number, which no JSON text
 * starts with.
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
