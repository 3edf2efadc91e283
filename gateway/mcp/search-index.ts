/**
 * The search index of each published release (src/compose/search.ts), built once from the tip's
 * stored listing bundle on the first search of that release, and shared by every call until the
 * next release. Only the newest two are kept, like the parsed releases (gateway/release.ts): a
 * call that began on the previous release still finds its index.
 */
import { buildSearchIndex, type SearchIndex } from '../../src/compose/search.ts';
import type { ListingBundle } from '../../src/schemas/wire.ts';
import type { Catalog } from '../catalog.ts';
import type { Latest } from './reads.ts';

const KEEP = 2;

export class SearchIndexes {
  readonly #catalog: Catalog;
  readonly #byRelease = new Map<string, Promise<SearchIndex>>();

  constructor(catalog: Catalog) {
    this.#catalog = catalog;
  }

  /** The index of the release's tip. */
  of({ release, root }: Latest): Promise<SearchIndex> {
    let index = this.#byRelease.get(release.id);
    if (!index) {
      index = this.#catalog.bundle(root.listing).assemble().then((bytes) => buildSearchIndex(JSON.parse(bytes.toString('utf8')) as ListingBundle));
      // A failed build (a release pruned under us) is not remembered; the next call retries.
      index.catch(() => this.#byRelease.delete(release.id));
      this.#byRelease.set(release.id, index);
      for (const old of this.#byRelease.keys()) {
        if (this.#byRelease.size <= KEEP) break;
        this.#byRelease.delete(old);
      }
    }
    return index;
  }
}
