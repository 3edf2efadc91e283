/**
 * `pkgcat verify`: is a build output made elsewhere (an offline mirror) the origin's catalog?
 *
 * 1. The origin's digest of a commit (a file, or its URL) is opened: with --key, one of its
 *    signatures must verify with one of those public keys (src/digest/signed-digest.ts).
 * 2. The mirror's digest of that commit is computed from its own files, and every object the
 *    commits up to it name is checked against its name (src/digest/mirror.ts).
 * 3. With --body and --url, the body a sha-pinned URL gives on the mirror is composed by the
 *    gateway's own code, in this process, over the checked files only (not the mirror's cache/),
 *    and compared with the downloaded file byte for byte.
 */
import { randomBytes, createPublicKey, type KeyObject } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSignedDigest, DigestRejected } from '../src/digest/signed-digest.ts';
import { checkMirror, MirrorDiffers } from '../src/digest/mirror.ts';
import type { CommitDigest } from '../src/schemas/wire.ts';
import { currentReleaseId, paths, readJson } from '../src/store/layout.ts';
import { addUser } from '../gateway/auth/users.ts';
import { startServer } from '../gateway/server.ts';
import { checkDirectory, Failure } from './errors.ts';

export interface VerifyOptions {
  out: string;
  /** A file, or an http(s) URL. */
  digest: string;
  /** Files of the origin's public keys (a private key file gives its public key). */
  keys: readonly string[];
  body: { file: string; url: string } | null;
  quiet: boolean;
}

const PINNED = /^\/api\/pkgs\/bundle\/([0-9a-f]{40})(?:\.json$|\/(?:full\.json$|diff\/([0-9a-f]{40})\.json$|[^/]+\/(?:deps|versions|sbom)\.json$))/;

export async function runVerify(options: VerifyOptions): Promise<number> {
  const log = (line: string) => process.stderr.write(`pkgcat: ${line}\n`);
  await checkDirectory(options.out, 'the output directory', { writable: false });
  const keys = await Promise.all(options.keys.map(readPublicKey));
  const document = await readDigest(options.digest);
  let digest: CommitDigest;
  try {
    const opened = await openSignedDigest(document, keys);
    digest = opened.digest;
    log(opened.kid ? `the digest of ${digest.commit} is signed by key ${opened.kid}` : `the digest of ${digest.commit}: its signature was not checked (no --key)`);
  } catch (error) {
    if (error instanceof DigestRejected) throw new Failure(`the digest ${options.digest} is rejected: ${error.message}`);
    throw error;
  }

  const started = Date.now();
  try {
    const report = await checkMirror(options.out, digest, (done, total) => {
      if (!options.quiet) log(`checked ${done} of ${total} commits`);
    });
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    log(`${options.out} is the origin's catalog up to ${digest.commit}: ${report.commits} commits, ${report.objects} objects and ${report.siblings} compressed copies checked in ${seconds} s (digest ${digest.digest})`);
  } catch (error) {
    if (error instanceof MirrorDiffers) throw new Failure(error.message);
    throw error;
  }

  if (options.body) await verifyBody(options.out, digest, options.body, log);
  return 0;
}

async function readPublicKey(file: string): Promise<KeyObject> {
  let key: KeyObject;
  try {
    key = createPublicKey(await readFile(file));
  } catch (error) {
    throw new Failure(`--key ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'not a public key in PEM'}`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Failure(`--key ${file}: an ${key.asymmetricKeyType} key; commit digests are signed with Ed25519`);
  return key;
}

async function readDigest(source: string): Promise<unknown> {
  let text: string;
  if (/^https?:\/\//.test(source)) {
    let response: Response;
    try {
      response = await fetch(source);
    } catch (error) {
      throw new Failure(`--digest ${source}: cannot fetch it: ${(error as Error).message}`);
    }
    if (response.status !== 200) throw new Failure(`--digest ${source}: the server answered ${response.status}`);
    text = await response.text();
  } else {
    try {
      text = await readFile(source, 'utf8');
    } catch (error) {
      throw new Failure(`--digest ${source}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
    }
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new Failure(`--digest ${source}: not JSON; download it from the origin's /api/digests/{sha}.json`);
  }
}

/** The body `url` gives on the checked output, composed afresh, compared with `file`. */
async function verifyBody(out: string, digest: CommitDigest, body: { file: string; url: string }, log: (line: string) => void): Promise<void> {
  const path = body.url.replace(/^https?:\/\/[^/]+/, '');
  const match = PINNED.exec(path.split('?')[0]!);
  if (!match) throw new Failure(`--url ${body.url} is not a sha-pinned URL with a full sha (/api/pkgs/bundle/<40 hex>/...)`);
  let downloaded: Buffer;
  try {
    downloaded = await readFile(body.file);
  } catch (error) {
    throw new Failure(`--body ${body.file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  // The check covered the digest's commit and the ones before it, no later one.
  const covered = await coveredShas(out, digest.commit);
  for (const sha of match.slice(1).filter((sha): sha is string => sha !== undefined)) {
    if (!covered.has(sha)) throw new Failure(`${path} is at commit ${sha}, which the digest of ${digest.commit} does not cover (it covers that commit and the ones before it): use the digest of a later commit`);
  }
  const expected = await composeOnCheckedFiles(out, path);
  if (!downloaded.equals(expected)) {
    let at = 0;
    while (at < downloaded.length && at < expected.length && downloaded[at] === expected[at]) at += 1;
    throw new Failure(`${body.file} is not the origin's body of ${path}: it differs from byte ${at} on (it has ${downloaded.length} bytes, the origin's has ${expected.length})`);
  }
  log(`${body.file} is the origin's body of ${path}, byte for byte (${expected.length} bytes)`);
}

/**
 * Serves `path` from a view of `out` holding only the checked files (the packs and the
 * releases), so nothing the mirror's gateway composed and cached before is read: everything is
 * composed again from checked bytes, by the gateway's code, signed in as a throwaway user.
 */
async function composeOnCheckedFiles(out: string, path: string): Promise<Buffer> {
  const view = await mkdtemp(join(tmpdir(), 'pkgcat-verify-'));
  try {
    const checked = join(view, 'out');
    await mkdir(checked);
    for (const entry of await readdir(out)) {
      if (entry === 'cache' || entry === 'build') continue;
      // `current` is a relative link (releases/<id>): copied as it is, so it names the same release.
      const source = join(out, entry);
      await symlink((await lstat(source)).isSymbolicLink() ? await readlink(source) : source, join(checked, entry));
    }
    const password = randomBytes(18).toString('base64url');
    await addUser(join(view, 'users.json'), 'verify', password);
    const server = await startServer({
      out: checked,
      usersFile: join(view, 'users.json'),
      host: '127.0.0.1',
      port: 0,
      sessionDir: join(view, 'sessions'),
      sessionSecret: randomBytes(32).toString('hex'),
      log: () => {},
    });
    try {
      const signIn = await fetch(`${server.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'verify', password }) });
      const cookie = signIn.headers.getSetCookie().find((line) => line.startsWith('pkgcat.sid='))?.split(';')[0];
      if (!cookie) throw new Error(`the verifying gateway refused its sign-in (${signIn.status})`);
      const response = await fetch(`${server.url}${path}`, { headers: { cookie, 'accept-encoding': 'identity' }, redirect: 'manual' });
      if (response.status !== 200) throw new Failure(`${path} answers ${response.status} on the mirror: ${(await response.text()).slice(0, 200)}`);
      return Buffer.from(await response.arrayBuffer());
    } finally {
      await server.close();
    }
  } finally {
    await rm(view, { recursive: true, force: true });
  }
}

async function coveredShas(out: string, tip: string): Promise<Set<string>> {
  const chain = await readJson<{ sha: string }[]>(paths.chain(paths.release(out, (await currentReleaseId(out))!)));
  const index = chain.findIndex((commit) => commit.sha === tip);
  return new Set(chain.slice(index).map((commit) => commit.sha));
}
