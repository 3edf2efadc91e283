/**
 * The eight tools (SPEC.md "Tool server", Tools and Tool rules; DECISIONS.md 1, 2, 9), called with
 * the MCP SDK's own Client over streamable HTTP against the gateway fixture (tests/gateway/fixtures.ts):
 * each tool's success, checked against the HTTP surface it mirrors byte for byte where SPEC.md says
 * "same payload"; each failure an `isError` result whose message says what to do; protocol errors
 * only for an unknown tool and arguments that break the input schema; and a new commit seen by the
 * next call.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalog } from '../../build/build.ts';
import { appendCommits } from '../../demo/catalog-writer.ts';
import { wireProblems, type WireName } from '../../src/schemas/wire.ts';
import { AT, hour, pkg, sharedPrefixes } from '../gateway/fixtures.ts';
import { send, startGateway, unusedPrefix, withSignedInGateway, type SignedInGateway } from '../gateway/harness.ts';
import { SCHEMA_VERSION, TOOL_NAMES } from '../helpers/spec.ts';
import { connect, textOf, type Connected } from './client.ts';

let context: SignedInGateway;
withSignedInGateway((received) => (context = received));

let mcp: Connected;
let tools: Tool[];
beforeAll(async () => {
  mcp = await connect(context.gw.url);
  tools = (await mcp.client.listTools()).tools;
});
afterAll(async () => {
  await mcp?.close();
});

/** An HTTP body as the gateway sends it (signed in, for the sha-pinned ones). */
async function httpBody(path: string): Promise<string> {
  const reply = await send(context.gw.url, path, { headers: { cookie: context.cookie } });
  expect(reply.status, path).toBe(200);
  return reply.body.toString('utf8');
}

/** A successful call: one text block, the same JSON as structuredContent (SPEC.md "Tool server" 6); the text. */
async function success(name: string, args: Record<string, unknown> = {}, wire?: WireName): Promise<string> {
  const result = await mcp.call(name, args);
  expect(result.isError ?? false, `${name} ${JSON.stringify(args)}: ${JSON.stringify(result.content)}`).toBe(false);
  const text = textOf(result);
  expect(result.structuredContent).toEqual(JSON.parse(text));
  if (wire) expect(wireProblems(wire, result.structuredContent)).toBeNull();
  return text;
}

/** A failed call: an `isError` result with one text block and no structuredContent; the message. */
async function failure(name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result: CallToolResult = await mcp.call(name, args);
  expect(result.isError, `${name} ${JSON.stringify(args)} should fail`).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  return textOf(result);
}

/** A protocol error: the call is refused with JSON-RPC `code`. */
async function protocolError(name: string, args: Record<string, unknown>, code: number): Promise<string> {
  const error = await mcp.call(name, args).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(McpError);
  expect((error as McpError).code).toBe(code);
  return (error as McpError).message;
}

const tip = () => context.fx.tip;
const importSha = () => context.fx.shas[AT.import];
const json = <T>(text: string) => JSON.parse(text) as T;

describe('tools/list', () => {
  it('lists the eight tools of SPEC.md, all read-only, each with a strict object input schema', () => {
    expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOL_NAMES].sort());
    for (const tool of tools) {
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
      expect(tool.inputSchema, tool.name).toMatchObject({ type: 'object', additionalProperties: false });
      expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(100);
    }
  });

  it('gives every tool but get_sbom (an external format) an output schema made from the wire schemas', () => {
    const withOutput = tools.filter((tool) => tool.outputSchema).map((tool) => tool.name);
    expect(withOutput.sort()).toEqual(TOOL_NAMES.filter((name) => name !== 'get_sbom').sort());
    const getPackage = tools.find((tool) => tool.name === 'get_package')!;
    expect(getPackage.outputSchema).toMatchObject({ type: 'object', required: ['schemaVersion', 'commitSha', 'pushedAt', 'package'] });
  });

  it('states the limits in the input schemas', () => {
    const properties = (name: string) => tools.find((tool) => tool.name === name)!.inputSchema.properties as Record<string, { default?: unknown; description?: string; enum?: unknown }>;
    expect(properties('search_packages').limit).toMatchObject({ default: 20 });
    expect(properties('search_packages').limit.description).toContain('1 to 50');
    expect(properties('search_packages').severity.enum).toEqual(['critical', 'high', 'medium', 'low', 'unknown']);
    expect(properties('list_catalog_commits').limit).toMatchObject({ default: 30 });
    expect(properties('get_sbom').format).toMatchObject({ default: 'cyclonedx', enum: ['cyclonedx', 'spdx'] });
  });
});

describe('get_package', () => {
  it('is the /api/pkgs/{name}.json envelope byte for byte, in any letter case', async () => {
    for (const [asked, canonical] of [['zlib', 'zlib'], ['ZLIB', 'zlib'], ['sqlite', 'SQLite'], ['llama.cpp', 'llama.cpp'], ['curl', 'curl']]) {
      expect(await success('get_package', { name: asked }, 'PackageEnvelope'), asked).toBe(await httpBody(`/api/pkgs/${canonical}.json`));
    }
  });

  it('answers a name shadowed by a fixed route (DECISIONS.md 4) with the record of the full bundle', async () => {
    const envelope = json<{ commitSha: string; package: unknown }>(await success('get_package', { name: 'bundle' }, 'PackageEnvelope'));
    const full = json<{ packages: { name: string }[] }>(await httpBody(`/api/pkgs/bundle/${tip()}/full.json`));
    expect(envelope.commitSha).toBe(tip());
    expect(envelope.package).toEqual(full.packages.find((record) => record.name === 'bundle'));
  });

  it('answers an unknown name with the closest names, or with how to search', async () => {
    expect(await failure('get_package', { name: 'zlibb' })).toMatch(/No package named "zlibb" .*Closest names: zlib\./);
    expect(await failure('get_package', { name: 'openss' })).toMatch(/Closest names: openssl\b/);
    expect(await failure('get_package', { name: 'plugin-7' })).toMatch(/Closest names: plugin-07, /);
    expect(await failure('get_package', { name: 'leftpad' })).toMatch(/No package named "leftpad"/);
    expect(await failure('get_package', { name: 'nothing like it' })).toMatch(/Call search_packages/);
  });

  it('answers any sha with the HTTP URL of the pinned body and the session it needs', async () => {
    const old = importSha();
    for (const sha of [old, old.slice(0, 9), old.slice(0, 9).toUpperCase(), tip()]) {
      const message = await failure('get_package', { name: 'zlib', sha });
      const full = sha.toLowerCase().startsWith(old.slice(0, 9)) ? old : tip();
      expect(message).toMatch(new RegExp(`Fetch https?://[^ ]+/api/pkgs/bundle/${full}/full\\.json `));
      expect(message).toMatch(/signed-in session/);
      expect(message).toMatch(/without `sha`/);
    }
  });

  it('answers a bad, unknown or ambiguous sha with what is wrong with it', async () => {
    const ambiguous = sharedPrefixes(context.fx.shas)[0][0].slice(0, 7);
    expect(await failure('get_package', { name: 'zlib', sha: ambiguous })).toMatch(/is a prefix of 2 commits of main: give more of its hex characters/);
    expect(await failure('get_package', { name: 'zlib', sha: unusedPrefix(context.fx.shas) })).toMatch(/is no commit of the catalog's main branch\. list_catalog_commits/);
    expect(await failure('get_package', { name: 'zlib', sha: 'main' })).toMatch(/must be 7 to 40 hex characters/);
    expect(await failure('get_package', { name: 'zlib', sha: 'abc12' })).toMatch(/must be 7 to 40 hex characters/);
  });
});

describe('get_package_versions and get_dependencies', () => {
  it('are the sha-pinned versions.json and deps.json at the latest commit, byte for byte', async () => {
    for (const name of ['curl', 'ticker', 'SQLite', 'diff']) {
      expect(await success('get_package_versions', { name: name.toUpperCase() }, 'VersionHistory'), name).toBe(await httpBody(`/api/pkgs/bundle/${tip()}/${name}/versions.json`));
      expect(await success('get_dependencies', { name }, 'Dependencies'), name).toBe(await httpBody(`/api/pkgs/bundle/${tip()}/${name}/deps.json`));
    }
  });

  it('keep the history of a removed package, as the pinned endpoint does; its dependencies are gone', async () => {
    expect(await success('get_package_versions', { name: 'leftpad' })).toBe(await httpBody(`/api/pkgs/bundle/${tip()}/leftpad/versions.json`));
    expect(await failure('get_dependencies', { name: 'leftpad' })).toMatch(/No package named "leftpad"/);
  });

  it('answer unknown names with the closest names', async () => {
    expect(await failure('get_package_versions', { name: 'tickr' })).toMatch(/Closest names: ticker\./);
    expect(await failure('get_dependencies', { name: 'cur1' })).toMatch(/Closest names: curl\./);
    expect(await failure('get_dependencies', { name: '../etc' })).toMatch(/No package named "..\/etc"/);
  });

  it('answer a sha with the pinned URL, once the package is there at that commit', async () => {
    const old = importSha();
    expect(await failure('get_dependencies', { name: 'CURL', sha: old.slice(0, 10) })).toMatch(new RegExp(`Fetch https?://[^ ]+/api/pkgs/bundle/${old}/curl/deps\\.json `));
    expect(await failure('get_package_versions', { name: 'zlib', sha: old })).toMatch(new RegExp(`/api/pkgs/bundle/${old}/zlib/versions\\.json `));
    expect(await failure('get_dependencies', { name: 'leftpad', sha: old })).toMatch(new RegExp(`No package named "leftpad" at commit ${old.slice(0, 12)}\\.`));
  });
});

describe('get_advisories', () => {
  it('gives the direct advisories and the transitive ones unless include_transitive is false', async () => {
    // The fixture's tip: PKGCAT-TEST-0002 is active on openssl, which curl depends on.
    const all = json<Record<string, unknown>>(await success('get_advisories', { name: 'Curl' }, 'AdvisoriesResult'));
    expect(all).toEqual({
      schemaVersion: SCHEMA_VERSION,
      commitSha: tip(),
      pushedAt: expect.any(String),
      name: 'curl',
      advisories: [],
      transitiveAdvisories: [{ advisoryId: 'PKGCAT-TEST-0002', culpritPath: ['curl', 'openssl'] }],
    });
    const direct = json<Record<string, unknown>>(await success('get_advisories', { name: 'curl', include_transitive: false }, 'AdvisoriesResult'));
    expect(Object.keys(direct)).not.toContain('transitiveAdvisories');
    const openssl = json<{ advisories: { id: string; severity: string; fixedIn: string[] }[]; transitiveAdvisories: unknown[] }>(await success('get_advisories', { name: 'openssl' }));
    expect(openssl.advisories.map(({ id, severity, fixedIn }) => ({ id, severity, fixedIn }))).toEqual([{ id: 'PKGCAT-TEST-0002', severity: 'medium', fixedIn: ['3.0.1'] }]);
    expect(openssl.transitiveAdvisories).toEqual([]);
    expect(json<{ transitiveAdvisories: unknown[] }>(await success('get_advisories', { name: 'plugin-07' })).transitiveAdvisories).toEqual([
      { advisoryId: 'PKGCAT-TEST-0002', culpritPath: ['plugin-07', 'curl', 'openssl'] },
    ]);
    expect(await failure('get_advisories', { name: 'zlip' })).toMatch(/Closest names: zlib\./);
  });
});

describe('get_sbom', () => {
  it('is the HTTP SBOM, byte for byte, in either format', async () => {
    expect(await success('get_sbom', { name: 'curl' })).toBe(await httpBody('/api/pkgs/curl/sbom.json'));
    expect(await success('get_sbom', { name: 'Curl', format: 'cyclonedx' })).toBe(await httpBody('/api/pkgs/curl/sbom.json'));
    expect(await success('get_sbom', { name: 'curl', format: 'spdx' })).toBe(await httpBody('/api/pkgs/curl/sbom.json?format=spdx'));
    expect(await success('get_sbom', { name: 'bundle' })).toBe(await httpBody(`/api/pkgs/bundle/${tip()}/bundle/sbom.json`));
  });

  it('answers a sha with the pinned SBOM URL, format kept', async () => {
    const old = importSha();
    expect(await failure('get_sbom', { name: 'curl', sha: old, format: 'spdx' })).toMatch(new RegExp(`/api/pkgs/bundle/${old}/curl/sbom\\.json\\?format=spdx `));
    expect(await failure('get_sbom', { name: 'curl', sha: old })).toMatch(new RegExp(`/api/pkgs/bundle/${old}/curl/sbom\\.json `));
    expect(await failure('get_sbom', { name: 'curll' })).toMatch(/Closest names: curl\./);
  });
});

interface Search {
  schemaVersion: number;
  commitSha: string;
  total: number;
  offset: number;
  packages: { name: string }[];
}
const search = async (args: Record<string, unknown>) => json<Search>(await success('search_packages', args, 'SearchResult'));
const names = (result: Search) => result.packages.map((hit) => hit.name);

describe('search_packages', () => {
  it('lists every package by name without arguments, 20 at a time, with small listing-tier records', async () => {
    const first = await search({});
    expect({ commitSha: first.commitSha, total: first.total, offset: first.offset, count: first.packages.length }).toEqual({ commitSha: tip(), total: 39, offset: 0, count: 20 });
    expect(names(first).slice(0, 6)).toEqual(['bundle', 'curl', 'diff', 'ggml', 'llama.cpp', 'openssl']);
    expect(Object.keys(first.packages[0]).sort()).toEqual(['advisories', 'categories', 'license', 'maxSeverity', 'name', 'version']);
    const rest = await search({ offset: 20, limit: 50 });
    expect(rest.packages.length).toBe(19);
    expect(names(rest).slice(-3)).toEqual(['SQLite', 'ticker', 'zlib']);
  });

  it('matches every word in the name or the description, case-insensitively, best name matches first', async () => {
    // SQLite and zlib hold "li" in their names; curl only in its description ("library").
    expect(names(await search({ query: 'LI' }))).toEqual(['SQLite', 'zlib', 'curl']);
    expect(names(await search({ query: 'curl' }))).toEqual(['curl']);
    expect(names(await search({ query: 'plugin-01' }))).toEqual(['plugin-01']);
    expect(names(await search({ query: 'fixture plugin-0' }))).toEqual(['plugin-01', 'plugin-02', 'plugin-03', 'plugin-04', 'plugin-05', 'plugin-06', 'plugin-07', 'plugin-08', 'plugin-09']);
    expect(names(await search({ query: 'protocols library' }))).toEqual(['curl']);
    expect((await search({ query: 'protocols nowhere' })).total).toBe(0);
  });

  it('filters by category (any of a package\'s, any case), and says which categories exist', async () => {
    expect(names(await search({ category: 'ML' }))).toEqual(['ggml', 'llama.cpp']);
    expect(names(await search({ category: 'ml', query: 'llama' }))).toEqual(['llama.cpp']);
    expect(await failure('search_packages', { category: 'mll' })).toMatch(/No package has the category "mll".*Closest categories: ml\./);
  });

  it('pages through `total` matches with limit and offset', async () => {
    const pages = [await search({ query: 'plugin', limit: 20 }), await search({ query: 'plugin', limit: 20, offset: 20 }), await search({ query: 'plugin', offset: 30 })];
    expect(pages.map((page) => [page.total, page.packages.length])).toEqual([[30, 20], [30, 10], [30, 0]]);
    expect(pages.flatMap(names)).toEqual(Array.from({ length: 30 }, (_, index) => `plugin-${String(index + 1).padStart(2, '0')}`));
    expect((await search({ query: 'plugin', limit: 50 })).packages.length).toBe(30);
    expect((await search({ query: 'plugin', limit: 1 })).packages.length).toBe(1);
  });

  it('answers a limit or offset out of range with the range', async () => {
    expect(await failure('search_packages', { limit: 0 })).toBe('`limit` must be an integer from 1 to 50 (default 20); got 0.');
    expect(await failure('search_packages', { limit: 51 })).toBe('`limit` must be an integer from 1 to 50 (default 20); got 51.');
    expect(await failure('search_packages', { offset: -1 })).toBe('`offset` must be an integer 0 or more (default 0); got -1.');
    expect(await failure('search_packages', { query: 'plugin', offset: 31 })).toBe('`offset` 31 is past the last match: there are 30, so `offset` runs from 0 to 30.');
  });
});

describe('list_catalog_commits', () => {
  it('is the recent commits of the HTTP surface, 30 by default, up to 50', async () => {
    for (const [args, query] of [[{}, ''], [{ limit: 50 }, '?limit=50'], [{ limit: 1 }, '?limit=1']] as const) {
      const result = json<{ schemaVersion: number; commits: unknown[] }>(await success('list_catalog_commits', args, 'CommitsResult'));
      expect(result).toEqual({ schemaVersion: SCHEMA_VERSION, commits: JSON.parse(await httpBody(`/api/pkgs/recent-commits.json${query}`)) });
    }
  });

  it('answers a limit out of range with the range', async () => {
    expect(await failure('list_catalog_commits', { limit: 0 })).toBe('`limit` must be an integer from 1 to 50 (default 30); got 0.');
    expect(await failure('list_catalog_commits', { limit: 51 })).toBe('`limit` must be an integer from 1 to 50 (default 30); got 51.');
  });
});

describe('diff_catalog', () => {
  it('always answers with an error that gives the HTTP URL of the diff', async () => {
    const message = await failure('diff_catalog', { sha: tip().slice(0, 12), base: importSha() });
    expect(message).toMatch(new RegExp(`Fetch https?://[^ ]+/api/pkgs/bundle/${tip()}/diff/${importSha()}\\.json over HTTP with a signed-in session`));
    expect(message).toMatch(/list_catalog_commits/);
  });

  it('says which commit is wrong', async () => {
    expect(await failure('diff_catalog', { sha: tip(), base: unusedPrefix(context.fx.shas) })).toMatch(/^`base` "[0-9a-f]{7}" is no commit/);
    expect(await failure('diff_catalog', { sha: 'HEAD', base: importSha() })).toMatch(/^`sha` must be 7 to 40 hex characters/);
  });
});

describe('protocol errors', () => {
  it('refuse an unknown tool, naming the tools', async () => {
    expect(await protocolError('get_packages', { name: 'zlib' }, -32602)).toMatch(/Unknown tool: get_packages\. The tools are search_packages, get_package, /);
  });

  it('refuse arguments that break the input schema: a wrong type, a missing or an unknown argument', async () => {
    expect(await protocolError('get_package', { name: 3 }, -32602)).toMatch(/Invalid arguments for tool get_package: .*expected string/s);
    expect(await protocolError('get_package', {}, -32602)).toMatch(/name/);
    expect(await protocolError('get_package', { name: 'zlib', version: '1.3.2' }, -32602)).toMatch(/version/);
    expect(await protocolError('search_packages', { limit: '20' }, -32602)).toMatch(/limit/);
    expect(await protocolError('search_packages', { limit: 2.5 }, -32602)).toMatch(/limit/);
    expect(await protocolError('search_packages', { severity: 'HIGH' }, -32602)).toMatch(/critical.*high/s);
    expect(await protocolError('diff_catalog', { sha: tip() }, -32602)).toMatch(/base/);
  });
});

describe('a new commit', () => {
  it('is seen by the next call', async () => {
    const [newTip] = await appendCommits(context.fx.repo, [
      {
        message: 'Publish PKGCAT-TEST-0003 for curl\n',
        time: hour(200),
        files: {
          ...pkg('plugin-31', '0.1.0', { dependencies: { runtime: ['plugin-01'] } }),
          'advisories/PKGCAT-TEST-0003.json': {
            id: 'PKGCAT-TEST-0003',
            modified: '2026-01-09T00:00:00Z',
            published: '2026-01-09T00:00:00Z',
            summary: 'Header injection (fixture)',
            affected: [{ package: { name: 'curl' }, versions: ['8.1.0'] }],
            database_specific: { severity: 'CRITICAL' },
          },
        },
      },
    ]);
    await buildCatalog({ repo: context.fx.repo, out: context.fx.out, progress: false, log: () => {} });

    // The same client and connection: each call reads the release published when it arrives.
    expect(json<{ commits: { sha: string }[] }>(await success('list_catalog_commits', { limit: 1 })).commits[0].sha).toBe(newTip);
    expect(json<{ commitSha: string }>(await success('get_package', { name: 'curl' })).commitSha).toBe(newTip);
    expect(await success('get_package', { name: 'plugin-31' })).toBe(await httpBody('/api/pkgs/plugin-31.json'));
    const critical = await search({ severity: 'critical' });
    expect({ commitSha: critical.commitSha, names: names(critical) }).toEqual({ commitSha: newTip, names: ['curl'] });
    expect(names(await search({ severity: 'medium' }))).toEqual(['openssl']);
    const transitive = json<{ transitiveAdvisories: { advisoryId: string }[] }>(await success('get_advisories', { name: 'plugin-31' })).transitiveAdvisories;
    expect([...transitive].sort((a, b) => a.advisoryId.localeCompare(b.advisoryId))).toEqual([
      { advisoryId: 'PKGCAT-TEST-0002', culpritPath: ['plugin-31', 'plugin-01', 'curl', 'openssl'] },
      { advisoryId: 'PKGCAT-TEST-0003', culpritPath: ['plugin-31', 'plugin-01', 'curl'] },
    ]);
    expect(json<{ advisories: { id: string }[] }>(await success('get_advisories', { name: 'curl' })).advisories.map((advisory) => advisory.id)).toEqual(['PKGCAT-TEST-0003']);
  });
});

describe('before anything is published', () => {
  it('answers every tool with an error saying the data is not there yet', async () => {
    const out = join(context.fx.dir, 'empty-out');
    await mkdir(out);
    const gateway = await startGateway(out, join(context.fx.dir, 'empty-gateway'));
    const empty = await connect(gateway.url);
    try {
      const calls: [string, Record<string, unknown>][] = [
        ['search_packages', {}],
        ['get_package', { name: 'zlib' }],
        ['get_package_versions', { name: 'zlib' }],
        ['get_advisories', { name: 'zlib' }],
        ['get_dependencies', { name: 'zlib' }],
        ['get_sbom', { name: 'zlib' }],
        ['list_catalog_commits', {}],
        ['diff_catalog', { sha: tip(), base: importSha() }],
      ];
      expect(calls.map(([name]) => name).sort()).toEqual([...TOOL_NAMES].sort());
      for (const [name, args] of calls) {
        const result = await empty.call(name, args);
        expect({ name, isError: result.isError, text: textOf(result) }).toEqual({
          name,
          isError: true,
          text: 'No catalog state is published yet: the first build of the catalog has not finished. Try the same call again in a minute.',
        });
      }
    } finally {
      await empty.close();
      await gateway.close();
    }
  });
});
