/**
 * The OpenAPI document itself (src/compose/openapi.ts), as the demo catalog's build writes it and
 * the gateway serves it: a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator), with
 * no lint error (@redocly/cli, redocly.yaml), whose path set is SPEC.md's JSON endpoints table and
 * the registry's JSON API rows, whose parameters, headers and security say what SPEC.md says, and
 * whose every response of a served route carries an example its schema accepts.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SURFACES } from '../../src/surfaces/registry.ts';
import { exampleValues, type OpenApiDocument } from '../../src/compose/openapi.ts';
import { send } from '../gateway/harness.ts';
import { CACHE_CONTROL, JSON_API_ROUTES, SCHEMA_VERSION, SHA_PINNED_ROUTES } from '../helpers/spec.ts';
import { demoCatalog, type ServedCatalog } from './catalogs.ts';
import { DocumentValidator } from './document.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

let c: ServedCatalog;
let text: string;
let document: OpenApiDocument;
let validator: DocumentValidator;
let dir: string;

beforeAll(async () => {
  c = await demoCatalog();
  const reply = await send(c.gw.url, '/api/pkgs/openapi.json');
  text = reply.body.toString('utf8');
  document = JSON.parse(text) as OpenApiDocument;
  validator = new DocumentValidator(document);
  dir = await mkdtemp(join(tmpdir(), 'pkgcat-openapi-'));
}, 120_000);

afterAll(async () => {
  await c?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const operations = () => Object.entries(document.paths).map(([path, item]) => [path, item.get] as const);

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document that refers to nothing outside itself', async () => {
    // The validator resolves internal references only: an external one is an error.
    const result = await new Validator().validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    const references = new Set<string>();
    const visit = (value: unknown): void => {
      if (Array.isArray(value)) return value.forEach(visit);
      if (typeof value !== 'object' || value === null) return;
      for (const [key, member] of Object.entries(value)) {
        if (key === '$ref' && typeof member === 'string') references.add(member);
        else visit(member);
      }
    };
    visit(document);
    expect([...references].filter((reference) => !reference.startsWith('#/'))).toEqual([]);
    expect(text).not.toContain('"$id"');
  });

  it('embeds the official CycloneDX 1.5 and SPDX 2.3 schemas as the SBOM bodies\' schemas', () => {
    const sbom = document.paths['/api/pkgs/{name}/sbom.json']!.get.responses['200']!.content!;
    expect(sbom['application/vnd.cyclonedx+json']!.schema.$ref).toBe('#/components/schemas/CycloneDxBom');
    expect(sbom['application/spdx+json']!.schema.$ref).toBe('#/components/schemas/SpdxDocument');
    const schemas = document.components.schemas as Record<string, { title?: string }>;
    expect(schemas.CycloneDxBom!.title).toBe('CycloneDX Software Bill of Materials Standard');
    expect(schemas.SpdxDocument!.title).toBe('SPDX 2.3');
    // Each definition is a component; CycloneDX's references to its two neighbour files point at their embedded copies.
    expect(JSON.stringify(schemas.CycloneDxBom)).toContain('"$ref":"#/components/schemas/CycloneDxBom.component"');
    expect(JSON.stringify(schemas['CycloneDxBom.license'])).toContain('"$ref":"#/components/schemas/CycloneDxSpdxLicenseId"');
    expect(JSON.stringify(schemas['CycloneDxBom.signature'])).toContain('"$ref":"#/components/schemas/CycloneDxJsf.signature"');
    // A CycloneDX document with a license id the SPDX list does not know is not accepted.
    const bad = { bomFormat: 'CycloneDX', specVersion: '1.5', components: [{ type: 'library', name: 'x', licenses: [{ license: { id: 'Not-A-License' } }] }] };
    expect(validator.problems(['/api/pkgs/{name}/sbom.json', 'get', 'responses', '200', 'content', 'application/vnd.cyclonedx+json', 'schema'], bad)).not.toBeNull();
    expect(validator.problems(['/api/pkgs/{name}/sbom.json', 'get', 'responses', '200', 'content', 'application/vnd.cyclonedx+json', 'schema'], { ...bad, components: [] })).toBeNull();
  });

  it('lints without an error under redocly.yaml, offline; the only warnings are defects of the official CycloneDX schema', async () => {
    const file = join(dir, 'openapi.json');
    await writeFile(file, text);
    // Offline, whatever the machine: a reference the linter tried to fetch would fail.
    const env = { ...process.env, NODE_USE_ENV_PROXY: '1', HTTP_PROXY: 'http://127.0.0.1:9', HTTPS_PROXY: 'http://127.0.0.1:9', NO_PROXY: '', REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
    const cli = join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
    const { stdout } = await run(process.execPath, [cli, 'lint', '--config', join(ROOT, 'redocly.yaml'), '--format=json', file], { cwd: ROOT, env }).catch(
      (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
    );
    const report = JSON.parse(stdout) as { totals: { errors: number }; problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[] };
    expect(report.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
    expect(report.totals.errors).toBe(0);
    // CycloneDX 1.5 gives single items as the `examples` of arrays, and has a `oneOf` of two
    // string schemas in its JSF file. The official files stay as published: these warnings, there
    // only, are accepted.
    const official = /^#\/components\/schemas\/(CycloneDxBom|CycloneDxJsf)\.\w+\//;
    for (const problem of report.problems) {
      expect(['no-invalid-schema-examples', 'no-illogical-composition-keywords'], problem.message).toContain(problem.ruleId);
      expect(problem.location[0]!.pointer).toMatch(official);
    }
  }, 60_000);

  it('has SPEC.md\'s twelve JSON routes as its path set, and the registry\'s JSON API rows, no more, no less', () => {
    const paths = Object.keys(document.paths).sort();
    expect(paths).toEqual([...JSON_API_ROUTES].sort());
    expect(paths).toEqual(SURFACES.filter((row) => row.openapi).map((row) => row.path).sort());
  });

  it('tracks schemaVersion in info.version (SPEC.md Versioning 2)', () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(document.info.version).toBe(`${SCHEMA_VERSION}.0.0`);
  });

  it('puts the session cookie on the six sha-pinned routes and on no other', () => {
    expect(document.components.securitySchemes).toEqual({
      session: expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'pkgcat.sid' }),
    });
    const guarded = operations().filter(([, operation]) => operation.security.length > 0).map(([path]) => path).sort();
    expect(guarded).toEqual([...SHA_PINNED_ROUTES].sort());
    for (const [path, operation] of operations()) {
      expect(operation.security, path).toEqual(SHA_PINNED_ROUTES.includes(path as never) ? [{ session: [] }] : []);
      // The gate comes after the sha: only a sha-pinned route answers 401.
      expect('401' in operation.responses, path).toBe(SHA_PINNED_ROUTES.includes(path as never));
    }
  });

  it('gives every path and query parameter its grammar (SPEC.md "Path parameter grammar", Limits)', () => {
    const schemaOf = (path: string, name: string) => validator.operation(path).parameters.find((parameter) => parameter.name === name) as { schema: object; required: boolean };
    for (const [path] of operations()) {
      for (const [, name] of path.matchAll(/\{(\w+)\}/g)) expect(schemaOf(path, name!)?.required, `${path} {${name}}`).toBe(true);
    }
    const names = ['/api/pkgs/{name}.json', 'get', 'parameters', '0', 'schema'];
    expect(validator.problems(names, 'llama.cpp')).toBeNull();
    expect(validator.problems(names, 'SQLite')).toBeNull();
    expect(validator.problems(names, '-dash-first')).not.toBeNull();
    expect(validator.problems(names, 'a/b')).not.toBeNull();
    const sha = ['/api/pkgs/bundle/{sha}.json', 'get', 'parameters', '0', 'schema'];
    expect(validator.problems(sha, 'a'.repeat(40))).toBeNull();
    expect(validator.problems(sha, 'abcdef1')).toBeNull();
    expect(validator.problems(sha, 'a'.repeat(39))).toBeNull();
    expect(validator.problems(sha, 'abcdef')).not.toBeNull();
    expect(validator.problems(sha, 'a'.repeat(41))).not.toBeNull();
    expect(validator.problems(sha, 'ABCDEF1')).not.toBeNull();
    expect(schemaOf('/api/pkgs/recent-commits.json', 'limit').schema).toEqual({ type: 'integer', default: 30, minimum: 1, maximum: 50 });
    expect(schemaOf('/api/pkgs/{name}/sbom.json', 'format').schema).toEqual({ type: 'string', enum: ['cyclonedx', 'spdx'], default: 'cyclonedx' });
    expect(schemaOf('/api/pkgs/{name}/badge.svg', 'metric').schema).toEqual({ type: 'string', enum: ['score', 'advisories'], default: 'score' });
  });

  it('states SPEC.md\'s Cache-Control of every success (Cache-Control per surface)', () => {
    const cacheOf = (path: string, status: string) => document.paths[path]!.get.responses[status]!.headers['Cache-Control']!.schema;
    for (const route of ['/api/pkgs/{name}.json', '/api/pkgs/{name}/sbom.json', '/api/pkgs/{name}/badge.svg']) {
      expect(cacheOf(route, '200')).toEqual({ type: 'string', const: CACHE_CONTROL.floating });
    }
    expect(cacheOf('/api/pkgs/recent-commits.json', '200')).toEqual({ type: 'string', enum: [CACHE_CONTROL.floating, CACHE_CONTROL.noStore] });
    expect(cacheOf('/api/pkgs/bundle/latest.json', '302')).toEqual({ type: 'string', const: CACHE_CONTROL.alias });
    expect(cacheOf('/api/pkgs/openapi.json', '200')).toEqual({ type: 'string', const: CACHE_CONTROL.openapi });
    for (const route of SHA_PINNED_ROUTES) {
      expect(cacheOf(route, '200')).toEqual({ type: 'string', const: CACHE_CONTROL.pinned });
      expect(cacheOf(route, '401')).toEqual({ type: 'string', const: CACHE_CONTROL.pinned });
      expect(cacheOf(route, '301')).toEqual({ type: 'string', enum: [CACHE_CONTROL.pinned, CACHE_CONTROL.longPrefixRedirect] });
      expect(document.paths[route]!.get.responses['200']!.headers.ETag?.required, route).toBe(true);
    }
  });

  it('has an example on every response of a served route, which its schema accepts', () => {
    const served = new Set(SURFACES.filter((row) => row.served).map((row) => row.path));
    const missing: string[] = [];
    const problems: string[] = [];
    for (const [path, operation] of operations()) {
      if (!served.has(path)) continue;
      for (const [status, response] of Object.entries(operation.responses)) {
        const at = [path, 'get', 'responses', status];
        if (!response.content) {
          if (Object.values(response.headers).every((header) => header.example === undefined)) missing.push(`${status} on ${path}`);
          continue;
        }
        for (const [type, media] of Object.entries(response.content)) {
          const examples = exampleValues(document, media);
          if (examples.length === 0) missing.push(`${status} ${type} on ${path}`);
          for (const example of examples) {
            const problem = validator.problems([...at, 'content', type, 'schema'], example);
            if (problem) problems.push(`${status} ${type} on ${path}: ${problem}`);
          }
        }
        for (const [name, header] of Object.entries(response.headers)) {
          const problem = header.example === undefined ? null : validator.problems([...at, 'headers', name, 'schema'], header.example);
          if (problem) problems.push(`${status} ${name} on ${path}: ${problem}`);
        }
      }
    }
    expect(missing).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('shows the SBOMs the routes serve: the floating CycloneDX and SPDX of the example package, shared with the pinned route', async () => {
    for (const [format, type] of [['cyclonedx', 'application/vnd.cyclonedx+json'], ['spdx', 'application/spdx+json']] as const) {
      const floating = document.paths['/api/pkgs/{name}/sbom.json']!.get.responses['200']!.content![type]!;
      const pinned = document.paths['/api/pkgs/bundle/{sha}/{name}/sbom.json']!.get.responses['200']!.content![type]!;
      expect(pinned.examples).toEqual(floating.examples);
      const [example] = exampleValues(document, floating);
      const served = await send(c.gw.url, `/api/pkgs/curl/sbom.json?format=${format}`);
      expect(example).toEqual(served.json());
    }
  });

  it('shows the demo catalog in its examples: the tip, and the package with the most to show', () => {
    const example = document.paths['/api/pkgs/{name}.json']!.get.responses['200']!.content!['application/json']!.example as { commitSha: string; package: { name: string } };
    expect(example.commitSha).toBe(c.shas.at(-1));
    expect(example.package.name).toBe('curl');
    // No host: the same document on every address (docs/openapi.md); the default site URL has the path /.
    expect(document.servers).toEqual([{ url: '/', description: expect.any(String) }]);
  });
});
