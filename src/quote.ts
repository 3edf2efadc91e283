/**
 * Quoting a value someone else wrote (a requested name, a URL in catalog data) in a message:
 * at most QUOTE_MAX_CHARACTERS of it, so a 10 KB name or a `data:` URL never makes a 10 KB error
 * body or diagnostic line. Pure.
 */

export const QUOTE_MAX_CHARACTERS = 100;

/** `value` cut after QUOTE_MAX_CHARACTERS characters (code points: a surrogate pair is never split). */
function cut(value: string): { head: string; length: number } | null {
  if (value.length <= QUOTE_MAX_CHARACTERS) return null;
  const characters = Array.from(value);
  return characters.length <= QUOTE_MAX_CHARACTERS ? null : { head: characters.slice(0, QUOTE_MAX_CHARACTERS).join(''), length: characters.length };
}

/** `value` in JSON string quotes; a longer one is cut and says how long it was: `"abc..."... (10240 characters)`. */
export function quoted(value: string): string {
  const long = cut(value);
  return long ? `${JSON.stringify(long.head)}... (${long.length} characters)` : JSON.stringify(value);
}

/** `value` as it is (for text that needs no quotes, such as hex), cut the same way. */
export function excerpt(value: string): string {
  const long = cut(value);
  return long ? `${long.head}... (${long.length} characters)` : value;
}
