/**
 * The session-cookie signing secret, when PKGCAT_SESSION_SECRET is not given: generated once and
 * kept in an owner-only file (next to the session database), so a restart keeps every session.
 */
import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, open, readFile, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

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
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const secret = randomBytes(48).toString('base64url');
  // Write a private temporary file, then hard-link it into place: link() fails when the file
  // exists, so a concurrent starter never reads a half-written secret, and only one secret wins.
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(`${secret}\n`, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readSecret(file);
  } finally {
    await rm(temporary, { force: true });
  }
  return secret;
}
