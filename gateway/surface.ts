/**
 * What a resolver is: the code behind one registry row (src/surfaces/registry.ts). A resolver
 * takes parsed parameters and query values, never an Express request, and returns an Answer or
 * a typed Failure; the gateway turns a Failure into the specification's HTTP error
 * (errors.ts httpErrorOf), and the tool server will turn it into an `isError` result.
 */
import type { QueryValues } from '../src/surfaces/query.ts';
import type { SurfaceRow } from '../src/surfaces/registry.ts';
import type { AssembledBody, Catalog } from './catalog.ts';
import type { Release } from './release.ts';

export type { Family } from '../src/surfaces/registry.ts';

export interface ResolveRequest {
  readonly catalog: Catalog;
  /** The release this request reads (null: nothing published yet); read once per request. */
  readonly release: () => Promise<Release | null>;
  /** Path parameters, canonical: full shas, the canonical spelling of a floating `name`. */
  readonly params: Readonly<Record<string, string>>;
  /** Name key of `{name}` on sha-pinned routes. */
  readonly packageKey: string | null;
  /** The row's query parameters, each resolved to a value it understands (its default otherwise). */
  readonly query: QueryValues;
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
   * `file`, when set, is a file under the output directory holding exactly these bytes; `stableName`,
   * a name these exact bytes always have, whatever the release (a floats-latest document's object
   * and tip), so that the X-Accel-Redirect mode may write them to its cache (accel.ts).
   */
  | (AnswerHeaders & { readonly kind: 'bytes'; readonly bytes: Buffer; readonly identity: string; readonly etag?: string; readonly file?: string; readonly stableName?: string })
  /** A body joined from stored parts when asked for (a bundle, a joined document: catalog.ts AssembledBody), and kept as sent. */
  | (AnswerHeaders & { readonly kind: 'assembled' } & AssembledBody)
  /** A content-addressed object, with brotli and gzip copies when the build stored them. ETag `W/"<hash>"` unless given. */
  | (AnswerHeaders & { readonly kind: 'object'; readonly hash: string; readonly etag?: string })
  | { readonly kind: 'redirect'; readonly status: 301 | 302; readonly location: string; readonly cacheControl: string };

/** Why a resolver has no answer; the gateway maps each to its HTTP error (errors.ts httpErrorOf). */
export type Failure =
  /** The package is not in the catalog at that state (or has no such body there). */
  | { readonly kind: 'failure'; readonly reason: 'unknown-package'; readonly name: string }
  /** The catalog has no commits (or nothing is published yet). */
  | { readonly kind: 'failure'; readonly reason: 'no-commits' }
  /** No advisory by that id is active at the latest commit. */
  | { readonly kind: 'failure'; readonly reason: 'unknown-advisory'; readonly id: string }
  /** No such part of a document cut in parts (`/llms-full/{part}.txt`) at the latest commit. */
  | { readonly kind: 'failure'; readonly reason: 'unknown-part'; readonly part: string };

export const unknownPackageFailure = (name: string): Failure => ({ kind: 'failure', reason: 'unknown-package', name });
export const noCommitsFailure: Failure = { kind: 'failure', reason: 'no-commits' };
export const unknownAdvisoryFailure = (id: string): Failure => ({ kind: 'failure', reason: 'unknown-advisory', id });
export const unknownPartFailure = (part: string): Failure => ({ kind: 'failure', reason: 'unknown-part', part });

export type Resolver = (request: ResolveRequest) => Promise<Answer | Failure>;

/** A registry row as the gateway serves it. */
export type Surface = SurfaceRow;
