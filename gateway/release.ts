/**
 * The published release a request reads (DECISIONS.md 12: one state per request). A request
 * reads the `current` symlink once; everything it answers comes from that release and from the
 * write-once items of the packs under objects/. Parsed releases are kept per release id
 * (an id is never reused and a release directory never changes), the newest few only.
 */
import type { CommitInfo } from '../src/compose/types.ts';
import { currentReleaseIdSync, paths, readJson, type ChunkRef, type ReleaseInfo } from '../src/store/layout.ts';

export interface Release {
  readonly id: string;
  readonly dir: string;
  readonly info: ReleaseInfo;
  /** The chunks of its manifest: where each anonymous file's body is (src/store/manifest.ts). */
  readonly manifest: readonly ChunkRef[];
  /** The first-parent chain, newest first. */
  readonly chain: readonly CommitInfo[];
  /** Name key to canonical spelling, for the packages present at the tip. */
  readonly names: ReadonlyMap<string, string>;
  /** The chain's shas in ascending order, for prefix lookups (sha.ts). */
  readonly sortedShas: readonly string[];
}

/** Releases kept parsed: the current one and the one before, for requests that began on it. */
const KEEP = 2;

async function loadRelease(out: string, id: string): Promise<Release> {
  const dir = paths.release(out, id);
  const [info, chain, names, manifest] = await Promise.all([
    readJson<ReleaseInfo>(paths.releaseInfo(dir)),
    readJson<CommitInfo[]>(paths.chain(dir)),
    readJson<Record<string, string>>(paths.names(dir)),
    readJson<ChunkRef[]>(paths.manifest(dir)),
  ]);
  return {
    id,
    dir,
    info,
    manifest,
    chain,
    names: new Map(Object.entries(names)),
    sortedShas: chain.map((commit) => commit.sha).sort(),
  };
}

export class Releases {
  readonly #out: string;
  readonly #loaded = new Map<string, Promise<Release>>();

  constructor(out: string) {
    this.#out = out;
  }

  /** The release `current` points to now, or null when nothing has been published. */
  async current(): Promise<Release | null> {
    const id = currentReleaseIdSync(this.#out);
    if (id === null) return null;
    let loading = this.#loaded.get(id);
    if (!loading) {
      loading = loadRelease(this.#out, id);
      // A failed load (a release pruned under us) is not remembered; the next request retries.
      loading.catch(() => this.#loaded.delete(id));
      this.#loaded.set(id, loading);
      for (const old of this.#loaded.keys()) {
        if (this.#loaded.size <= KEEP) break;
        this.#loaded.delete(old);
      }
    }
    return loading;
  }
}
