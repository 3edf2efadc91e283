/**
 * Password hashing with scrypt from `node:crypto`; no dependency.
 *
 * A stored hash reads `scrypt$N$r$p$<salt>$<key>` (salt and key in base64url, no padding), so the
 * cost parameters travel with each hash and can be raised later without invalidating old ones.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export const SCRYPT_N = 2 ** 15;
export const SCRYPT_R = 8;
export const SCRYPT_P = 1;
const SALT_BYTES = 16;
const KEY_BYTES = 32;

/** Bounds accepted when reading a stored hash, so a hand-edited file cannot ask for absurd work. */
const MAX_N = 2 ** 20;
const MAX_R = 32;
const MAX_P = 16;

export interface ScryptParams {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

interface ParsedHash extends ScryptParams {
  readonly salt: Buffer;
  readonly key: Buffer;
}

function derive(password: string, salt: Buffer, keyLength: number, params: ScryptParams): Promise<Buffer> {
  // scrypt needs 128 * N * r * p bytes; give it twice that so Node's own bookkeeping fits too.
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r * params.p };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** Hashes a password into the stored `scrypt$N$r$p$salt$key` form, with a fresh random salt. */
export async function hashPassword(password: string, params: ScryptParams = { N: SCRYPT_N, r: SCRYPT_R, p: SCRYPT_P }): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, KEY_BYTES, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

function isPowerOfTwo(value: number): boolean {
  return Number.isInteger(value) && value > 1 && (value & (value - 1)) === 0;
}

/** Parses a stored hash; null when it is not one this module can verify. */
export function parseHash(stored: string): ParsedHash | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [N, r, p] = parts.slice(1, 4).map((part) => (/^[0-9]{1,8}$/.test(part) ? Number(part) : NaN));
  if (!isPowerOfTwo(N) || N > MAX_N) return null;
  if (!Number.isInteger(r) || r < 1 || r > MAX_R || !Number.isInteger(p) || p < 1 || p > MAX_P) return null;
  if (!/^[A-Za-z0-9_-]+$/.test(parts[4]) || !/^[A-Za-z0-9_-]+$/.test(parts[5])) return null;
  const salt = Buffer.from(parts[4], 'base64url');
  const key = Buffer.from(parts[5], 'base64url');
  if (salt.length < 8 || key.length < 16) return null;
  return { N, r, p, salt, key };
}

/** True when `stored` is a hash this module can verify. */
export function isValidHash(stored: string): boolean {
  return parseHash(stored) !== null;
}

/** Compares a password with a stored hash in constant time; false for a malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (parsed === null) return false;
  const key = await derive(password, parsed.salt, parsed.key.length, parsed);
  return timingSafeEqual(key, parsed.key);
}

/** Random salt and key with the default parameters: no password derives this key. */
const DUMMY_HASH = ['scrypt', SCRYPT_N, SCRYPT_R, SCRYPT_P, randomBytes(SALT_BYTES).toString('base64url'), randomBytes(KEY_BYTES).toString('base64url')].join('$');

/**
 * Spends the same work as verifying a real password, for an unknown user, so the response time
 * does not tell whether a username exists. Always false.
 */
export async function verifyAgainstDummy(password: string): Promise<false> {
  await verifyPassword(password, DUMMY_HASH);
  return false;
}
