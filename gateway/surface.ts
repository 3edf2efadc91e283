/**
 * The shape of a surface: one row of the route table (surfaces.ts). A row names its path, its
 * family and its default headers, and resolves a request to an Answer; the gateway does the rest
 * (parameters, gate, encoding, HEAD, errors), so a new document is a new row and no new plumbing.
 */
import type { Request } from 'express';
import type { StoredBody } from '../src/store/layout.ts';
import type { Catalog } from './catalog.ts';
import type { Release } from './release.ts';

/**
 * floating: no sha in the path, anonymous, the same bytes for every caller.
 * pinned:   under /api/pkgs/bundle/{sha}/..., behind the session gate, `private, no-store`.
 * alias:    anonymous redirect to a pinned URL (`bundle/latest.json`).
 */
export type Family = 'floating' | 'pinned' | 'alias';

export interface SurfaceRequest {
  readonly req: Request;
  readonly catalog: Catalog;
  /** The release this request reads (null: nothing published yet); read once per request. */
  readonly release: () => Promise<Release | null>;
  /** Path parameters, canonical: full shas, the canonical spelling of a floating `name`. */
  readonly params: Readonly<Record<string, string>>;
  /** Name key of `:pkg` on sha-pinned routes. */
  readonly packageKey: string | null;
}

interface AnswerHeaders {
  /** Overrides the row's Content-Type (an SBOM's follows its format). */
  readonly contentType?: string;
  /** Overrides the row's Cache-Control (recent commits when empty). */
  readonly cacheControl?: string;
}

export type Answer =
  /**
   * Bytes in memory. `identity` names them for the compressed-body cache (stable for these exact bytes);
   * `file`, when set, is a file under the output directory holding exactly these bytes (accel.ts).
   */
  | (AnswerHeaders & { readonly kind: 'bytes'; readonly bytes: Buffer; readonly identity: string; readonly etag?: string; readonly file?: string })
  /** A StoredBody of a state root: streamed segment by segment; its ETag is the body's. */
  | (AnswerHeaders & { readonly kind: 'stored'; readonly body: StoredBody })
  /** A content-addressed object, with `.br`/`.gz` siblings when the build wrote them. ETag `W/"<hash>"` unless given. */
  | (AnswerHeaders & { readonly kind: 'object'; readonly hash: string; readonly etag?: string })
  | { readonly kind: 'redirect'; readonly status: 301 | 302; readonly location: string; readonly cacheControl: string };

export interface Surface {
  /** Express path pattern; parameters are `:name`, `:pkg`, `:sha`, `:base` (params.ts). */
  readonly path: string;
  readonly family: Family;
  readonly contentType: string;
  readonly cacheControl: string;
  readonly resolve: (request: SurfaceRequest) => Promise<Answer>;
}
