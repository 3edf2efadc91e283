/**
 * Every URL of a catalog whose body must not depend on where it is served: for each commit, its
 * two bundles, its diff against every commit (itself included), and each package's deps.json,
 * versions.json and both SBOMs; then the floating JSON of the tip (records, SBOMs, recent
 * commits, the OpenAPI document). Read from a running gateway, signed in with `cookie`.
 */

export interface Fetched {
  status: number;
  etag: string | null;
  body: Buffer;
}

/** `shas`: the catalog's commits (any order; the newest is found from the gateway). */
export async function pinnedPaths(base: string, cookie: string, shas: readonly string[]): Promise<string[]> {
  const paths: string[] = [];
  const listing = async (sha: string) => {
    const response = await fetch(`${base}/api/pkgs/bundle/${sha}.json`, { headers: { cookie } });
    if (response.status !== 200) throw new Error(`the listing bundle of ${sha} answered ${response.status}`);
    return (await response.json()) as { packages: { name: string }[] };
  };
  for (const sha of shas) {
    paths.push(`/api/pkgs/bundle/${sha}.json`, `/api/pkgs/bundle/${sha}/full.json`);
    for (const other of shas) paths.push(`/api/pkgs/bundle/${sha}/diff/${other}.json`);
    for (const { name } of (await listing(sha)).packages) {
      const at = `/api/pkgs/bundle/${sha}/${encodeURIComponent(name)}`;
      paths.push(`${at}/deps.json`, `${at}/versions.json`, `${at}/sbom.json`, `${at}/sbom.json?format=spdx`);
    }
  }
  const latest = await fetch(`${base}/api/pkgs/bundle/latest.json`, { redirect: 'manual' });
  const tip = /\/api\/pkgs\/bundle\/([0-9a-f]{40})\.json$/.exec(latest.headers.get('location') ?? '')?.[1];
  if (!tip) throw new Error(`latest.json answered ${latest.status} ${latest.headers.get('location')}`);
  for (const { name } of (await listing(tip)).packages) {
    const at = `/api/pkgs/${encodeURIComponent(name)}`;
    paths.push(`${at}.json`, `${at}/sbom.json`, `${at}/sbom.json?format=spdx`);
  }
  paths.push('/api/pkgs/recent-commits.json', '/api/pkgs/openapi.json');
  return paths;
}

/** Each path's status, ETag and body, a few requests at a time. */
export async function fetchAll(base: string, cookie: string, paths: readonly string[]): Promise<Map<string, Fetched>> {
  const answers = new Map<string, Fetched>();
  const queue = [...paths];
  const worker = async () => {
    for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
      const response = await fetch(`${base}${path}`, { headers: { cookie } });
      answers.set(path, { status: response.status, etag: response.headers.get('etag'), body: Buffer.from(await response.arrayBuffer()) });
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return answers;
}
