/**
 * What the surfaces read, made once per app: the output directory, its releases, and caches of
 * things that never change once written (state roots, composed diffs, compressed bodies).
 */
import { readStateRoot, type StateRoot } from '../src/store/layout.ts';
import { DiffStore } from './diff-store.ts';
import { CompressedCache } from './encoding.ts';
import { Lru, Once } from './lru.ts';
import { Releases } from './release.ts';

export interface CatalogLimits {
  /** Total bytes of compressed bodies kept in memory. Default 64 MiB. */
  readonly compressedBytes?: number;
  /** Total bytes of composed diffs kept in memory. Default 16 MiB. */
  readonly diffBytes?: number;
  /** Parsed state roots kept in memory. Default 256. */
  readonly stateRoots?: number;
}

export class Catalog {
  readonly out: string;
  readonly log: (line: string) => void;
  /** The public address of the site (DECISIONS.md 13) for rows that print absolute URLs; null when not configured. */
  readonly siteUrl: string | null;
  readonly releases: Releases;
  readonly diffs: DiffStore;
  readonly compressed: CompressedCache;
  readonly #roots: Lru<StateRoot>;
  readonly #once = new Once<StateRoot | null>();

  constructor(out: string, log: (line: string) => void, options: { siteUrl?: string; limits?: CatalogLimits } = {}) {
    const limits = options.limits ?? {};
    this.out = out;
    this.log = log;
    this.siteUrl = options.siteUrl ?? null;
    this.releases = new Releases(out);
    this.diffs = new DiffStore(out, log, limits.diffBytes);
    this.compressed = new CompressedCache(limits.compressedBytes ?? 64 * 1024 * 1024);
    this.#roots = new Lru<StateRoot>(limits.stateRoots ?? 256);
  }

  /** `states/<sha>.json`, parsed; write-once, so a parsed root is kept. Null when never built. */
  async stateRoot(sha: string): Promise<StateRoot | null> {
    const hit = this.#roots.get(sha);
    if (hit) return hit;
    return this.#once.run(sha, async () => {
      const root = await readStateRoot(this.out, sha);
      if (root) this.#roots.set(sha, root);
      return root;
    });
  }
}
