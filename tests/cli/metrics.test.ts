/**
 * `/metrics`, as an operator's Prometheus meets it: `pkgcat serve --repo --metrics-port` builds a
 * small catalog (one commit with a broken manifest) and serves it; after a few requests of each kind
 * the exposition counts them by route and status class, the build by its figures, the tool calls and
 * the sign-ins; Debian's `promtool check metrics` accepts it; a real Prometheus scraping the listener
 * answers a query for the request counter; and the gateway's own port (what a proxy forwards, what a
 * static host mirrors) has no `/metrics`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalogRepo } from '../../demo/catalog-writer.ts';
import { startServeProcess, type ServeProcess } from '../../bench/helpers/serve-process.ts';
import { hoursLater, manifest, publicFiles, temporaryDirectory } from '../helpers/catalog.ts';
import { cleanEnv, pkgcat } from './run.ts';

const PROMTOOL = '/usr/bin/promtool';
const PROMETHEUS = '/usr/bin/prometheus';
const NO_PROMETHEUS = `${PROMETHEUS} or ${PROMTOOL} is not installed, so the Prometheus tests are SKIPPED (apt-get install -y prometheus, as .ci/run does)`;
const HAS_PROMETHEUS = existsSync(PROMTOOL) && existsSync(PROMETHEUS);
if (!HAS_PROMETHEUS) console.warn(`metrics.test.ts: ${NO_PROMETHEUS}`);

/** A free loopback port (Prometheus takes a fixed one). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The value of the sample `series` (name and labels exactly as exposed), or undefined. */
function sample(exposition: string, series: string): number | undefined {
  const line = exposition.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const mcpCall = (url: string, name: string, args: Record<string, unknown>) =>
  fetch(`${url}/api/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });

describe('GET /metrics on the metrics listener', () => {
  let dir: string;
  let out: string;
  let serve: ServeProcess;
  let metricsUrl: string;
  let exposition: string;

  beforeAll(async () => {
    dir = await temporaryDirectory();
    out = join(dir, 'out');
    const repo = join(dir, 'catalog');
    await createCatalogRepo(repo, [
      { message: 'zlib', time: hoursLater(0), files: { 'packages/zlib/manifest.json': manifest('zlib') } },
      { message: 'broken', time: hoursLater(1), files: { 'packages/bad/manifest.json': 'not json' } },
    ]);
    serve = await startServeProcess(['--out', out, '--repo', repo, '--session-dir', join(dir, 'sessions'), '--metrics-port', '0'], cleanEnv());
    metricsUrl = `${(await serve.waitForLog(/^pkgcat: metrics for Prometheus on (http:\S+)\/metrics$/m))[1]}/metrics`;
    await serve.waitForLog(/^pkgcat: built 2 new of 2 commits/m);

    // What the counters below count: two records, one unknown name, a HEAD, a compressed body, the
    // health check, a path nothing answers, two tool calls and a failed sign-in.
    for (const path of ['/api/pkgs/zlib.json', '/api/pkgs/zlib.json', '/api/pkgs/nope.json', '/healthz', '/no/such/path']) await (await fetch(`${serve.url}${path}`)).arrayBuffer();
    await (await fetch(`${serve.url}/api/pkgs/zlib.json`, { method: 'HEAD' })).arrayBuffer();
    await (await fetch(`${serve.url}/llms-full.txt`, { headers: { 'accept-encoding': 'gzip' } })).arrayBuffer();
    const isError = async (reply: Promise<Response>) => ((await (await reply).json()) as { result: { isError?: boolean } }).result.isError;
    expect(await isError(mcpCall(serve.url, 'get_package', { name: 'zlib' }))).toBeUndefined();
    expect(await isError(mcpCall(serve.url, 'get_package', { name: 'nope' }))).toBe(true);
    const signIn = await fetch(`${serve.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'alice', password: 'not-her-password' }) });
    expect(signIn.status).toBe(401);
    const reply = await fetch(metricsUrl);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    exposition = await reply.text();
  }, 120_000);

  afterAll(async () => {
    await serve?.stop();
  });

  it('counts requests by registry row, method and status class, never by path', () => {
    expect(sample(exposition, 'pkgcat_http_requests_total{route="package",method="GET",status_class="2xx"}')).toBe(2);
    expect(sample(exposition, 'pkgcat_http_requests_total{route="package",method="GET",status_class="4xx"}')).toBe(1);
    expect(sample(exposition, 'pkgcat_http_requests_total{route="package",method="HEAD",status_class="2xx"}')).toBe(1);
    expect(sample(exposition, 'pkgcat_http_requests_total{route="healthz",method="GET",status_class="2xx"}')).toBe(1);
    expect(sample(exposition, 'pkgcat_http_requests_total{route="unmatched",method="GET",status_class="4xx"}')).toBe(1);
    expect(sample(exposition, 'pkgcat_http_requests_total{route="tool-server",method="POST",status_class="2xx"}')).toBe(2);
    expect(sample(exposition, 'pkgcat_http_request_duration_seconds_count{route="package"}')).toBe(4);
    expect(exposition).not.toMatch(/zlib|nope|no\/such/);
  });

  it('counts the body bytes by encoding', () => {
    expect(sample(exposition, 'pkgcat_http_response_body_bytes_total{encoding="gzip"}')).toBeGreaterThan(0);
    expect(sample(exposition, 'pkgcat_http_response_body_bytes_total{encoding="identity"}')).toBeGreaterThan(0);
  });

  it('counts tool calls by tool and result, and sign-ins by outcome', () => {
    expect(sample(exposition, 'pkgcat_mcp_tool_calls_total{tool="get_package",result="success"}')).toBe(1);
    expect(sample(exposition, 'pkgcat_mcp_tool_calls_total{tool="get_package",result="error"}')).toBe(1);
    expect(sample(exposition, 'pkgcat_sign_ins_total{outcome="rejected"}')).toBe(1);
    expect(sample(exposition, 'pkgcat_session_store_up{store="sqlite"}')).toBe(1);
  });

  it("carries the build's figures from the build process", () => {
    expect(sample(exposition, 'pkgcat_builds_total{result="published"}')).toBe(1);
    expect(sample(exposition, 'pkgcat_build_duration_seconds_count')).toBe(1);
    expect(sample(exposition, 'pkgcat_build_commits_composed_total')).toBe(2);
    // layout.json, the release's five files (release.json, chain.json, names.json, diagnostics.json, manifest.json), a checkpoint.
    expect(sample(exposition, 'pkgcat_build_files_written_total')).toBeGreaterThanOrEqual(7);
    expect(sample(exposition, 'pkgcat_build_written_bytes_total')).toBeGreaterThan(1000);
    expect(sample(exposition, 'pkgcat_build_diagnostics_total{level="error"}')).toBe(1);
    expect(sample(exposition, 'pkgcat_build_last_failed')).toBe(0);
  });

  it('tells the age of the release, its tip commit time, the caches and the process', () => {
    expect(sample(exposition, 'pkgcat_release_available')).toBe(1);
    expect(sample(exposition, 'pkgcat_release_age_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(exposition, 'pkgcat_release_tip_commit_timestamp_seconds')).toBe(Date.parse(hoursLater(1)) / 1000);
    expect(sample(exposition, 'pkgcat_release_commits')).toBe(2);
    expect(sample(exposition, 'pkgcat_cache_max_bytes{cache="bodies"}')).toBeGreaterThan(0);
    expect(sample(exposition, 'pkgcat_cache_hits_total{cache="files"}')).toBeGreaterThan(0);
    expect(sample(exposition, 'process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(exposition).toMatch(/^nodejs_heap_size_used_bytes \d+/m);
  });

  it('is not on the gateway port, and no release has a file of it', async () => {
    const reply = await fetch(`${serve.url}/metrics`);
    expect(reply.status).toBe(404);
    expect(await reply.json()).toEqual({ error: 'not_found', message: 'Nothing is served at this path.' });
    expect([...(await publicFiles(out)).keys()].filter((file) => /metrics/.test(file))).toEqual([]);
  });

  it('is the only thing the metrics listener answers', async () => {
    const other = await fetch(new URL('/healthz', metricsUrl));
    expect(other.status).toBe(404);
    expect(await other.text()).toBe('Not found: this listener answers GET /metrics only.\n');
    const post = await fetch(metricsUrl, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it.skipIf(!HAS_PROMETHEUS)("is accepted by promtool check metrics", () => {
    const checked = spawnSync(PROMTOOL, ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
    expect({ status: checked.status, stdout: checked.stdout, stderr: checked.stderr }).toEqual({ status: 0, stdout: '', stderr: '' });
  });

  it.skipIf(!HAS_PROMETHEUS)('is scraped by a real Prometheus, whose query API returns the request counter', async () => {
    const port = await freePort();
    const target = new URL(metricsUrl).host;
    const config = join(dir, 'prometheus.yml');
    await writeFile(config, ['global:', '  scrape_interval: 1s', 'scrape_configs:', '  - job_name: pkgcat', '    static_configs:', `      - targets: ['${target}']`, ''].join('\n'));
    const prometheus: ChildProcess = spawn(PROMETHEUS, [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'tsdb')}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: 'ignore' });
    try {
      const query = `${`http://127.0.0.1:${port}`}/api/v1/query?query=${encodeURIComponent('pkgcat_http_requests_total{job="pkgcat",route="package",method="GET",status_class="2xx"}')}`;
      const value = async () => {
        try {
          const body = (await (await fetch(query)).json()) as { status: string; data: { result: { value: [number, string] }[] } };
          return body.data.result[0]?.value[1] ?? null;
        } catch {
          return null; // Not listening yet.
        }
      };
      await expect.poll(value, { timeout: 60_000, interval: 500 }).toBe('2');
    } finally {
      prometheus.kill('SIGTERM');
      await new Promise((done) => (prometheus.exitCode !== null ? done(null) : prometheus.once('exit', done)));
    }
  }, 90_000);
});

describe('a metrics port that is taken', () => {
  it('ends serve with one line naming the metrics flags', async () => {
    const taken = createServer();
    const port = await new Promise<number>((resolve) => taken.listen(0, '127.0.0.1', () => resolve((taken.address() as { port: number }).port)));
    try {
      const dir = await temporaryDirectory();
      const result = await pkgcat(['serve', '--out', join(dir, 'out'), '--session-dir', join(dir, 'sessions'), '--port', '0', '--metrics-port', String(port)]);
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr: `pkgcat: cannot listen on 127.0.0.1:${port}: another process is using that port; stop it, or choose another --metrics-port (or PKGCAT_METRICS_PORT)\n`,
      });
    } finally {
      await new Promise((done) => taken.close(done));
    }
  });
});
