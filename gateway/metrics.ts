/**
 * What `pkgcat serve` tells Prometheus (docs/deployment.md "Metrics"), through prom-client, on its
 * own listener (`--metrics-port`, metrics-server.ts): never on the gateway's port, so no proxy rule
 * and no static host can publish it, and a deployment keeps it off the public interface by the
 * address it binds.
 *
 * Label sets are bounded: a registry row id (or one of a few fixed routes), a status class, an
 * encoding, a tool name, an outcome, a level, a cache name. Never a package name, a path or a sha.
 *
 * Counters are counted as things happen (requests, tool calls, sign-ins, builds); gauges that
 * describe state (the release, the caches, the session store) are read when Prometheus scrapes.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { CacheLookups, CacheStats } from './lru.ts';

/** What a finished build tells serve over its channel (cli/build-channel.ts), for the build metrics. */
export interface BuildFigures {
  /** Commits composed by this build. */
  readonly composed: number;
  /** Files the build wrote whole (release files, checkpoints: objects and state roots are items of the packs) and their bytes. */
  readonly files: number;
  readonly bytes: number;
  /** Diagnostics raised by the commits it read, by level. */
  readonly diagnostics: Readonly<Record<string, number>>;
}

export type BuildResultLabel = 'published' | 'unchanged' | 'failed';

/** The result of one tools/call: a success, an `isError` result, or a JSON-RPC error. */
export type ToolCallResult = 'success' | 'error' | 'protocol_error';

/** What the scrape-time gauges read; each is set once the thing it reads exists. */
export interface MetricSources {
  /** The published release: when it went live and its tip's commit time (ms since the epoch); null before the first. */
  release?: () => Promise<{ publishedAtMs: number; tipCommittedAtMs: number; commits: number } | null>;
  /** The caches by name, with their sizes and counts of hits and misses. */
  caches?: () => Readonly<Record<string, CacheStats & Partial<CacheLookups>>>;
  /** The session store: which kind, and whether it answers. */
  sessionStore?: () => { kind: string; up: boolean };
  /** Whether a build is running now (`serve --repo`). */
  buildRunning?: () => boolean;
  /** The clock (ms since the epoch). */
  now?: () => number;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const BUILD_BUCKETS = [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

const statusClass = (status: number) => `${Math.floor(status / 100)}xx`;

export class GatewayMetrics {
  readonly registry = new Registry();
  readonly #sources: MetricSources = {};

  readonly #requests = new Counter({
    name: 'pkgcat_http_requests_total',
    help: 'HTTP requests answered, by route (registry row id or fixed route), method and status class.',
    labelNames: ['route', 'method', 'status_class'] as const,
    registers: [this.registry],
  });
  readonly #duration = new Histogram({
    name: 'pkgcat_http_request_duration_seconds',
    help: 'Time from a request\'s arrival to the last byte of its answer handed to the system, by route.',
    labelNames: ['route'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly #bytes = new Counter({
    name: 'pkgcat_http_response_body_bytes_total',
    help: 'Bytes of response bodies sent by the gateway, by Content-Encoding (br, gzip, identity).',
    labelNames: ['encoding'] as const,
    registers: [this.registry],
  });
  readonly #toolCalls = new Counter({
    name: 'pkgcat_mcp_tool_calls_total',
    help: 'Tool calls of the MCP tool server, by tool and result (success, error: an isError result, protocol_error).',
    labelNames: ['tool', 'result'] as const,
    registers: [this.registry],
  });
  readonly #signIns = new Counter({
    name: 'pkgcat_sign_ins_total',
    help: 'Sign-in attempts (POST /auth/login), by outcome.',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly #builds = new Counter({
    name: 'pkgcat_builds_total',
    help: 'Builds run by serve --repo, by result (published, unchanged, failed).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  readonly #buildDuration = new Histogram({
    name: 'pkgcat_build_duration_seconds',
    help: 'Wall time of each build run by serve --repo, from when serve asks for it to its answer.',
    buckets: BUILD_BUCKETS,
    registers: [this.registry],
  });
  readonly #buildComposed = new Counter({
    name: 'pkgcat_build_commits_composed_total',
    help: 'Commits composed by the builds (a commit already built is not composed again).',
    registers: [this.registry],
  });
  readonly #buildFiles = new Counter({
    name: 'pkgcat_build_files_written_total',
    help: 'Files written whole by the builds: release files, checkpoints (objects and state roots are appended to the packs).',
    registers: [this.registry],
  });
  readonly #buildBytes = new Counter({
    name: 'pkgcat_build_written_bytes_total',
    help: 'Bytes of the files written by the builds.',
    registers: [this.registry],
  });
  readonly #buildDiagnostics = new Counter({
    name: 'pkgcat_build_diagnostics_total',
    help: 'Diagnostics the builds raised on the catalog data, by level (warning, error).',
    labelNames: ['level'] as const,
    registers: [this.registry],
  });
  readonly #lastBuildFailed = new Gauge({
    name: 'pkgcat_build_last_failed',
    help: '1 when the last build run by serve --repo failed (the previous release is still served), else 0.',
    registers: [this.registry],
  });
  readonly #lastSuccess = new Gauge({
    name: 'pkgcat_build_last_success_timestamp_seconds',
    help: 'When the last successful build run by serve --repo ended (Unix time).',
    registers: [this.registry],
  });

  /** `processMetrics`: also Node's default process metrics (one registry per process should: `serve` has it). */
  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics) {
      collectDefaultMetrics({ register: this.registry });
      // Gauges named like counters (promtool refuses them); the same figures remain by type, in nodejs_active_handles and the like.
      for (const name of MISNAMED_DEFAULT_METRICS) this.registry.removeSingleMetric(name);
    }
    const sources = this.#sources;
    new Gauge({
      name: 'pkgcat_build_running',
      help: '1 while serve --repo runs a build, else 0.',
      registers: [this.registry],
      collect() {
        this.set(sources.buildRunning?.() ? 1 : 0);
      },
    });
    const release = () => sources.release?.().catch(() => null) ?? Promise.resolve(null);
    new Gauge({
      name: 'pkgcat_release_available',
      help: '1 when a release is published and served, 0 before the first one.',
      registers: [this.registry],
      async collect() {
        this.set((await release()) ? 1 : 0);
      },
    });
    const whenReleased = (name: string, help: string, value: (found: NonNullable<Awaited<ReturnType<typeof release>>>, now: number) => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        async collect() {
          const found = await release();
          // No sample before the first release: an age of nothing is not zero.
          this.reset();
          if (found) this.set(value(found, (sources.now ?? Date.now)()));
        },
      });
    whenReleased('pkgcat_release_age_seconds', 'Seconds since the served release was published.', (found, now) => Math.max(0, (now - found.publishedAtMs) / 1000));
    whenReleased('pkgcat_release_published_timestamp_seconds', 'When the served release was published (Unix time).', (found) => found.publishedAtMs / 1000);
    whenReleased('pkgcat_release_tip_commit_timestamp_seconds', "The commit time of the served release's tip (Unix time).", (found) => found.tipCommittedAtMs / 1000);
    whenReleased('pkgcat_release_commits', "Commits on main's first-parent chain in the served release.", (found) => found.commits);

    /** Each cache's figure at scrape time, for the metrics labelled by cache. */
    const eachCache = (value: (stats: CacheStats & Partial<CacheLookups>) => number | undefined, take: (cache: string, figure: number) => void) => {
      for (const [cache, stats] of Object.entries(sources.caches?.() ?? {})) {
        const figure = value(stats);
        if (figure !== undefined) take(cache, figure);
      }
    };
    const cacheGauge = (name: string, help: string, value: (stats: CacheStats) => number | undefined) =>
      new Gauge({
        name,
        help,
        labelNames: ['cache'] as const,
        registers: [this.registry],
        collect() {
          this.reset();
          eachCache(value, (cache, figure) => this.set({ cache }, figure));
        },
      });
    cacheGauge('pkgcat_cache_bytes', 'Bytes a cache holds.', (stats) => stats.bytes);
    cacheGauge('pkgcat_cache_max_bytes', 'Bytes a cache may hold (its bound).', (stats) => stats.maxBytes);
    cacheGauge('pkgcat_cache_entries', 'Entries a cache holds.', (stats) => stats.entries);
    // Counters read from the caches' own counts (a cache counts its lookups; prom-client only reads them).
    const cacheCounter = (name: string, help: string, value: (stats: CacheStats & Partial<CacheLookups>) => number | undefined) =>
      new Counter({
        name,
        help,
        labelNames: ['cache'] as const,
        registers: [this.registry],
        collect() {
          this.reset();
          eachCache(value, (cache, figure) => this.inc({ cache }, figure));
        },
      });
    cacheCounter('pkgcat_cache_hits_total', 'Lookups a cache answered from what it holds.', (stats) => stats.hits);
    cacheCounter('pkgcat_cache_misses_total', 'Lookups a cache could not answer (the value was read, assembled or composed).', (stats) => stats.misses);

    new Gauge({
      name: 'pkgcat_session_store_up',
      help: 'Whether the session store (label store: sqlite or redis) answers: 1 or 0.',
      labelNames: ['store'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        const store = sources.sessionStore?.();
        if (store) this.set({ store: store.kind }, store.up ? 1 : 0);
      },
    });
  }

  /** Adds what the gauges read at scrape time (the gateway, the session store, the builds). */
  watch(sources: MetricSources): void {
    Object.assign(this.#sources, sources);
  }

  /** One answered request. `bytes`: the body bytes sent (0 for HEAD and X-Accel-Redirect). */
  request(route: string, method: string, status: number, seconds: number, bytes: number, encoding: string): void {
    this.#requests.inc({ route, method: KNOWN_METHODS.has(method) ? method : 'other', status_class: statusClass(status) });
    this.#duration.observe({ route }, seconds);
    if (bytes > 0) this.#bytes.inc({ encoding }, bytes);
  }

  toolCall(tool: string, result: ToolCallResult): void {
    this.#toolCalls.inc({ tool, result });
  }

  signIn(outcome: string): void {
    this.#signIns.inc({ outcome });
  }

  /** A build run by serve ended: its wall time, and (when it got so far) the figures it sent. */
  build(result: BuildResultLabel, seconds: number, figures: BuildFigures | null, now = Date.now()): void {
    this.#builds.inc({ result });
    this.#buildDuration.observe(seconds);
    this.#lastBuildFailed.set(result === 'failed' ? 1 : 0);
    if (result !== 'failed') this.#lastSuccess.set(now / 1000);
    if (!figures) return;
    this.#buildComposed.inc(figures.composed);
    this.#buildFiles.inc(figures.files);
    this.#buildBytes.inc(figures.bytes);
    for (const [level, count] of Object.entries(figures.diagnostics)) this.#buildDiagnostics.inc({ level }, count);
  }

  /** The exposition in the Prometheus text format, and its Content-Type. */
  async exposition(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}

/** prom-client's default gauges whose names end in `_total`, which Prometheus keeps for counters. */
const MISNAMED_DEFAULT_METRICS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** Methods counted by name; anything else is `other` (a client may send any token). */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);
