/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`) against the tool server
 * of a served catalog: the server scenarios it claims pass, check by check; every other scenario
 * the suite knows is listed, with the reason, in conformance-unclaimed.yml, which the suite takes as
 * its baseline of expected failures (so an entry that starts passing fails the run as stale).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixture, type Fixture } from '../gateway/fixtures.ts';
import { startGateway, type Gateway } from '../gateway/harness.ts';
import { MCP_PATH } from './client.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SUITE = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const UNCLAIMED_FILE = join(ROOT, 'tests/mcp/conformance-unclaimed.yml');
const run = promisify(execFile);

/** The server scenarios the tool server honours (docs/mcp.md "Conformance"). */
const CLAIMED = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

let fx: Fixture;
let gw: Gateway;
let dir: string;

beforeAll(async () => {
  fx = await buildFixture();
  gw = await startGateway(fx.out, fx.dir);
  dir = await mkdtemp(join(tmpdir(), 'pkgcat-conformance-'));
}, 120_000);

afterAll(async () => {
  await gw?.close();
  await fx?.cleanup();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The scenarios of the baseline file (its `server:` list, one `  - name` a line). */
const unclaimed = async () => [...(await readFile(UNCLAIMED_FILE, 'utf8')).matchAll(/^ {2}- (\S+)$/gm)].map((match) => match[1]!);

describe('the MCP conformance suite', () => {
  it('knows no server scenario that is neither claimed nor listed as unclaimed, and none that is both', async () => {
    const { stdout } = await run(process.execPath, [SUITE, 'list', '--server'], { cwd: dir });
    const known = [...stdout.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1]!);
    expect(known.length).toBeGreaterThan(CLAIMED.length);
    const listed = await unclaimed();
    expect(listed.filter((name) => CLAIMED.includes(name))).toEqual([]);
    expect([...CLAIMED, ...listed].sort()).toEqual([...known].sort());
  });

  it('passes every check of the claimed scenarios; the unclaimed ones are the baseline\'s expected failures', async () => {
    const out = join(dir, 'results');
    const args = [SUITE, 'server', '--url', `${gw.url}${MCP_PATH}`, '--suite', 'all', '--expected-failures', UNCLAIMED_FILE, '--output-dir', out];
    const result = await run(process.execPath, args, { cwd: dir }).catch((error: { code: number; stdout: string; stderr: string }) => error);
    expect('code' in result ? `exit ${result.code}\n${result.stdout}\n${result.stderr}` : 'exit 0').toBe('exit 0');
    const folders = await readdir(out);
    for (const scenario of CLAIMED) {
      const folder = folders.find((name) => name.startsWith(`server-${scenario}-`));
      expect(folder, scenario).toBeDefined();
      const checks = JSON.parse(await readFile(join(out, folder!, 'checks.json'), 'utf8')) as { id: string; status: string; errorMessage?: string }[];
      expect(checks.length, scenario).toBeGreaterThan(0);
      expect(checks.map(({ id, status, errorMessage }) => ({ id, status, errorMessage })), scenario).toEqual(checks.map(({ id }) => ({ id, status: 'SUCCESS', errorMessage: undefined })));
    }
  }, 120_000);
});
