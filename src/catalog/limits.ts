/**
 * The bounds of a catalog file (docs/catalog-format.md "Limits"). Everything downstream of a
 * parsed file (validation, composition, the serializer, the pages) may walk it recursively and
 * hold it whole, many times over; these bounds are what makes that safe, so they are checked on
 * the bytes and the parsed value before anything else looks at them, and a file past one is a
 * diagnostic, never a failed build. Pure.
 */
import { fieldPath, type FieldIssue } from '../schemas/catalog.ts';

/** The largest catalog file read (a manifest, an advisory, a scorecard): 4 MiB. */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** The deepest nesting of objects and arrays; the file's own object is level 1. An OSV record needs 7. */
export const MAX_DEPTH = 32;

/** The longest string (a value or a member name), in UTF-16 code units as JavaScript counts them. */
export const MAX_STRING_LENGTH = 65_536;

/** The most entries of one array (dependencies, categories, OSV ranges, versions). */
export const MAX_LIST_LENGTH = 50_000;

/**
 * Whether JSON `text` nests objects and arrays deeper than `limit`: one scan of the characters,
 * outside strings, before JSON.parse builds a value whose every walk would recurse that deep.
 * Text that is not JSON is left to the parser.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index++; // a backslash: the next character is escaped
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x7b || code === 0x5b) {
      if (++depth > limit) return true;
    } else if (code === 0x7d || code === 0x5d) {
      depth--;
    }
  }
  return false;
}

/**
 * Every string longer than MAX_STRING_LENGTH and every array longer than MAX_LIST_LENGTH in
 * `value`, in document order, walked with a stack of its own (a parsed file within MAX_DEPTH).
 */
export function lengthIssues(value: unknown): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const pending: { value: unknown; path: PropertyKey[] }[] = [{ value, path: [] }];
  while (pending.length > 0) {
    const { value: current, path } = pending.pop()!;
    if (typeof current === 'string') {
      if (current.length > MAX_STRING_LENGTH) issues.push({ path: fieldPath(path), message: `must be at most ${MAX_STRING_LENGTH} characters long, not ${current.length}` });
    } else if (Array.isArray(current)) {
      if (current.length > MAX_LIST_LENGTH) issues.push({ path: fieldPath(path), message: `must have at most ${MAX_LIST_LENGTH} entries, not ${current.length}` });
      else for (let index = current.length - 1; index >= 0; index--) pending.push({ value: current[index], path: [...path, index] });
    } else if (current !== null && typeof current === 'object') {
      const entries = Object.entries(current);
      if (entries.some(([key]) => key.length > MAX_STRING_LENGTH)) {
        issues.push({ path: fieldPath(path), message: `must not have a member name longer than ${MAX_STRING_LENGTH} characters` });
      }
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, member] = entries[index]!;
        if (key.length <= MAX_STRING_LENGTH) pending.push({ value: member, path: [...path, key] });
      }
    }
  }
  return issues;
}
