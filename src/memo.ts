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
