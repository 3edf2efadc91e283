/**
 * The load benchmark (issue 11): the gateway as an operator runs it, `pkgcat serve --repo`
 * following main, under a realistic mix of clients and then under hostile ones.
 *
 *   npm run bench -- load --corpus-dir <dir>                  vcpkg-300 (about 5 minutes on 2 cores, build included)
 *   npm run bench -- load --corpus-dir <dir> --duration 20 --hostile 2000 --greedy 500   a quick look
 *
 * In one run, against one `pkgcat serve --repo` child process:
 *
 *   1. warm-up: the mixed workload for 10 s (wrk -t2 -c<connections>); the RSS after it is the baseline;
 *   2. mixed: the same workload for --duration seconds (default 60) while three commits land on main
 *      (a version bump each, at a quarter, a half and three quarters of the run), which serve follows
 *      by building each in a child process. Throughput, p50, p99, errors (non-2xx/3xx and socket
 *      errors); the RSS at the end against the baseline;
 *   3. hostile: --hostile requests (default 10,000), 32 at a time, of malformed names, shas and
 *      prefixes, odd encodings, wrong methods, huge headers and cookies (issue 11's list). Status
 *      counts (no 5xx allowed) and the RSS growth;
 *   4. greedy: --greedy requests (default 2,000), 32 at a time, of a signed-in client asking for
 *      bodies the gateway has not made: bundles of random commits in random encodings, diffs of
 *      random pairs, SBOMs and deps.json of random packages at random commits. The caches fill to
 *      their bounds; the RSS growth says what that costs.
 *
 * The mixed workload, one request in 20 each: 8 a floats-latest package record (half with
 * `Accept-Encoding: br`, half with none), 2 recent commits (with and without a limit), 3 a pinned
 * listing bundle with a session (none, br, gzip), 5 a deps.json or versions.json with a session,
 * 1 a full bundle with a session (br or none), 1 a diff against the parent with a session.
 * Every URL is checked to answer 200 (or 302) before the load. The gateway's memory is VmRSS of
 * the serve process (/proc/<pid>/status); its builds are other processes. Results go to
 * bench/results/load-<corpus>.json.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { Agent, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { addUser } from '../gateway/auth/users.ts';
import { appendCommits } from '../demo/catalog-writer.ts';
import { lookupPackage, paths, readStateRoot } from '../src/store/layout.ts';
import { startServeProcess } from './helpers/serve-process.ts';
import { checkChild, count, git, machine, projectRevision, runChild, secs, writeResults } from './lib.ts';
import { bumpVersion } from './build.ts';
import { parseWrk } from './serve.ts';
import type { Suite, SuiteContext } from './suite.ts';

/** The issue's targets. */
export const TARGETS = {
  /** The mixed workload at 64 connections. */
  mixedP99Ms: 50,
  /** RSS at the end of the mixed run, against the RSS after warm-up. */
  mixedRssRatio: 1.5,
  /** RSS growth over the hostile requests. */
  hostileRssGrowthMiB: 50,
} as const;

const CORPORA = ['vcpkg-300', 'vcpkg-5000'];
const USER = { username: 'bench', password: 'bench-password-bench-password' };
const SECRET = 'pkgcat-bench-session-secret-0123456789abcdef';
const WARM_UP_SECONDS = 10;
const HOSTILE_CONCURRENCY = 32;

/** One request of a workload: a path, an Accept-Encoding (none when null), whether it carries the session. */
export interface Spec {
  readonly path: string;
  readonly encoding: string | null;
  readonly session: boolean;
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]) / 1024;
}

/** A deterministic stream of numbers in [0, 1): the same workload on every run. */
export function seeded(seed: string): () => number {
  let counter = 0;
  return () => createHash('sha256').update(`${seed}:${counter++}`).digest().readUInt32BE(0) / 2 ** 32;
}

/** `items` taken evenly across the list (every n-th), at most `limit`. */
function spread<T>(items: readonly T[], limit: number): T[] {
  if (items.length <= limit) return [...items];
  return Array.from({ length: limit }, (_, index) => items[Math.floor((index * items.length) / limit)]);
}

/** One request, answered: status and bytes on the wire; a socket error resolves as status 0. */
export function send(base: string, spec: { path: string; method?: string; headers?: Record<string, string> }, agent?: Agent): Promise<{ status: number; bytes: number; error?: string }> {
  return new Promise((resolve) => {
    const sent = httpRequest(`${base}${spec.path}`, { method: spec.method ?? 'GET', headers: spec.headers, agent }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => (bytes += chunk.length));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, bytes }));
      response.on('error', (error) => resolve({ status: 0, bytes, error: error.message }));
    });
    sent.on('error', (error) => resolve({ status: 0, bytes: 0, error: (error as NodeJS.ErrnoException).code ?? error.message }));
    sent.end();
  });
}

export const headersOf = (spec: Spec, cookie: string): Record<string, string> => ({
  ...(spec.encoding === null ? {} : { 'accept-encoding': spec.encoding }),
  ...(spec.session ? { cookie } : {}),
});

/** The wrk script that sends `specs` in turn (each thread from its own start). */
export function wrkScript(specs: readonly Spec[], cookie: string): string {
  const lua = (text: string) => JSON.stringify(text);
  const rows = specs.map((spec) => `  {${lua(spec.path)}, ${spec.encoding === null ? 'nil' : lua(spec.encoding)}, ${spec.session}},`);
  return `-- pkgcat bench/load.ts: the mixed workload
local specs = {
${rows.join('\n')}
}
local built = {}
local cursor = 1
local offset = 0
setup = function(thread)
  offset = offset + 1
  thread:set("start", offset * 997)
end
init = function(args)
  for index, spec in ipairs(specs) do
    local headers = {}
    if spec[2] then headers["Accept-Encoding"] = spec[2] end
    if spec[3] then headers["Cookie"] = ${lua(cookie)} end
    built[index] = wrk.format("GET", spec[1], headers)
  end
  cursor = (start or 0) % #built + 1
end
request = function()
  local request = built[cursor]
  cursor = cursor % #built + 1
  return request
end
`;
}

/**
 * The mixed workload of the published release of `out`, 2,000 requests in a fixed order (see the
 * top of this file): what the tests of issue 11 call "a realistic mix".
 */
export async function mixedWorkload(out: string, random: () => number): Promise<{ chain: string[]; names: string[]; mix: Spec[] }> {
  const current = paths.current(out);
  const chain = (JSON.parse(readFileSync(paths.chain(current), 'utf8')) as { sha: string }[]).map((commit) => commit.sha);
  const names = Object.values(JSON.parse(readFileSync(paths.names(current), 'utf8')) as Record<string, string>).sort();
  const recent = chain.slice(0, 8);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const sampled = spread(names, 200);
  const pinnedPackages: { sha: string; name: string; member: 'deps' | 'versions' }[] = [];
  for (const sha of recent.slice(0, 4)) {
    const stateRoot = (await readStateRoot(out, sha))!;
    for (const name of spread(sampled, 40)) {
      const entry = await lookupPackage(out, stateRoot, name.toLowerCase());
      if (entry?.deps) pinnedPackages.push({ sha, name, member: 'deps' });
      if (entry?.versions) pinnedPackages.push({ sha, name, member: 'versions' });
    }
  }
  const mix: Spec[] = [];
  for (let index = 0; index < 2000; index++) {
    const slot = index % 20;
    if (slot < 8) mix.push({ path: `/api/pkgs/${pick(sampled)}.json`, encoding: slot % 2 ? 'br' : null, session: false });
    else if (slot < 10) mix.push({ path: slot === 8 ? '/api/pkgs/recent-commits.json' : `/api/pkgs/recent-commits.json?limit=${1 + Math.floor(random() * 100)}`, encoding: slot === 8 ? 'gzip, deflate, br' : null, session: false });
    else if (slot < 13) mix.push({ path: `/api/pkgs/bundle/${pick(recent)}.json`, encoding: [null, 'br', 'gzip'][slot - 10], session: true });
    else if (slot < 18) {
      const { sha, name, member } = pick(pinnedPackages);
      mix.push({ path: `/api/pkgs/bundle/${sha}/${name}/${member}.json`, encoding: slot % 2 ? 'br' : null, session: true });
    } else if (slot === 18) mix.push({ path: `/api/pkgs/bundle/${pick(recent.slice(0, 3))}/full.json`, encoding: index % 40 === 18 ? null : 'br', session: true });
    else {
      const at = Math.floor(random() * (recent.length - 1));
      mix.push({ path: `/api/pkgs/bundle/${recent[at]}/diff/${recent[at + 1]}.json`, encoding: 'br', session: true });
    }
  }
  return { chain, names, mix };
}

export const suite: Suite = {
  name: 'load',
  description: 'the gateway under a mixed workload while commits land, then under hostile requests (wrk and a Node client)',
  options: {
    corpus: { type: 'string' },
    duration: { type: 'string' },
    connections: { type: 'string' },
    hostile: { type: 'string' },
    greedy: { type: 'string' },
  },
  usage: [
    '--corpus <name>     vcpkg-300 (default) or vcpkg-5000, a bundle in --corpus-dir',
    '--duration <s>      seconds of the mixed run (default 60; a 10 s warm-up comes before)',
    '--connections <n>   wrk connections of the mixed run (default 64; 2 threads)',
    '--hostile <n>       hostile requests (default 10000)',
    '--greedy <n>        requests of the greedy signed-in client (default 2000)',
  ],
  run,
};

async function run(context: SuiteContext): Promise<void> {
  const { root, work, values, log } = context;
  const corpus = typeof values.corpus === 'string' ? values.corpus : 'vcpkg-300';
  if (!CORPORA.includes(corpus)) throw new Error(`--corpus must be one of ${CORPORA.join(', ')}`);
  const duration = Number(typeof values.duration === 'string' ? values.duration : 60);
  const connections = Number(typeof values.connections === 'string' ? values.connections : 64);
  const hostileCount = Number(typeof values.hostile === 'string' ? values.hostile : 10_000);
  const greedyCount = Number(typeof values.greedy === 'string' ? values.greedy : 2_000);
  if (!(duration >= 8 && duration <= 600) || !(connections > 0 && connections <= 1024) || !(hostileCount > 0 && hostileCount <= 1_000_000) || !(greedyCount >= 0 && greedyCount <= 1_000_000)) {
    throw new Error('--duration must be 8 to 600 s, --connections 1 to 1024, --hostile 1 to 1000000, --greedy 0 to 1000000');
  }
  const bundle = context.corpusFile(`${corpus}.bundle`);
  if ((await runChild('wrk', ['-v'], { cwd: work }).catch(() => null)) === null) throw new Error('wrk is not installed (apt-get install -y wrk)');

  const repo = join(work, 'repo');
  const out = join(work, 'out');
  log(`load: cloning ${corpus} and building it (pkgcat build)`);
  git(work, ['clone', '-q', bundle, repo]);
  const built = checkChild('pkgcat build', await runChild(process.execPath, [join(root, 'bin/pkgcat.js'), 'build', '--repo', repo, '--out', out, '--quiet'], { cwd: root }));
  log(`load: built in ${secs(built.seconds)}`);
  const usersFile = join(work, 'users.json');
  await addUser(usersFile, USER.username, USER.password);

  const serve = await startServeProcess(['--repo', repo, '--out', out, '--users', usersFile, '--session-dir', join(work, 'sessions'), '--poll-seconds', '1'], { PKGCAT_SESSION_SECRET: SECRET }, { timeoutMs: 300_000 });
  try {
    const login = await fetch(`${serve.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(USER) });
    const cookie = login.headers.get('set-cookie')?.split(';')[0];
    if (login.status !== 200 || !cookie) throw new Error(`sign-in failed: ${login.status}`);

    const current = paths.current(out);
    const { chain, names, mix } = await mixedWorkload(out, seeded('pkgcat-bench-load'));
    const random = seeded('pkgcat-bench-hostile');
    const distinct = [...new Map(mix.map((spec) => [`${spec.path} ${spec.encoding} ${spec.session}`, spec])).values()];
    for (const spec of distinct) {
      const { status } = await send(serve.url, { path: spec.path, headers: headersOf(spec, cookie) });
      if (status !== 200) throw new Error(`${spec.path} answered ${status} before the load`);
    }
    log(`load: ${corpus}, ${count(chain.length)} commits, ${count(names.length)} packages; a mix of ${count(distinct.length)} distinct requests, all checked`);
    const script = join(work, 'mixed.lua');
    await writeFile(script, wrkScript(mix, cookie));
    const wrk = async (seconds: number) => {
      const result = checkChild('wrk', await runChild('wrk', ['-t2', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, serve.url], { cwd: work }));
      return parseWrk(result.stdout);
    };

    const rssStart = rssMiB(serve.pid);
    const warmUp = await wrk(WARM_UP_SECONDS);
    const rssWarm = rssMiB(serve.pid);
    log(`load: warm-up ${count(Math.round(warmUp.requestsPerSecond))} req/s, p99 ${warmUp.p99Ms.toFixed(1)} ms; RSS ${rssStart.toFixed(1)} MiB at start, ${rssWarm.toFixed(1)} MiB after the warm-up`);

    // Three commits land during the mixed run; serve follows each with a build of its own.
    const landed: { atSeconds: number; change: string }[] = [];
    const started = performance.now();
    const landing = (async () => {
      for (const fraction of [0.25, 0.5, 0.75]) {
        const wait = fraction * duration * 1000 - (performance.now() - started);
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        landed.push({ atSeconds: (performance.now() - started) / 1000, change: await appendBump(repo, names[Math.floor((fraction * names.length) / 2)]) });
      }
    })();
    const mixed = await wrk(duration);
    await landing;
    const rssMixed = rssMiB(serve.pid);
    const mainTip = git(repo, ['rev-parse', 'refs/heads/main']).trim();
    const followed = await waitFor(() => (JSON.parse(readFileSync(paths.releaseInfo(current), 'utf8')) as { tip: { sha: string } }).tip.sha === mainTip, 120_000);
    log(`load: mixed ${count(Math.round(mixed.requestsPerSecond))} req/s, p50 ${mixed.p50Ms.toFixed(2)} ms, p99 ${mixed.p99Ms.toFixed(2)} ms, ${mixed.errors} errors; ${landed.length} commits landed (${landed.map((entry) => `${entry.atSeconds.toFixed(0)} s`).join(', ')}), ${followed ? 'all published' : 'NOT ALL PUBLISHED'}; RSS ${rssMixed.toFixed(1)} MiB (${(rssMixed / rssWarm).toFixed(2)}x the warm-up's)`);

    // Hostile requests, then a greedy signed-in client.
    const hostile = await fire(serve, hostileRequests(hostileCount, { chain, names, cookie, random }));
    log(`load: ${count(hostile.requests)} hostile requests in ${secs(hostile.seconds)}: ${Object.entries(hostile.byStatus).map(([status, n]) => `${status} x${n}`).join(', ')}`);
    log(`load: RSS ${hostile.rssBefore.toFixed(1)} MiB before, ${hostile.rssAfter.toFixed(1)} MiB after (peak seen ${hostile.rssPeak.toFixed(1)} MiB): ${(hostile.rssAfter - hostile.rssBefore).toFixed(1)} MiB growth`);
    const greedy = await fire(serve, greedyRequests(greedyCount, { chain, names, cookie, random }));
    log(`load: ${count(greedy.requests)} greedy signed-in requests in ${secs(greedy.seconds)}: ${Object.entries(greedy.byStatus).map(([status, n]) => `${status} x${n}`).join(', ')}`);
    log(`load: RSS ${greedy.rssBefore.toFixed(1)} MiB before, ${greedy.rssAfter.toFixed(1)} MiB after (peak seen ${greedy.rssPeak.toFixed(1)} MiB): ${(greedy.rssAfter - greedy.rssBefore).toFixed(1)} MiB growth`);

    const hostileGrowth = hostile.rssAfter - hostile.rssBefore;
    const targets = {
      mixedP99Ms: { value: mixed.p99Ms, target: TARGETS.mixedP99Ms, met: mixed.p99Ms < TARGETS.mixedP99Ms && mixed.errors === 0 },
      mixedRssRatio: { value: Number((rssMixed / rssWarm).toFixed(3)), target: TARGETS.mixedRssRatio, met: rssMixed / rssWarm <= TARGETS.mixedRssRatio },
      hostileRssGrowthMiB: { value: Number(hostileGrowth.toFixed(1)), target: TARGETS.hostileRssGrowthMiB, met: hostileGrowth < TARGETS.hostileRssGrowthMiB && hostile.serverErrors === 0 },
    };
    for (const [name, figure] of Object.entries(targets)) log(`load: ${name} ${figure.value} (target ${figure.target}): ${figure.met ? 'met' : 'MISSED'}`);
    if (greedy.serverErrors > 0) log(`load: THE GREEDY CLIENT GOT ${greedy.serverErrors} 5xx ANSWERS`);
    const file = await writeResults(context.resultsDir, `load-${corpus}`, {
      suite: 'load',
      corpus,
      machine: machine(),
      project: projectRevision(root),
      settings: { wrk: `-t2 -c${connections} -d${duration}s --latency -s mixed.lua`, warmUpSeconds: WARM_UP_SECONDS, concurrency: { hostile: HOSTILE_CONCURRENCY, greedy: HOSTILE_CONCURRENCY }, serve: 'pkgcat serve --repo --poll-seconds 1 (default limits)' },
      catalog: { commits: chain.length, packages: names.length, distinctMixedRequests: distinct.length },
      rssMiB: { start: rssStart, afterWarmUp: rssWarm, afterMixed: rssMixed, afterHostile: hostile.rssAfter, afterGreedy: greedy.rssAfter },
      warmUp,
      mixed: { ...mixed, landed, allPublished: followed },
      hostile,
      greedy,
      targets,
    });
    log(`load: results in ${file}`);
  } finally {
    await serve.stop();
  }
}

/** Sends `specs`, HOSTILE_CONCURRENCY at a time; the serve process's RSS before, after and at its highest seen. */
async function fire(serve: { url: string; pid: number }, specs: HostileSpec[]) {
  const byStatus = new Map<string, number>();
  const agent = new Agent({ keepAlive: true, maxSockets: HOSTILE_CONCURRENCY });
  const rssBefore = rssMiB(serve.pid);
  let rssPeak = rssBefore;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: HOSTILE_CONCURRENCY }, async () => {
      while (next < specs.length) {
        const spec = specs[next++];
        const { status, error } = await send(serve.url, spec, agent);
        const key = status === 0 ? `error ${error}` : String(status);
        byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
        if (next % 500 === 0) rssPeak = Math.max(rssPeak, rssMiB(serve.pid));
      }
    }),
  );
  agent.destroy();
  const rssAfter = rssMiB(serve.pid);
  const statuses = Object.fromEntries([...byStatus].sort(([a], [b]) => (a < b ? -1 : 1)));
  return {
    requests: specs.length,
    seconds: (performance.now() - started) / 1000,
    byStatus: statuses,
    serverErrors: Object.entries(statuses).filter(([status]) => status.startsWith('5')).reduce((sum, [, n]) => sum + n, 0),
    rssBefore,
    rssAfter,
    rssPeak: Math.max(rssPeak, rssAfter),
  };
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if (condition()) return true;
    } catch {
      // A release being switched.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

/** Appends a commit that bumps `name`'s version (as bench/build.ts does); returns the change. */
async function appendBump(repo: string, name: string): Promise<string> {
  const path = `packages/${name}/manifest.json`;
  const manifest = JSON.parse(git(repo, ['show', `main:${path}`])) as { name: string; version: string };
  const from = manifest.version;
  manifest.version = bumpVersion(from);
  const time = Number(git(repo, ['log', '-1', '--format=%ct', 'refs/heads/main']).trim()) + 3600;
  await appendCommits(repo, [{ message: `[${manifest.name}] update to ${manifest.version} (pkgcat bench load)`, time: new Date(time * 1000).toISOString().replace('.000Z', 'Z'), files: { [path]: manifest } }]);
  return `${manifest.name} ${from} -> ${manifest.version}`;
}

interface HostileSpec {
  path: string;
  method?: string;
  headers?: Record<string, string>;
}

/**
 * `total` hostile requests, in a fixed order: what a scanner or a fuzzer sends (issue 11: malformed
 * names, shas and prefixes, odd encodings, wrong methods, huge headers). None may get a 5xx.
 */
export function hostileRequests(total: number, { chain, names, cookie, random }: { chain: string[]; names: string[]; cookie: string; random: () => number }): HostileSpec[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const hex = (length: number) => Array.from({ length }, () => '0123456789abcdef'[Math.floor(random() * 16)]).join('');
  const junk = (length: number) => Array.from({ length }, () => String.fromCharCode(33 + Math.floor(random() * 94))).join('');
  const encodings = ['br;q=abc', '*;q=0', 'identity;q=0', 'gzip;q=0.5, br;q=0.5, identity;q=0', 'x-gzip', '', 'zstd', `${'gzip;q=0.1, '.repeat(200)}br`, 'br, br, br, gzip', 'BR;Q=1.0', 'deflate;q=1, *;q=0.001'];
  const tip = chain[0];
  const kinds: (() => HostileSpec)[] = [
    // Malformed names.
    () => ({ path: `/api/pkgs/${encodeURIComponent(junk(1 + Math.floor(random() * 40)))}.json` }),
    () => ({ path: `/api/pkgs/${'a'.repeat(1000 + Math.floor(random() * 9000))}.json` }),
    () => ({ path: pick(['/api/pkgs/..%2F..%2Fetc%2Fpasswd.json', '/api/pkgs/%00.json', '/api/pkgs/-lead.json', '/api/pkgs/%E2%80%AEevil.json', '/api/pkgs/.json', '/api/pkgs/a..b.json', '/api/pkgs/%2e%2e/%2e%2e/x.json', '/api/pkgs/%ZZ.json']) }),
    () => ({ path: `/api/pkgs/bundle/${tip}/${encodeURIComponent(junk(1 + Math.floor(random() * 300)))}/deps.json`, headers: { cookie } }),
    // Malformed and unknown shas, short and unknown prefixes, with and without a session.
    () => ({ path: `/api/pkgs/bundle/${junk(40).replace(/[/?#%]/g, 'x')}.json`, headers: { cookie } }),
    () => ({ path: `/api/pkgs/bundle/${hex(41)}.json`, headers: { cookie } }),
    () => ({ path: `/api/pkgs/bundle/${pick(chain).toUpperCase()}/full.json`, headers: { cookie } }),
    () => ({ path: `/api/pkgs/bundle/${hex(40)}/full.json`, headers: { cookie } }),
    () => ({ path: `/api/pkgs/bundle/${hex(3 + Math.floor(random() * 4))}.json` }),
    () => ({ path: `/api/pkgs/bundle/${pick(chain).slice(0, 7 + Math.floor(random() * 20))}/${pick(names)}/deps.json?x=${hex(8)}` }),
    () => ({ path: `/api/pkgs/bundle/${tip}/diff/${hex(7 + Math.floor(random() * 34))}.json`, headers: { cookie } }),
    // Odd encodings on real bodies.
    () => ({ path: `/api/pkgs/${pick(names)}.json`, headers: { 'accept-encoding': pick(encodings) } }),
    () => ({ path: `/api/pkgs/bundle/${tip}${pick(['.json', '/full.json', '/zlib/deps.json', '/zlib/versions.json'])}`, headers: { cookie, 'accept-encoding': pick(encodings) } }),
    () => ({ path: '/api/pkgs/recent-commits.json?limit=' + pick(['-1', '0', '1e9', 'abc', '50&limit=2', '999999999999', '']), headers: { 'accept-encoding': pick(encodings) } }),
    // Wrong methods.
    () => ({ path: pick([`/api/pkgs/${pick(names)}.json`, `/api/pkgs/bundle/${pick(chain)}/full.json`, '/auth/logout', '/api/pkgs/recent-commits.json']), method: pick(['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND']) }),
    // Huge headers and cookies.
    () => ({ path: `/api/pkgs/${pick(names)}.json`, headers: { 'x-padding': 'x'.repeat(20_000 + Math.floor(random() * 20_000)) } }),
    () => ({ path: `/api/pkgs/bundle/${pick(chain)}.json`, headers: { cookie: `pkgcat.sid=s%3A${junk(4000).replace(/[;\s]/g, 'x')}` } }),
    () => ({ path: `/api/pkgs/${pick(names)}.json`, headers: Object.fromEntries(Array.from({ length: 90 }, (_, index) => [`x-h${index}`, hex(64)])) }),
  ];
  return Array.from({ length: total }, (_, index) => kinds[index % kinds.length]());
}

/**
 * `total` requests of a greedy signed-in client: bodies of random commits in random encodings,
 * diffs of random pairs, SBOMs of random packages at random commits. Every one is a body the
 * gateway has not made yet, so the caches fill to their bounds.
 */
export function greedyRequests(total: number, { chain, names, cookie, random }: { chain: string[]; names: string[]; cookie: string; random: () => number }): HostileSpec[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const kinds: (() => HostileSpec)[] = [
    () => ({ path: `/api/pkgs/bundle/${pick(chain)}${pick(['.json', '/full.json'])}`, headers: { cookie, 'accept-encoding': pick(['br', 'gzip', 'identity', '']) } }),
    () => ({ path: `/api/pkgs/bundle/${pick(chain)}/diff/${pick(chain)}.json`, headers: { cookie, 'accept-encoding': pick(['br', 'gzip', 'identity']) } }),
    () => ({ path: `/api/pkgs/bundle/${pick(chain)}/${pick(names)}/sbom.json${pick(['', '?format=spdx'])}`, headers: { cookie, 'accept-encoding': pick(['br', 'identity']) } }),
    () => ({ path: `/api/pkgs/bundle/${pick(chain)}/${pick(names)}/${pick(['deps', 'versions'])}.json`, headers: { cookie, 'accept-encoding': pick(['br', 'gzip', 'identity']) } }),
  ];
  return Array.from({ length: total }, (_, index) => kinds[index % kinds.length]());
}
