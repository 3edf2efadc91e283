/**
 * A pure function's results kept by argument: for the small functions a release calls again and
 * again with the same few thousand arguments (a package's page link, a name escaped for markdown,
 * an SBOM's serial number, all made for every path and every document that names them). At most
 * `limit` results are kept; past that, all are forgotten at once, so memory stays bounded.
 */
export function memoized<T>(compute: (argument: string) => T, limit = 100_000): (argument: string) => T {
  const results = new Map<string, T>();
  return (argument) => {
    let result = results.get(argument);
    if (result === undefined) {
      if (results.size >= limit) results.clear();
      results.set(argument, (result = compute(argument)));
    }
    return result;
  };
}

/**
 * The first instance of each distinct string it is given, for as long as it lives: where parsed or
 * composed text repeats the same names and inputs thousands of times, one string each instead of
 * one per occurrence.
 */
export const sharedStrings = (): ((text: string) => string) => memoized((text) => text, Number.POSITIVE_INFINITY);

/**
 * A pure function of an owner (a release's content, a state's documents) and an argument, its
 * results kept per owner for as long as the owner lives: made once per release, not once per
 * document that asks (a record parsed, an input hashed, a package's link).
 */
export function memoizedPer<Owner extends object, T>(compute: (owner: Owner, argument: string) => T): (owner: Owner, argument: string) => T {
  const byOwner = new WeakMap<Owner, Map<string, T>>();
  return (owner, argument) => {
    let results = byOwner.get(owner);
    if (!results) byOwner.set(owner, (results = new Map()));
    let result = results.get(argument);
    if (result === undefined && !results.has(argument)) results.set(argument, (result = compute(owner, argument)));
    return result as T;
  };
}

/**
 * A pure function of an object, its result kept for as long as the object lives (an object that
 * is replaced, never changed in place: a stored item, a list kept from one release to the next).
 */
export function memoizedOn<Owner extends object, T>(compute: (owner: Owner) => T): (owner: Owner) => T {
  const results = new WeakMap<Owner, T>();
  return (owner) => {
    let result = results.get(owner);
    if (result === undefined) results.set(owner, (result = compute(owner)));
    return result;
  };
}
