/**
 * The serving benchmark: throughput and latency of the gateway against the Node ceiling and nginx,
 * on loopback, in one run.
 *
 *   npm run bench -- serve --corpus-dir <dir>                       the vcpkg-300 corpus (about 3 minutes)
 *   npm run bench -- serve --corpus vcpkg-5000 --corpus-dir <dir>   a longer history (adds a 3-minute build)
 *   npm run bench -- serve --corpus-dir <dir> --duration 5 --cpu-prof
 *
 * It builds the corpus into the work directory and starts, each on its own loopback port:
 *
 *   gateway        `pkgcat serve --out` (a child process), a users file, a session cookie from POST /auth/login
 *   express        bench/bare-express.ts: Express 5's bare express.static with express-session over the
 *                  same files (the "Node ceiling")
 *   nginx          Debian's nginx serving pkgcat export's tree with its generated rules, and the same
 *                  output directory under /raw/ (the same files as the pinned answers, no gate)
 *   nginx+accel    nginx in front of a second `pkgcat serve --accel-redirect /_pkgcat`: the gateway decides,
 *                  nginx sends the bytes
 *
 * and runs `wrk -t2 -c64 -d10s --latency` against each for three requests: a small sha-pinned
 * JSON with the cookie (the deps.json of a package at the tip), a floats-latest package record,
 * and the largest full bundle with `Accept-Encoding: br`. Then, on the gateway and on nginx sending
 * the same bytes from files, the bundles a client without `Accept-Encoding` gets (issue 11): the
 * full bundle plain, and the tip's listing bundle plain and with br. Every target is checked first to answer
 * 200 with the expected bytes. The gateway's RSS (/proc/<pid>/status VmRSS) is read before the
 * load and after each run. Results go to bench/results/serve-<corpus>.json.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { addUser } from '../gateway/auth/users.ts';
import { exportRelease } from '../build/export.ts';
import { renderNginxAccelFront } from '../src/http/static-rules.ts';
import { currentReleaseId, lookupPackage, paths, readJson, readObject, readStateRoot, type StateRoot } from '../src/store/layout.ts';
import type { CommitInfo } from '../src/compose/types.ts';
import { fillTemplate, surface } from '../src/surfaces/registry.ts';
import { findNginx, startNginx, type Nginx } from './helpers/nginx.ts';
import { startServeProcess, type ServeProcess } from './helpers/serve-process.ts';
import { checkChild, count, git, machine, mib, projectRevision, runChild, secs, table, writeResults } from './lib.ts';
import type { Suite, SuiteContext } from './suite.ts';

/** The issue's targets. */
export const TARGETS = {
  /** The gateway's sha-pinned reads against bare Express with a session. */
  pinnedRatio: 0.9,
  /** p99 at 64 connections, milliseconds. */
  p99Ms: 15,
  /** Bundles without Accept-Encoding against the same with br, in requests per second (issue 11). */
  identityRatio: 0.5,
} as const;

const CORPORA = ['vcpkg-300', 'vcpkg-5000'];
const USER = { username: 'bench', password: 'bench-password-bench-password' };
const SECRET = 'pkgcat-bench-session-secret-0123456789abcdef';
const ACCEL_PREFIX = '/_pkgcat';

type Server = 'gateway' | 'express' | 'nginx' | 'nginx+accel';
type Request = 'pinned' | 'floating' | 'full-br' | 'full' | 'listing-br' | 'listing';

interface WrkFigures {
  requestsPerSecond: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  requests: number;
  transferPerSecond: string;
  /** Non-2xx/3xx answers and socket errors: any makes the run invalid. */
  errors: number;
  /** The errors by kind: answers that were not 2xx/3xx, and wrk's socket errors (timeout: no answer within its 2 s). */
  errorKinds?: { non2xx: number; connect: number; read: number; write: number; timeout: number };
}

interface Run extends WrkFigures {
  request: Request;
  server: Server;
  url: string;
  /** The gateway's VmRSS right after the run (gateway and nginx+accel runs). */
  gatewayRssMiB?: number;
}

/** wrk prints latencies as 512.00us, 1.23ms, 1.02s, 2.00m. */
function milliseconds(text: string): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text.trim());
  if (!match) throw new Error(`wrk: cannot read the latency "${text}"`);
  const value = Number(match[1]);
  return { us: value / 1000, ms: value, s: value * 1000, m: value * 60_000 }[match[2] as 'us' | 'ms' | 's' | 'm'];
}

export function parseWrk(output: string): WrkFigures {
  const find = (pattern: RegExp, what: string) => {
    const match = pattern.exec(output);
    if (!match) throw new Error(`wrk: no ${what} in its output:\n${output}`);
    return match[1];
  };
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  return {
    requestsPerSecond: Number(find(/Requests\/sec:\s+([\d.]+)/, 'Requests/sec')),
    p50Ms: milliseconds(find(/^\s+50%\s+(\S+)/m, 'p50')),
    p90Ms: milliseconds(find(/^\s+90%\s+(\S+)/m, 'p90')),
    p99Ms: milliseconds(find(/^\s+99%\s+(\S+)/m, 'p99')),
    maxMs: milliseconds(find(/^\s+Latency\s+\S+\s+\S+\s+(\S+)/m, 'max latency')),
    requests: Number(find(/(\d+) requests in/, 'request count')),
    transferPerSecond: find(/Transfer\/sec:\s+(\S+)/, 'Transfer/sec'),
    errors: Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0) + (socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0),
    ...(socketErrors || /Non-2xx/.test(output)
      ? {
          errorKinds: {
            non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0),
            connect: Number(socketErrors?.[1] ?? 0),
            read: Number(socketErrors?.[2] ?? 0),
            write: Number(socketErrors?.[3] ?? 0),
            timeout: Number(socketErrors?.[4] ?? 0),
          },
        }
      : {}),
  };
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
  return kib / 1024;
}

/** A child process that says `listening on <url>` on stderr. */
async function startListening(command: string, args: string[], cwd: string): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start:\n${stderr}`)), 30_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited (${code}):\n${stderr}`));
    });
  });
  return {
    url,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function signIn(url: string, path: string, body: unknown): Promise<string> {
  const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (response.status !== 200) throw new Error(`sign-in at ${url}${path}: ${response.status} ${await response.text()}`);
  const cookie = response.headers.get('set-cookie');
  if (!cookie) throw new Error(`sign-in at ${url}${path} set no cookie`);
  return cookie.split(';')[0];
}

/** One request, checked: status 200 and `length` bytes on the wire (as sent, not decoded). */
async function check(url: string, headers: Record<string, string>, length: number, what: string): Promise<void> {
  const { request } = await import('node:http');
  const { status, bytes, encoding } = await new Promise<{ status: number; bytes: number; encoding: string | undefined }>((resolve, reject) => {
    const sent = request(url, { headers }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => (bytes += chunk.length));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, bytes, encoding: response.headers['content-encoding'] }));
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end();
  });
  if (status !== 200 || bytes !== length) {
    throw new Error(`${what}: ${url} answered ${status} with ${bytes} bytes (${encoding ?? 'identity'}), expected 200 with ${length}`);
  }
}

/** The first line a `--version`-style command prints, on stdout or stderr (nginx -v and wrk -v use stderr or exit 1). */
function versionOf(command: string, args: string[]): string {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  return `${result.stdout ?? ''}\n${result.stderr ?? ''}`.split('\n').map((line) => line.trim()).find(Boolean) ?? 'unknown';
}

/** The state root whose full bundle is the largest of the chain. */
async function largestFullBundle(out: string): Promise<StateRoot> {
  let largest: StateRoot | null = null;
  const chain = await readJson<CommitInfo[]>(paths.chain(paths.release(out, (await currentReleaseId(out))!)));
  for (const { sha } of chain) {
    const root = await readStateRoot(out, sha);
    if (root && (!largest || root.full.length > largest.full.length)) largest = root;
  }
  if (!largest) throw new Error('the build wrote no states');
  return largest;
}

export const suite: Suite = {
  name: 'serve',
  description: 'serving: the gateway against bare Express with a session and nginx (wrk on loopback)',
  options: {
    corpus: { type: 'string' },
    duration: { type: 'string' },
    connections: { type: 'string' },
    'cpu-prof': { type: 'boolean' },
  },
  usage: [
    '--corpus <name>     vcpkg-300 (default) or vcpkg-5000, a bundle in --corpus-dir',
    '--duration <s>      seconds per wrk run (default 10; each run has a 2 s warm-up before)',
    '--connections <n>   wrk connections (default 64; 2 threads)',
    '--cpu-prof          write a V8 CPU profile of the gateway into the work directory (use with --keep)',
  ],
  run,
};

async function run(context: SuiteContext): Promise<void> {
  const { root, work, values, log } = context;
  const corpus = typeof values.corpus === 'string' ? values.corpus : 'vcpkg-300';
  if (!CORPORA.includes(corpus)) throw new Error(`--corpus must be one of ${CORPORA.join(', ')}`);
  const duration = Number(typeof values.duration === 'string' ? values.duration : 10);
  const connections = Number(typeof values.connections === 'string' ? values.connections : 64);
  if (!(duration > 0 && duration <= 120) || !(connections > 0 && connections <= 1024)) throw new Error('--duration must be 1 to 120 s, --connections 1 to 1024');
  const bundle = context.corpusFile(`${corpus}.bundle`);
  const nginxBinary = findNginx();
  if (!nginxBinary) throw new Error('nginx is not installed (apt-get install -y nginx)');
  if (spawnSync('wrk', ['-v']).error) throw new Error('wrk is not installed (apt-get install -y wrk)');

  // The catalog, built by the real CLI.
  const repo = join(work, 'repo');
  const out = join(work, 'out');
  log(`serve: cloning ${corpus} and building it (pkgcat build)`);
  git(work, ['clone', '-q', bundle, repo]);
  const built = checkChild('pkgcat build', await runChild(process.execPath, [join(root, 'bin/pkgcat.js'), 'build', '--repo', repo, '--out', out, '--quiet'], { cwd: root }));
  log(`serve: built in ${secs(built.seconds)}`);

  // What is requested.
  const release = JSON.parse(readFileSync(paths.releaseInfo(paths.current(out)), 'utf8')) as { tip: { sha: string }; commitCount: number };
  const tip = release.tip.sha;
  const tipRoot = (await readStateRoot(out, tip))!;
  const names = JSON.parse(readFileSync(paths.names(paths.current(out)), 'utf8')) as Record<string, string>;
  const packageKey = names.zlib ? 'zlib' : Object.keys(names).sort()[0];
  const packageName = names[packageKey];
  const deps = (await lookupPackage(out, tipRoot, packageKey))?.deps;
  if (!deps) throw new Error(`${packageName} has no deps.json at the tip`);
  const depsBytes = (await readObject(out, deps)).length;
  // Plain nginx and bare Express serve the anonymous files as a static host does: from pkgcat export's tree.
  const exportDir = join(work, 'static');
  await exportRelease(out, exportDir);
  const recordBytes = (await readFile(join(paths.public(exportDir), fillTemplate(surface('package').publicFile!, { name: packageName })))).length;
  const largest = await largestFullBundle(out);

  const usersFile = join(work, 'users.json');
  await addUser(usersFile, USER.username, USER.password);
  const profileDir = join(work, 'cpu-profile');
  if (values['cpu-prof']) await mkdir(profileDir, { recursive: true });

  const stops: (() => Promise<void>)[] = [];
  try {
    const serveArgs = (name: string) => ['--out', out, '--users', usersFile, '--session-dir', join(work, `sessions-${name}`)];
    const env = { PKGCAT_SESSION_SECRET: SECRET };
    const gateway: ServeProcess = await startServeProcess(serveArgs('gateway'), env, values['cpu-prof'] ? { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profileDir] } : {});
    stops.push(() => gateway.stop());
    const accel: ServeProcess = await startServeProcess([...serveArgs('accel'), '--accel-redirect', ACCEL_PREFIX], env);
    stops.push(() => accel.stop());
    const express = await startListening(process.execPath, [join(root, 'bench/bare-express.ts'), '--out', out, '--export', exportDir], root);
    stops.push(() => express.stop());
    const plainNginx: Nginx = await startNginx(nginxBinary, {
      workers: 'auto',
      http: `  server {
    listen 127.0.0.1:{{port}};
    root ${paths.public(exportDir)};
    include ${paths.staticRules.nginx(exportDir)};
    # The output directory as it is, for the pinned requests: the same files, no gate.
    location /raw/ { alias ${out}/; etag off; if_modified_since off; max_ranges 0; }
  }`,
    });
    stops.push(() => plainNginx.stop());
    const accelPort = new URL(accel.url).port;
    const frontNginx: Nginx = await startNginx(nginxBinary, {
      workers: 'auto',
      http: renderNginxAccelFront({ gateways: [`127.0.0.1:${accelPort}`], listen: '127.0.0.1:{{port}}', prefix: ACCEL_PREFIX, out, keepalive: 64 }),
    });
    stops.push(() => frontNginx.stop());

    const gatewayCookie = await signIn(gateway.url, '/auth/login', USER);
    const accelCookie = await signIn(frontNginx.url, '/auth/login', USER);
    const expressCookie = await signIn(express.url, '/login', {});

    // The bundle's brotli bytes: the accel gateway writes them under cache/bodies on first request,
    // which is also the file Express and plain nginx serve for that request.
    const fullPath = `/api/pkgs/bundle/${largest.commit.sha}/full.json`;
    await fetch(`${frontNginx.url}${fullPath}`, { headers: { 'accept-encoding': 'br', cookie: accelCookie } }).then((response) => response.arrayBuffer());
    const brFile = join('cache', 'bodies', `${largest.full.etag.replace(/^W\/"|"$/g, '')}.json.br`);
    if (!existsSync(join(out, brFile))) throw new Error(`the accel gateway did not write ${brFile}`);
    const brBytes = (await readFile(join(out, brFile))).length;
    // The same for the plain full bundle and the tip's listing bundle (issue 11: clients without Accept-Encoding).
    const listingPath = `/api/pkgs/bundle/${tip}.json`;
    const bodyFile = (etag: string, suffix: string) => join('cache', 'bodies', `${etag.replace(/^W\/"|"$/g, '')}.json${suffix}`);
    const pinnedPath = `/api/pkgs/bundle/${tip}/${packageName}/deps.json`;
    for (const [path, encoding] of [[fullPath, 'identity'], [listingPath, 'identity'], [listingPath, 'br'], [pinnedPath, 'identity']]) {
      await fetch(`${frontNginx.url}${path}`, { headers: { 'accept-encoding': encoding, cookie: accelCookie } }).then((response) => response.arrayBuffer());
    }
    const plainFile = bodyFile(largest.full.etag, '');
    const listingFile = bodyFile(tipRoot.listing.etag, '');
    const listingBrFile = bodyFile(tipRoot.listing.etag, '.br');
    for (const file of [plainFile, listingFile, listingBrFile]) if (!existsSync(join(out, file))) throw new Error(`the accel gateway did not write ${file}`);
    const listingBrBytes = (await readFile(join(out, listingBrFile))).length;
    // The object lives in a pack: the file the accel gateway wrote for it is what a static server would send.
    const depsFile = bodyFile(`W/"${deps}"`, '');
    if (!existsSync(join(out, depsFile))) throw new Error(`the accel gateway did not write ${depsFile}`);
    const recordPath = `/api/pkgs/${packageName}.json`;

    interface Target { request: Request; server: Server; url: string; headers: Record<string, string>; bytes: number }
    const br = { 'accept-encoding': 'br' };
    const targets: Target[] = [
      { request: 'pinned', server: 'gateway', url: `${gateway.url}${pinnedPath}`, headers: { cookie: gatewayCookie }, bytes: depsBytes },
      { request: 'pinned', server: 'express', url: `${express.url}/pinned/${depsFile}`, headers: { cookie: expressCookie }, bytes: depsBytes },
      { request: 'pinned', server: 'nginx', url: `${plainNginx.url}/raw/${depsFile}`, headers: {}, bytes: depsBytes },
      { request: 'pinned', server: 'nginx+accel', url: `${frontNginx.url}${pinnedPath}`, headers: { cookie: accelCookie }, bytes: depsBytes },
      { request: 'floating', server: 'gateway', url: `${gateway.url}${recordPath}`, headers: {}, bytes: recordBytes },
      { request: 'floating', server: 'express', url: `${express.url}${recordPath}`, headers: {}, bytes: recordBytes },
      { request: 'floating', server: 'nginx', url: `${plainNginx.url}${recordPath}`, headers: {}, bytes: recordBytes },
      { request: 'floating', server: 'nginx+accel', url: `${frontNginx.url}${recordPath}`, headers: {}, bytes: recordBytes },
      { request: 'full-br', server: 'gateway', url: `${gateway.url}${fullPath}`, headers: { cookie: gatewayCookie, ...br }, bytes: brBytes },
      { request: 'full-br', server: 'express', url: `${express.url}/pinned/${brFile}`, headers: { cookie: expressCookie, ...br }, bytes: brBytes },
      { request: 'full-br', server: 'nginx', url: `${plainNginx.url}/raw/${brFile}`, headers: br, bytes: brBytes },
      { request: 'full-br', server: 'nginx+accel', url: `${frontNginx.url}${fullPath}`, headers: { cookie: accelCookie, ...br }, bytes: brBytes },
      // No Accept-Encoding (curl, wrk, scripts) against br, on the gateway, and nginx sending the same files.
      { request: 'full', server: 'gateway', url: `${gateway.url}${fullPath}`, headers: { cookie: gatewayCookie }, bytes: largest.full.length },
      { request: 'full', server: 'nginx', url: `${plainNginx.url}/raw/${plainFile}`, headers: {}, bytes: largest.full.length },
      { request: 'listing-br', server: 'gateway', url: `${gateway.url}${listingPath}`, headers: { cookie: gatewayCookie, ...br }, bytes: listingBrBytes },
      { request: 'listing-br', server: 'nginx', url: `${plainNginx.url}/raw/${listingBrFile}`, headers: br, bytes: listingBrBytes },
      { request: 'listing', server: 'gateway', url: `${gateway.url}${listingPath}`, headers: { cookie: gatewayCookie }, bytes: tipRoot.listing.length },
      { request: 'listing', server: 'nginx', url: `${plainNginx.url}/raw/${listingFile}`, headers: {}, bytes: tipRoot.listing.length },
    ];
    for (const target of targets) await check(target.url, target.headers, target.bytes, `${target.request} on ${target.server}`);
    log(`serve: ${corpus}, ${count(release.commitCount)} commits; pinned ${packageName}/deps.json ${count(depsBytes)} B, floating ${packageName}.json ${count(recordBytes)} B, largest full bundle ${count(largest.full.length)} B (${count(brBytes)} B br, commit ${largest.commit.sha.slice(0, 12)})`);

    const rssBefore = { gateway: rssMiB(gateway.pid), accel: rssMiB(accel.pid) };
    log(`serve: gateway RSS before the load ${mib(rssBefore.gateway * 1024 ** 2)} (accel gateway ${mib(rssBefore.accel * 1024 ** 2)})`);

    const wrk = async (target: Target, seconds: number) => {
      const args = ['-t2', `-c${connections}`, `-d${seconds}s`, '--latency'];
      for (const [name, value] of Object.entries(target.headers)) args.push('-H', `${name}: ${value}`);
      const result = checkChild('wrk', await runChild('wrk', [...args, target.url], { cwd: work }));
      return parseWrk(result.stdout);
    };
    const runs: Run[] = [];
    for (const target of targets) {
      await wrk(target, 2);
      const figures = await wrk(target, duration);
      const runFigures: Run = { request: target.request, server: target.server, url: target.url.replace(/^http:\/\/[^/]+/, ''), ...figures };
      if (target.server === 'gateway') runFigures.gatewayRssMiB = rssMiB(gateway.pid);
      if (target.server === 'nginx+accel') runFigures.gatewayRssMiB = rssMiB(accel.pid);
      runs.push(runFigures);
      log(`  ${target.request.padEnd(8)} ${target.server.padEnd(11)} ${count(Math.round(figures.requestsPerSecond)).padStart(7)} req/s  p50 ${figures.p50Ms.toFixed(2)} ms  p99 ${figures.p99Ms.toFixed(2)} ms${figures.errors ? `  ${figures.errors} ERRORS` : ''}`);
    }
    const rssAfter = { gateway: rssMiB(gateway.pid), accel: rssMiB(accel.pid) };

    // The table and the targets.
    const of = (request: Request, server: Server) => runs.find((entry) => entry.request === request && entry.server === server)!;
    const rows = runs.map((entry) => {
      const express = runs.find((other) => other.request === entry.request && other.server === 'express')?.requestsPerSecond;
      return [
        entry.request,
        entry.server,
        count(Math.round(entry.requestsPerSecond)),
        express ? `${(entry.requestsPerSecond / express).toFixed(2)}x` : '',
        entry.p50Ms.toFixed(2),
        entry.p99Ms.toFixed(2),
        entry.transferPerSecond,
        entry.gatewayRssMiB === undefined ? '' : entry.gatewayRssMiB.toFixed(1),
        entry.errors ? String(entry.errors) : '',
      ];
    });
    log('');
    log(table(['request', 'server', 'req/s', 'vs express', 'p50 ms', 'p99 ms', 'transfer/s', 'gateway RSS MiB', 'errors'], rows, [false, false, true, true, true, true, true, true, true]));
    const pinnedRatio = of('pinned', 'gateway').requestsPerSecond / of('pinned', 'express').requestsPerSecond;
    const gatewayRuns = runs.filter((entry) => entry.server === 'gateway' && ['pinned', 'floating', 'full-br'].includes(entry.request));
    const identityRatio = {
      listing: of('listing', 'gateway').requestsPerSecond / of('listing-br', 'gateway').requestsPerSecond,
      full: of('full', 'gateway').requestsPerSecond / of('full-br', 'gateway').requestsPerSecond,
    };
    const worstP99 = Math.max(...gatewayRuns.map((entry) => entry.p99Ms));
    const targetsMet = {
      pinnedRatio: { value: Number(pinnedRatio.toFixed(3)), target: TARGETS.pinnedRatio, met: pinnedRatio >= TARGETS.pinnedRatio },
      gatewayP99Ms: {
        byRequest: Object.fromEntries(gatewayRuns.map((entry) => [entry.request, entry.p99Ms])),
        target: TARGETS.p99Ms,
        met: worstP99 < TARGETS.p99Ms,
      },
      gatewayRssMiB: { before: rssBefore.gateway, after: rssAfter.gateway, accelBefore: rssBefore.accel, accelAfter: rssAfter.accel },
      identityToBrRatio: {
        listing: Number(identityRatio.listing.toFixed(3)),
        full: Number(identityRatio.full.toFixed(3)),
        target: TARGETS.identityRatio,
        met: identityRatio.listing >= TARGETS.identityRatio && identityRatio.full >= TARGETS.identityRatio,
      },
    };
    log('');
    log(`serve: gateway pinned reads at ${pinnedRatio.toFixed(2)}x bare Express with a session (target ${TARGETS.pinnedRatio}x): ${targetsMet.pinnedRatio.met ? 'met' : 'MISSED'}`);
    log(`serve: gateway p99 ${gatewayRuns.map((entry) => `${entry.request} ${entry.p99Ms.toFixed(2)} ms`).join(', ')} at ${connections} connections (target < ${TARGETS.p99Ms} ms): ${targetsMet.gatewayP99Ms.met ? 'met' : 'MISSED'}`);
    log(`serve: gateway without Accept-Encoding at ${identityRatio.listing.toFixed(2)}x (listing) and ${identityRatio.full.toFixed(2)}x (full) its br requests per second (target ${TARGETS.identityRatio}x): ${targetsMet.identityToBrRatio.met ? 'met' : 'MISSED'}`);
    log(`serve: gateway RSS ${rssBefore.gateway.toFixed(1)} MiB before, ${rssAfter.gateway.toFixed(1)} MiB after (accel gateway ${rssBefore.accel.toFixed(1)} -> ${rssAfter.accel.toFixed(1)} MiB)`);
    if (runs.some((entry) => entry.errors > 0)) log('serve: SOME RUNS HAD ERRORS (non-2xx answers or socket errors): their figures are not valid');

    const file = await writeResults(context.resultsDir, `serve-${corpus}`, {
      suite: 'serve',
      corpus,
      machine: { ...machine(), nginx: versionOf(nginxBinary, ['-v']), wrk: versionOf('wrk', ['-v']) },
      project: projectRevision(root),
      settings: { wrk: `-t2 -c${connections} -d${duration}s --latency`, warmUpSeconds: 2, sessionStore: { gateway: 'sqlite (default)', express: 'MemoryStore' }, nginxWorkers: 'auto' },
      catalog: {
        commits: release.commitCount,
        packages: Object.keys(names).length,
        pinned: { path: pinnedPath.replace(tip, '{tip}'), bytes: depsBytes },
        floating: { path: recordPath, bytes: recordBytes },
        fullBundle: { commit: largest.commit.sha, bytes: largest.full.length, brotliBytes: brBytes },
        listingBundle: { commit: tip, bytes: tipRoot.listing.length, brotliBytes: listingBrBytes },
      },
      runs,
      targets: targetsMet,
    });
    log(`serve: results in ${file}`);
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    if (values['cpu-prof']) log(`serve: gateway CPU profile in ${profileDir}${context.values.keep ? '' : ' (removed at the end: add --keep)'}`);
  }
}
