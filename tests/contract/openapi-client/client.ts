/**
 * A small client of the JSON API typed by nothing but the types `openapi-typescript` generates
 * from the served OpenAPI document (`./api.ts`, written next to this file by
 * tests/contract/openapi-client.test.ts, which typechecks both with tsc and then calls every route
 * through it). This file is not part of the project's own typecheck: `./api.ts` exists only there.
 */
import type { paths } from './api.ts';

type Path = keyof paths;
type Operation<P extends Path> = paths[P]['get'];
/** The parameters of a route, as the document states them (`path`, `query`). */
type Parameters<P extends Path> = Pick<Operation<P>['parameters'], 'path' | 'query'>;
type Responses<P extends Path> = Operation<P>['responses'];
/** The body of a route's 200 in media type `M`. */
type Body<P extends Path, M extends string> = Responses<P> extends { 200: { content: infer C } } ? (M extends keyof C ? C[M] : never) : never;
type MediaType<P extends Path> = Responses<P> extends { 200: { content: infer C } } ? keyof C & string : never;

export interface Answer<T> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

export class PkgcatClient {
  constructor(
    private readonly base: string,
    /** The session cookie (`name=value`) the sha-pinned routes need. */
    private readonly cookie: string,
  ) {}

  url<P extends Path>(path: P, parameters: Parameters<P>): string {
    const values = (parameters.path ?? {}) as Record<string, string>;
    const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name]!));
    const query = new URLSearchParams(Object.entries((parameters.query ?? {}) as Record<string, string | number>).map(([key, value]) => [key, String(value)]));
    return `${this.base}${filled}${query.size > 0 ? `?${query}` : ''}`;
  }

  /** GET `path` and its 200 body in media type `media` (JSON parsed, anything else as text). */
  async get<P extends Path, M extends string>(path: P, media: M & MediaType<P>, parameters: Parameters<P>): Promise<Answer<Body<P, M>>> {
    const response = await fetch(this.url(path, parameters), { headers: { accept: media, cookie: this.cookie }, redirect: 'manual' });
    const text = await response.text();
    const body = (String(media).endsWith('json') ? JSON.parse(text) : text) as Body<P, M>;
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${text}`);
    return { status: response.status, headers: response.headers, body };
  }

  /** GET a route the document answers with a redirect only: its status and `Location`. */
  async redirect<P extends Path>(path: P, parameters: Parameters<P>): Promise<{ status: keyof Responses<P>; location: string }> {
    const response = await fetch(this.url(path, parameters), { redirect: 'manual' });
    return { status: response.status as keyof Responses<P>, location: response.headers.get('location') ?? '' };
  }
}

/** What the client read on every route, for the test to hold against the gateway. */
export interface EveryRoute {
  readonly bodies: Readonly<Record<string, unknown>>;
  readonly facts: Readonly<Record<string, unknown>>;
}

/** Calls every route of the document for package `name` at the tip and its parent. */
export async function callEveryRoute(client: PkgcatClient, name: string): Promise<EveryRoute> {
  const commits = (await client.get('/api/pkgs/recent-commits.json', 'application/json', { query: { limit: 2 } })).body;
  const sha: string = commits[0]!.sha;
  const base: string = (commits[1] ?? commits[0]!).sha;
  const record = (await client.get('/api/pkgs/{name}.json', 'application/json', { path: { name } })).body;
  const latest = await client.redirect('/api/pkgs/bundle/latest.json', {});
  const listing = (await client.get('/api/pkgs/bundle/{sha}.json', 'application/json', { path: { sha } })).body;
  const full = (await client.get('/api/pkgs/bundle/{sha}/full.json', 'application/json', { path: { sha } })).body;
  const deps = (await client.get('/api/pkgs/bundle/{sha}/{name}/deps.json', 'application/json', { path: { sha, name } })).body;
  const versions = (await client.get('/api/pkgs/bundle/{sha}/{name}/versions.json', 'application/json', { path: { sha, name } })).body;
  const pinnedSbom = (await client.get('/api/pkgs/bundle/{sha}/{name}/sbom.json', 'application/spdx+json', { path: { sha, name }, query: { format: 'spdx' } })).body;
  const diff = (await client.get('/api/pkgs/bundle/{sha}/diff/{base}.json', 'application/json', { path: { sha, base } })).body;
  const cyclonedx = (await client.get('/api/pkgs/{name}/sbom.json', 'application/vnd.cyclonedx+json', { path: { name }, query: { format: 'cyclonedx' } })).body;
  const badge = (await client.get('/api/pkgs/{name}/badge.svg', 'image/svg+xml', { path: { name }, query: { metric: 'advisories' } })).body;
  const openapi = (await client.get('/api/pkgs/openapi.json', 'application/json', {})).body;

  // @ts-expect-error: the generated types know a record's fields, and this is none of them.
  void record.package.noSuchField;
  // @ts-expect-error: `format` takes `cyclonedx` or `spdx` only.
  void client.url('/api/pkgs/{name}/sbom.json', { path: { name }, query: { format: 'xml' } });

  const facts = {
    tip: sha,
    recordName: record.package.name satisfies string,
    latestStatus: latest.status satisfies 302 | 404,
    latestLocation: latest.location,
    listingNames: listing.packages.map((card) => card.name),
    fullAdvisoryIds: Object.keys(full.advisories),
    dependencyNames: deps.dependencies.map((dependency) => `${dependency.name}${dependency.missing ? ' (missing)' : ''}`),
    versionCount: versions.versions.length,
    spdxVersion: pinnedSbom.spdxVersion satisfies string,
    diffFrom: `${diff.base}..${diff.sha}`,
    bomFormat: cyclonedx.bomFormat satisfies 'CycloneDX',
    badgeIsSvg: badge.startsWith('<svg'),
    openapiVersion: openapi.openapi,
  };
  const bodies = { record, listing, full, deps, versions, pinnedSbom, diff, cyclonedx, badge, openapi, commits };
  return { bodies, facts };
}
