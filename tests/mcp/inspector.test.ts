/**
 * A second, independent client: the MCP Inspector (`@modelcontextprotocol/inspector`, a
 * devDependency) in CLI mode, as a user would script it (docs/mcp.md):
 *
 *   npx @modelcontextprotocol/inspector --cli http://host/api/mcp --transport http --method tools/list
 *   npx @modelcontextprotocol/inspector --cli http://host/api/mcp --transport http --method tools/call --tool-name get_package --tool-arg name=zlib
 *
 * It runs in a child process on this Node (its launcher, the package's `bin`), with its home and
 * config files in a temporary directory, against the gateway on loopback.
 */
import { spawn } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { withSignedInGateway, type SignedInGateway } from '../gateway/harness.ts';
import { TOOL_NAMES } from '../helpers/spec.ts';
import { MCP_PATH } from './client.ts';

let context: SignedInGateway;
withSignedInGateway((received) => (context = received));

const PACKAGE = resolve(import.meta.dirname, '../../node_modules/@modelcontextprotocol/inspector');
let launcher: string;
let home: string;

beforeAll(async () => {
  const { bin } = JSON.parse(await readFile(join(PACKAGE, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  launcher = join(PACKAGE, bin.inspector);
  home = join(context.fx.dir, 'inspector-home');
  await mkdir(home);
});

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `inspector --cli <url> --transport http ...args`, to completion. */
function inspector(args: string[]): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [launcher, '--cli', `${context.gw.url}${MCP_PATH}`, '--transport', 'http', ...args], {
      env: {
        ...process.env,
        HOME: home,
        MCP_CATALOG_PATH: join(home, 'mcp.json'),
        MCP_CLIENT_CONFIG_PATH: join(home, 'client.json'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

/** A tools/call, its JSON result (`--format json`: `{"result": ...}` on stdout). */
async function call(tool: string, args: Record<string, unknown>): Promise<{ code: number | null; result: { isError?: boolean; structuredContent?: Record<string, unknown>; content: { type: string; text: string }[] } }> {
  const run = await inspector(['--method', 'tools/call', '--tool-name', tool, '--tool-args-json', JSON.stringify(args), '--format', 'json', '--quiet']);
  const output = JSON.parse(run.stdout) as { result?: unknown };
  if (!output.result) throw new Error(`inspector ${tool}: exit ${run.code}\n${run.stdout}\n${run.stderr}`);
  return { code: run.code, result: output.result as never };
}

describe('the MCP Inspector in CLI mode', () => {
  it('lists the eight tools, with no error-severity schema portability problem (--strict)', async () => {
    const run = await inspector(['--method', 'tools/list', '--format', 'json', '--quiet']);
    expect(run.code, run.stderr).toBe(0);
    const { result } = JSON.parse(run.stdout) as { result: { tools: { name: string }[] } };
    expect(result.tools.map((tool) => tool.name).sort()).toEqual([...TOOL_NAMES].sort());
    // --strict exits 6 when a tool's schema has an error-severity problem (warnings are printed, not fatal).
    expect((await inspector(['--method', 'tools/list', '--strict', '--quiet'])).code).toBe(0);
  });

  it('takes a key=value argument as docs/mcp.md shows it', async () => {
    const run = await inspector(['--method', 'tools/call', '--tool-name', 'get_package', '--tool-arg', 'name=zlib', '--format', 'json', '--quiet']);
    expect(run.code, run.stderr).toBe(0);
    const { result } = JSON.parse(run.stdout) as { result: { structuredContent: { package: { name: string } } } };
    expect(result.structuredContent.package.name).toBe('zlib');
  });

  it.each([
    ['search_packages', { query: 'plugin', limit: 2 }, (content: Record<string, unknown>) => expect(content).toMatchObject({ total: 30, offset: 0 })],
    ['get_package', { name: 'CURL' }, (content: Record<string, unknown>) => expect(content).toMatchObject({ package: { name: 'curl', version: '8.1.0' } })],
    ['get_package_versions', { name: 'sqlite' }, (content: Record<string, unknown>) => expect((content.versions as unknown[]).length).toBe(7)],
    ['get_advisories', { name: 'openssl', include_transitive: false }, (content: Record<string, unknown>) => expect((content.advisories as { id: string }[]).map((advisory) => advisory.id)).toEqual(['PKGCAT-TEST-0002'])],
    ['get_dependencies', { name: 'curl' }, (content: Record<string, unknown>) => expect((content.dependencies as { name: string }[]).map((dependency) => dependency.name)).toEqual(['cmake', 'openssl', 'zlib'])],
    ['get_sbom', { name: 'curl', format: 'spdx' }, (content: Record<string, unknown>) => expect(content.spdxVersion).toBe('SPDX-2.3')],
    ['list_catalog_commits', { limit: 3 }, (content: Record<string, unknown>) => expect((content.commits as { sha: string }[])[0].sha).toBe(context.fx.tip)],
  ] as const)('calls %s', async (tool, args, check) => {
    const { code, result } = await call(tool, args);
    expect({ code, isError: result.isError ?? false }).toEqual({ code: 0, isError: false });
    expect(result.structuredContent).toEqual(JSON.parse(result.content[0].text));
    check(result.structuredContent!);
  });

  it('calls diff_catalog, which answers with an error result (the CLI exits non-zero for one)', async () => {
    const { code, result } = await call('diff_catalog', { sha: context.fx.tip, base: context.fx.shas[0] });
    expect(code).not.toBe(0);
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toMatch(/signed-in session/);
  });
});
