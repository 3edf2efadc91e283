/**
 * docs/deployment.md "An offline mirror": the catalog's history crosses as a git bundle (then an
 * incremental one), is built there with pkgcat, and `pkgcat verify` proves the mirror faithful
 * against the origin's signed digest (docs/decisions.md "Commit digests"); a changed object, a
 * changed body, a digest signed by another key and a changed digest are each rejected, in one line.
 */
import { execFile } from 'node:child_process';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { crc32, zstdDecompressSync } from 'node:zlib';
import { generalVerify, type GeneralJWS } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../gateway/auth/users.ts';
import { appendCommits, createCatalogRepo } from '../../demo/catalog-writer.ts';
import { startServeProcess, type ServeProcess } from '../../bench/helpers/serve-process.ts';
import { advisory, hoursLater, manifest, temporaryDirectory } from '../helpers/catalog.ts';
import { signIn, USER } from '../gateway/harness.ts';
import { CACHE_CONTROL, JSON_CONTENT_TYPE } from '../helpers/spec.ts';
import { cleanEnv, pkgcat } from './run.ts';

const git = promisify(execFile);

let dir: string;
let originRepo: string;
let origin: ServeProcess;
let shas: string[];
let keyFile: string;
let publicKeyFile: string;
let otherPublicKeyFile: string;
const mirrorRepo = () => join(dir, 'mirror.git');
const mirrorOut = () => join(dir, 'mirror-out');

/** Downloads the origin's digest of `sha` into a file, as an auditor would (anonymously). */
async function downloadDigest(sha: string): Promise<string> {
  const file = join(dir, `digest-${sha}.json`);
  const response = await fetch(`${origin.url}/api/digests/${sha}.json`);
  expect(response.status).toBe(200);
  await writeFile(file, Buffer.from(await response.arrayBuffer()));
  return file;
}

/** Polls the origin until its latest commit is `sha` (it follows main in the background). */
async function originAt(sha: string): Promise<void> {
  for (;;) {
    const response = await fetch(`${origin.url}/api/pkgs/bundle/latest.json`, { redirect: 'manual' });
    if (response.headers.get('location')?.includes(sha)) return;
    await new Promise((done) => setTimeout(done, 200));
  }
}

beforeAll(async () => {
  dir = await temporaryDirectory();
  originRepo = join(dir, 'origin');
  shas = await createCatalogRepo(originRepo, [
    { message: 'zlib', time: hoursLater(0), files: { 'packages/zlib/manifest.json': manifest('zlib', { version: '1.3.1' }) } },
    { message: 'curl', time: hoursLater(1), files: { 'packages/curl/manifest.json': manifest('curl', { dependencies: { runtime: ['zlib'] } }) } },
    { message: 'an advisory on zlib', time: hoursLater(2), files: { 'advisories/PKGCAT-0001.json': advisory('PKGCAT-0001', { package: 'zlib', fixed: '1.3.2', severity: 'HIGH' }) } },
  ]);
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  keyFile = join(dir, 'origin.key.pem');
  publicKeyFile = join(dir, 'origin.pub.pem');
  otherPublicKeyFile = join(dir, 'other.pub.pem');
  await writeFile(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  await writeFile(publicKeyFile, publicKey.export({ type: 'spki', format: 'pem' }));
  await writeFile(otherPublicKeyFile, generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }));
  await addUser(join(dir, 'users.json'), USER.username, USER.password);
  origin = await startServeProcess(
    ['--repo', originRepo, '--out', join(dir, 'origin-out'), '--users', join(dir, 'users.json'), '--session-dir', join(dir, 'sessions'), '--signing-key', keyFile, '--poll-seconds', '0.5'],
    cleanEnv(),
    { timeoutMs: 60_000 },
  );
  await originAt(shas.at(-1)!);
}, 120_000);

afterAll(async () => {
  await origin?.stop();
});

describe('the origin signs each commit\'s digest', () => {
  it('anonymously, as a JWS in the JSON serialization with an unencoded payload (RFC 7797), a kid, and room for more signatures', async () => {
    const response = await fetch(`${origin.url}/api/digests/${shas[2]}.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
    expect(response.headers.get('cache-control')).toBe(CACHE_CONTROL.pages);
    const jws = (await response.json()) as GeneralJWS & { payload: string };
    expect(Object.keys(jws).sort()).toEqual(['payload', 'signatures']);
    expect(jws.signatures).toHaveLength(1);
    const header = JSON.parse(Buffer.from(jws.signatures[0]!.protected!, 'base64url').toString('utf8'));
    expect(header).toEqual({ alg: 'EdDSA', b64: false, crit: ['b64'], kid: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    // A JOSE library verifies it with the origin's public key, the payload read as it is.
    const verified = await generalVerify(jws, createPublicKey(await readFile(publicKeyFile)));
    expect(new TextDecoder().decode(verified.payload)).toBe(jws.payload);
    const payload = JSON.parse(jws.payload);
    expect(payload).toMatchObject({ commit: shas[2], parent: shas[1], digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), parentDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
    // The parent's digest is the digest of the commit before: one signed digest covers the history.
    const parent = JSON.parse(((await (await fetch(`${origin.url}/api/digests/${shas[1]}.json`)).json()) as { payload: string }).payload);
    expect(payload.parentDigest).toBe(parent.digest);
    expect(origin.log()).toContain(`commit digests (/api/digests/{sha}.json) are signed by key ${header.kid}`);
  });
});

describe('an offline mirror', () => {
  let digestFile: string;

  beforeAll(async () => {
    // Across the air gap: the whole history as one bundle, cloned and built there.
    await git('git', ['-C', originRepo, 'bundle', 'create', join(dir, 'catalog.bundle'), 'main']);
    await git('git', ['clone', '--bare', '--quiet', join(dir, 'catalog.bundle'), mirrorRepo()]);
    const built = await pkgcat(['build', '--repo', mirrorRepo(), '--out', mirrorOut(), '--quiet']);
    expect(built.code, built.stderr).toBe(0);
    digestFile = await downloadDigest(shas[2]!);
  }, 120_000);

  it('verifies against the origin\'s signed digest', async () => {
    const result = await pkgcat(['verify', '--out', mirrorOut(), '--digest', digestFile, '--key', publicKeyFile]);
    expect(result.stderr).toMatch(new RegExp(`^pkgcat: the digest of ${shas[2]} is signed by key [A-Za-z0-9_-]{43}\n`));
    expect(result.stderr).toContain(`pkgcat: ${mirrorOut()} is the origin's catalog up to ${shas[2]}: 3 commits, `);
    expect(result.code).toBe(0);
  }, 60_000);

  it('a body downloaded from the origin is checked against the mirror, byte for byte; a changed one is rejected', async () => {
    const cookie = await signIn(origin.url);
    for (const path of [`/api/pkgs/bundle/${shas[1]}/full.json`, `/api/pkgs/bundle/${shas[2]}/curl/sbom.json?format=spdx`, `/api/pkgs/bundle/${shas[2]}/diff/${shas[0]}.json`]) {
      const file = join(dir, 'downloaded.json');
      await writeFile(file, Buffer.from(await (await fetch(`${origin.url}${path}`, { headers: { cookie } })).arrayBuffer()));
      const good = await pkgcat(['verify', '--out', mirrorOut(), '--digest', digestFile, '--key', publicKeyFile, '--body', file, '--url', `https://pkgs.example.com${path}`, '--quiet']);
      expect(good.stderr, path).toContain(`pkgcat: ${file} is the origin's body of ${path}, byte for byte`);
      expect(good.code, path).toBe(0);
      const bytes = await readFile(file);
      await writeFile(file, Buffer.concat([bytes.subarray(0, 40), Buffer.from('#'), bytes.subarray(41)]));
      const changed = await pkgcat(['verify', '--out', mirrorOut(), '--digest', digestFile, '--key', publicKeyFile, '--body', file, '--url', path, '--quiet']);
      expect(changed.code, path).toBe(1);
      expect(changed.stderr.split('\n').at(-2), path).toBe(`pkgcat: ${file} is not the origin's body of ${path}: it differs from byte 40 on (it has ${bytes.length} bytes, the origin's has ${bytes.length})`);
    }
  }, 300_000);

  it('takes an incremental bundle: the new commit is built and verifies against its own digest', async () => {
    const [tip] = await appendCommits(originRepo, [{ message: 'zlib 1.3.2', time: hoursLater(3), files: { 'packages/zlib/manifest.json': manifest('zlib', { version: '1.3.2' }) } }]);
    await originAt(tip!);
    await git('git', ['-C', originRepo, 'bundle', 'create', join(dir, 'update.bundle'), `${shas[2]}..main`]);
    await git('git', ['-C', mirrorRepo(), 'fetch', '--quiet', join(dir, 'update.bundle'), 'main:main']);
    const built = await pkgcat(['build', '--repo', mirrorRepo(), '--out', mirrorOut(), '--quiet']);
    expect(built.code, built.stderr).toBe(0);
    const result = await pkgcat(['verify', '--out', mirrorOut(), '--digest', await downloadDigest(tip!), '--key', publicKeyFile, '--quiet']);
    expect(result.stderr).toContain(`is the origin's catalog up to ${tip}: 4 commits`);
    expect(result.code).toBe(0);
    // The older digest covers the older commits only.
    const later = await pkgcat(['verify', '--out', mirrorOut(), '--digest', digestFile, '--key', publicKeyFile, '--body', digestFile, '--url', `/api/pkgs/bundle/${tip}.json`, '--quiet']);
    expect(later.code).toBe(1);
    expect(later.stderr.split('\n').at(-2)).toBe(`pkgcat: /api/pkgs/bundle/${tip}.json is at commit ${tip}, which the digest of ${shas[2]} does not cover (it covers that commit and the ones before it): use the digest of a later commit`);
  }, 120_000);

  it('rejects a digest signed by another key, and a digest changed after it was signed', async () => {
    const other = await pkgcat(['verify', '--out', mirrorOut(), '--digest', digestFile, '--key', otherPublicKeyFile]);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(new RegExp(`^pkgcat: the digest ${digestFile.replace(/[.]/g, '\\.')} is rejected: none of its signatures is by a key given \\(it is signed by [A-Za-z0-9_-]{43}; the keys given are [A-Za-z0-9_-]{43}\\)\n$`));
    const document = JSON.parse(await readFile(digestFile, 'utf8'));
    const payload = JSON.parse(document.payload);
    payload.digest = `sha256:${'0'.repeat(64)}`;
    const forged = join(dir, 'forged.json');
    await writeFile(forged, JSON.stringify({ ...document, payload: JSON.stringify(payload) }));
    const result = await pkgcat(['verify', '--out', mirrorOut(), '--digest', forged, '--key', publicKeyFile]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^pkgcat: the digest \S+ is rejected: its signature by key [A-Za-z0-9_-]{43} does not verify: the digest was changed after it was signed, or signed by another key of that id\n$/);
  }, 60_000);

  it('rejects a mirror one of whose stored bodies was changed, naming the object', async () => {
    const cookie = await signIn(origin.url);
    const deps = await fetch(`${origin.url}/api/pkgs/bundle/${shas[2]}/curl/deps.json`, { headers: { cookie } });
    // A deps.json body is stored under its content hash (the weak ETag's value).
    const hash = /^W\/"([0-9a-f]{32})"$/.exec(deps.headers.get('etag') ?? '')![1]!;
    const restore = await changeStoredObject(join(mirrorOut(), 'objects'), hash, (text) => text.replace('"zlib"', '"zlob"'));
    const result = await pkgcat(['verify', '--out', mirrorOut(), '--digest', digestFile, '--key', publicKeyFile, '--quiet']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`pkgcat: object ${hash} was changed: its bytes do not match its name \\(commit [0-9a-f]{40} names it\\)\n$`));
    await restore();
  }, 60_000);
});

/**
 * Changes the body stored under `hash` in an output's packs as someone editing the files would
 * (docs/decisions.md "Storage" gives the format): the new bytes at the end of its pack, its index
 * record pointing at them, with a CRC that matches. Returns what puts the files back.
 */
async function changeStoredObject(folder: string, hash: string, change: (text: string) => string): Promise<() => Promise<void>> {
  for (const file of (await readdir(folder)).filter((name) => name.endsWith('.idx'))) {
    const indexFile = join(folder, file);
    const packFile = indexFile.replace(/\.idx$/, '.pack');
    const index = await readFile(indexFile);
    for (let at = 32; at + 32 <= index.length; at += 32) {
      if (index.toString('hex', at, at + 16) !== hash || index[at + 16] !== 0) continue;
      const pack = await readFile(packFile);
      const offset = index.readUIntLE(at + 18, 6);
      const stored = pack.subarray(offset, offset + index.readUInt32LE(at + 24));
      const changed = Buffer.from(change((index[at + 17] & 1 ? zstdDecompressSync(stored) : stored).toString('utf8')));
      const record = Buffer.from(index.subarray(at, at + 32));
      record[17] = 0;
      record.writeUIntLE(pack.length, 18, 6);
      record.writeUInt32LE(changed.length, 24);
      record.writeUInt32LE(crc32(record.subarray(0, 28)), 28);
      await writeFile(packFile, Buffer.concat([pack, changed]));
      await writeFile(indexFile, Buffer.concat([index.subarray(0, at), record, index.subarray(at + 32)]));
      return async () => {
        await writeFile(packFile, pack);
        await writeFile(indexFile, index);
      };
    }
  }
  throw new Error(`no object ${hash} in the packs of ${folder}`);
}

describe('serve --signing-key', () => {
  it.each([
    ['a key of another kind', async (file: string) => writeFile(file, generateKeyPairSync('x25519').privateKey.export({ type: 'pkcs8', format: 'pem' })), (file: string) => `pkgcat: --signing-key ${file}: an x25519 key; commit digests are signed with Ed25519 (openssl genpkey -algorithm ed25519)\n`],
    ['no such file', async () => {}, (file: string) => `pkgcat: --signing-key ${file}: no such file; make one with: openssl genpkey -algorithm ed25519 -out ${file}\n`],
  ])('%s: exit 1 and one line, before listening', async (_what, write, line) => {
    const scratch = await temporaryDirectory();
    const file = join(scratch, 'key.pem');
    await write(file);
    const result = await pkgcat(['serve', '--out', join(scratch, 'out'), '--port', '0', '--signing-key', file]);
    expect(result).toEqual({ code: 1, stdout: '', stderr: line(file) });
  });
});
