/**
 * A floating SBOM's components by reference. A package's SBOM lists every package of its
 * closure, each with its version, archive and hashes, so a popular package's version bump
 * would change the SBOMs of everything that reaches it (12,700 documents, 1.7 GB at 20,000
 * packages). The build stores a floating SBOM with a marker in each present component's place,
 * and whoever reads it (the gateway, the static export, the release check) puts the component's
 * text at the tip there (componentText in cyclonedx.ts): the stored document changes only when
 * what the SBOM says besides its components changes (docs/decisions.md, "What a document is
 * made from").
 *
 * A marker is `"<NUL><scope> <name key><NUL>"` where a component's JSON object goes. A
 * serialized document never holds a NUL byte (JSON escapes it), nor does a name key or a scope
 * hold a space (src/grammar.ts), so a marker is found by its NUL and read back whole. Pure.
 */
import type { ComponentScope } from './subject.ts';
import { nameKey } from '../../grammar.ts';

const NUL = 0;
const QUOTE = 0x22;

/** The marker of the component `name` with `scope`. */
export const componentMarker = (scope: ComponentScope, name: string): string => `"\u0000${scope} ${nameKey(name)}\u0000"`;

/** A marker's component: `<scope> <name key>`, the key of the texts `fillComponentMarkers` takes. */
export interface MarkedComponent {
  readonly scope: ComponentScope;
  readonly key: string;
}

/** Where each marker of `bytes` sits: [start, end) with its quotes, in order. */
function markerSpans(bytes: Buffer): { start: number; end: number; label: string }[] {
  const spans: { start: number; end: number; label: string }[] = [];
  for (let at = bytes.indexOf(NUL); at !== -1; at = bytes.indexOf(NUL, at)) {
    const close = bytes.indexOf(NUL, at + 1);
    if (close === -1 || bytes[at - 1] !== QUOTE || bytes[close + 1] !== QUOTE) throw new Error('a stored SBOM holds a broken component marker');
    spans.push({ start: at - 1, end: close + 2, label: bytes.toString('utf8', at + 1, close) });
    at = close + 1;
  }
  return spans;
}

/** The components `bytes` marks, each once. */
export function markedComponents(bytes: Buffer): MarkedComponent[] {
  const labels = new Set(markerSpans(bytes).map(({ label }) => label));
  return [...labels].map((label) => {
    const [scope, key] = label.split(' ');
    return { scope: scope as ComponentScope, key };
  });
}

/** `bytes` with each marker replaced by its component's text, `texts` by `<scope> <name key>`. */
export function fillComponentMarkers(bytes: Buffer, texts: ReadonlyMap<string, string>): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (const { start, end, label } of markerSpans(bytes)) {
    const text = texts.get(label);
    if (text === undefined) throw new Error(`a stored SBOM lists the component ${label}, which the tip does not have`);
    parts.push(bytes.subarray(from, start), Buffer.from(text, 'utf8'));
    from = end;
  }
  if (from === 0) return bytes;
  parts.push(bytes.subarray(from));
  return Buffer.concat(parts);
}

/** The label of a component in `texts`. */
export const componentLabel = ({ scope, key }: MarkedComponent): string => `${scope} ${key}`;
