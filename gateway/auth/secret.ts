/**
 * The session-cookie signing secret, when PKGCAT_SESSION_SECRET is not given: generated once and
 * kept in an owner-only file (next to the session database), so a restart keeps every session.
 */
import { randomBytes } from 'node:crypto';
import { chmod, readFile, stat } from 'node:fs/promises';
import { writeFileOnce } from '../../src/store/atomic.ts';

/** Shortest secret accepted from a file or the environment. */
export const MIN_SECRET_LENGTH = 32;

export class SecretError extends Error {
  override name = 'SecretError';
}

/** Throws when a configured secret is too short to sign session cookies safely. */
export function checkSecret(secret: string, origin: string): string {
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new SecretError(`${origin} is too short: use at least ${MIN_SECRET_LENGTH} characters (e.g. \`openssl rand -base64 48\`)`);
  }
  return secret;
}

async function readSecret(file: string): Promise<string> {
  const info = await stat(file);
  // Tighten a file someone made group- or world-readable; it signs every session cookie.
  if ((info.mode & 0o077) !== 0) await chmod(file, 0o600);
  return checkSecret((await readFile(file, 'utf8')).trim(), `session secret file ${file}`);
}

/**
 * Returns the secret kept in `file`, creating it (0600, its directory 0700) with 48 random bytes
 * when it does not exist. Safe when several processes start at once: exactly one creates it.
 */
export async function loadOrCreateSecret(file: string): Promise<string> {
  try {
    return await readSecret(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = randomBytes(48).toString('base64url');
  // Created whole and only if absent: a concurrent starter never reads a half-written secret,
  // and only one secret wins; the others read it.
  if (!(await writeFileOnce(file, `${secret}\n`, { mode: 0o600, dirMode: 0o700, durable: true }))) return readSecret(file);
  return secret;
}
