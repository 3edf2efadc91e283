/**
 * A large document's bytes cut where its content says, not at fixed offsets: a cut falls after a
 * byte where a rolling hash of the bytes before it (a gear hash, as restic's and FastCDC's chunkers
 * use) has its low bits zero. Lines that stay the same give the same segments wherever they move to,
 * so a commit that changes one row of a 9 MB search page stores one segment of about 64 KiB and the
 * list of them (src/store/manifest.ts JoinedSegment), not 9 MB.
 */
/** Bodies at least this large are stored as segments (the search page, llms.txt, a large sitemap). */
export const SEGMENTED_FROM_BYTES = 256 * 1024;

const MIN_SEGMENT = 16 * 1024;
/** A power of two: a cut is where the hash's low bits, this many values' worth, are zero. */
const AVERAGE_SEGMENT = 64 * 1024;
const MAX_SEGMENT = 256 * 1024;

/** One pseudo-random 32-bit value per byte value (mulberry32 from a fixed seed), fixed forever: the segments are part of the output. */
const GEAR = (() => {
  let state = 0x706b6763;
  return Int32Array.from({ length: 256 }, () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return t ^ (t >>> 14);
  });
})();

/** `bytes` cut into segments of MIN_SEGMENT to MAX_SEGMENT bytes (the last may be shorter); joined, they are `bytes`. */
export function contentSegments(bytes: Uint8Array): Uint8Array[] {
  const segments: Uint8Array[] = [];
  const mask = AVERAGE_SEGMENT - 1;
  const gear = GEAR;
  let start = 0;
  let hash = 0;
  for (let at = 0; at < bytes.length; at++) {
    // A 32-bit signed integer throughout: the engine keeps it unboxed (twice as fast as `>>> 0`).
    hash = ((hash << 1) + gear[bytes[at]]) | 0;
    const length = at + 1 - start;
    if ((length >= MIN_SEGMENT && (hash & mask) === 0) || length >= MAX_SEGMENT) {
      segments.push(bytes.subarray(start, at + 1));
      start = at + 1;
      hash = 0;
    }
  }
  if (start < bytes.length) segments.push(bytes.subarray(start));
  return segments;
}
