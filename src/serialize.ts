/**
 * The one serializer. Every JSON body pkgcat emits (files, HTTP bodies, tool results, the
 * payload inlined in HTML pages) comes from here, so the same data gives the same bytes.
 *
 * - Object keys are sorted (UTF-16 code-unit order) at every depth: the bytes depend only on
 *   the data, never on the order in which it was assembled.
 * - `<`, `>`, `&`, U+2028 and U+2029 are written as `\u` escapes, so a body can sit inside an
 *   HTML `<script type="application/json">` unchanged.
 * - `undefined` members are omitted, as JSON.stringify does; non-finite numbers become null.
 *
 * Whole-catalog bodies are too large to store once per commit, so a value may contain
 * `StoredArray` placeholders: arrays whose items were serialized earlier and stored as
 * comma-joined chunks. `serializeSegments` then yields literal text and chunk references;
 * joining the chunks' bytes in order gives exactly what `serialize` gives for the whole value.
 */


/** A segment of a stored body: literal text, or a reference to a stored object by its hash. */
export type Segment = string | { readonly object: string };

/** An array whose items are stored as chunks: each chunk holds serialized items joined by ",". */
export class StoredArray {
  readonly chunks: readonly string[];
  constructor(chunks: readonly string[]) {
    this.chunks = chunks;
  }
}

/** A value serialized earlier and stored as one object: spliced in by reference. */
export class StoredValue {
  readonly object: string;
  constructor(object: string) {
    this.object = object;
  }
}

/** A value serialized earlier by this module, embedded as is (e.g. a stored package record). */
export class RawJson {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

const HTML_UNSAFE = /[<>&\u2028\u2029]/g;

function escapeChar(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

const HAS_HTML_UNSAFE = /[<>&\u2028\u2029]/;

function quote(text: string): string {
  const quoted = JSON.stringify(text);
  // Testing first is cheaper than a replace on the many strings with nothing to escape.
  return HAS_HTML_UNSAFE.test(quoted) ? quoted.replace(HTML_UNSAFE, escapeChar) : quoted;
}

function write(value: unknown, out: Segment[]): void {
  if (value === null || value === undefined) {
    out.push('null');
  } else if (typeof value === 'string') {
    out.push(quote(value));
  } else if (typeof value === 'number') {
    out.push(Number.isFinite(value) ? JSON.stringify(value) : 'null');
  } else if (typeof value === 'boolean') {
    out.push(value ? 'true' : 'false');
  } else if (value instanceof RawJson) {
    out.push(value.text);
  } else if (value instanceof StoredValue) {
    out.push({ object: value.object });
  } else if (value instanceof StoredArray) {
    out.push('[');
    value.chunks.forEach((hash, index) => {
      if (index > 0) out.push(',');
      out.push({ object: hash });
    });
    out.push(']');
  } else if (Array.isArray(value)) {
    out.push('[');
    for (let index = 0; index < value.length; index++) {
      if (index > 0) out.push(',');
      write(value[index] === undefined ? null : value[index], out);
    }
    out.push(']');
  } else if (typeof value === 'object') {
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
      write((value as { toJSON: () => unknown }).toJSON(), out);
      return;
    }
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort();
    out.push('{');
    keys.forEach((key, index) => {
      out.push(`${index > 0 ? ',' : ''}${quote(key)}:`);
      write(record[key], out);
    });
    out.push('}');
  } else {
    throw new TypeError(`cannot serialize a ${typeof value}`);
  }
}

/** Merges adjacent literal text so a stored recipe stays short. */
function coalesce(segments: Segment[]): Segment[] {
  const merged: Segment[] = [];
  for (const segment of segments) {
    const last = merged[merged.length - 1];
    if (typeof segment === 'string' && typeof last === 'string') merged[merged.length - 1] = last + segment;
    else merged.push(segment);
  }
  return merged;
}

/** Serializes a value that may contain StoredArray placeholders into literal text and chunk references. */
export function serializeSegments(value: unknown): Segment[] {
  const out: Segment[] = [];
  write(value, out);
  return coalesce(out);
}

/**
 * Serializes a plain value (no StoredArray) to the canonical JSON text: the same bytes as
 * joining `serializeSegments(value)`. Large documents (SBOMs, bundles) go through the engine's
 * JSON.stringify of a copy whose keys are in order, several times faster than building segments
 * (and twice as fast as sorting keys in a replacer, which the engine calls for every value); values
 * it cannot render alike (RawJson, keys like `"12"` that JavaScript orders numerically whatever the
 * insertion order, a `__proto__` key) take the segment walk.
 */
export function serialize(value: unknown): string {
  if (value === undefined) return 'null';
  try {
    return JSON.stringify(inKeyOrder(value)).replace(HTML_UNSAFE, escapeChar);
  } catch (error) {
    if (error !== NOT_PLAIN) throw error;
    const segments = serializeSegments(value);
    if (segments.length === 1 && typeof segments[0] === 'string') return segments[0];
    throw new TypeError('serialize() got a stored placeholder; use serializeSegments()');
  }
}

const NOT_PLAIN = new Error('not a plain value');
const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

/** A key JSON.stringify would not write where a sorted copy puts it, or a copy could not hold. */
const unlikeKey = (key: string): boolean => (key.charCodeAt(0) <= 57 && ARRAY_INDEX.test(key)) || key === '__proto__';

/**
 * `value` with the keys of every object in code-unit order: the value itself where they already
 * are, at every depth, else a copy of what is not. Throws NOT_PLAIN for what JSON.stringify would
 * write otherwise than the segment walk.
 */
function inKeyOrder(value: unknown): unknown {
  if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') throw new TypeError(`cannot serialize a ${typeof value}`);
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof RawJson || value instanceof StoredArray || value instanceof StoredValue) throw NOT_PLAIN;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return inKeyOrder((value as { toJSON(): unknown }).toJSON());
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      const ordered = inKeyOrder(item);
      if (ordered !== item) (copy ??= value.slice())[index] = ordered;
    }
    return copy ?? value;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let sorted = true;
  for (let index = 0; index < keys.length; index++) {
    if (unlikeKey(keys[index])) throw NOT_PLAIN;
    if (index > 0 && keys[index - 1] > keys[index]) sorted = false;
  }
  if (!sorted) keys.sort();
  let copy: Record<string, unknown> | null = sorted ? null : {};
  for (const key of keys) {
    const member = record[key];
    const ordered = inKeyOrder(member);
    if (copy) copy[key] = ordered;
    else if (ordered !== member) (copy = { ...record })[key] = ordered;
  }
  return copy ?? record;
}

/** Serializes items the way a stored chunk holds them: each item serialized, joined by ",". */
export function serializeChunk(items: readonly unknown[]): string {
  return items.map((item) => serialize(item)).join(',');
}
