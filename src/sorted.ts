/**
 * Binary search over anything kept in order: the chain's shas (gateway/sha.ts), a keyed
 * collection's chunks and their keys (build/chunks.ts).
 */

/** The first index in [0, length) at which `before` is false (length: none), `before` being true then false along the order. */
export function lowerBound(length: number, before: (index: number) => boolean): number {
  let low = 0;
  let high = length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (before(middle)) low = middle + 1;
    else high = middle;
  }
  return low;
}
