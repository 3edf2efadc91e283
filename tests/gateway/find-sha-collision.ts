/**
 * Finds COLLISION_NONCE for fixtures.ts: the nonce whose collision commit (on top of
 * BASE_COMMITS) has a sha sharing its first 7 hex characters with an earlier commit.
 * Run: `npx node tests/gateway/find-sha-collision.ts` (a few seconds to a minute).
 *
 * A commit's sha is sha1("commit <size>\0" + body); the collision commit changes no file, so its
 * tree is its parent's, and only the message varies.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCatalogRepo, DEMO_IDENTITY, git } from '../../demo/catalog-writer.ts';
import { BASE_COMMITS, collisionCommit, PREFIX_LENGTH } from './fixtures.ts';

const dir = await mkdtemp(join(tmpdir(), 'pkgcat-collision-'));
try {
  const shas = await createCatalogRepo(join(dir, 'repo'), BASE_COMMITS);
  const parent = shas[shas.length - 1];
  const tree = (await git(join(dir, 'repo'), ['rev-parse', `${parent}^{tree}`])).trim();
  const targets = new Set(shas.map((sha) => sha.slice(0, PREFIX_LENGTH)));
  const ident = `${DEMO_IDENTITY.name} <${DEMO_IDENTITY.email}>`;
  for (let nonce = 0; ; nonce++) {
    const commit = collisionCommit(nonce);
    const when = Date.parse(commit.time) / 1000;
    const body = `tree ${tree}\nparent ${parent}\nauthor ${ident} ${when} +0000\ncommitter ${ident} ${when} +0000\n\n${commit.message as string}`;
    const sha = createHash('sha1').update(`commit ${Buffer.byteLength(body)}\0${body}`).digest('hex');
    if (targets.has(sha.slice(0, PREFIX_LENGTH))) {
      console.log(`COLLISION_NONCE = ${nonce}: ${sha} shares ${sha.slice(0, PREFIX_LENGTH)} with ${shas.find((s) => s.startsWith(sha.slice(0, PREFIX_LENGTH)))}`);
      break;
    }
    if (nonce % 5_000_000 === 0 && nonce > 0) console.error(`${nonce} tried`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
