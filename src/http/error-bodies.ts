/**
 * The bodies of the JSON API's errors (SPEC.md Errors): `{"error": <code>, "message": <text>}`.
 * One source for the gateway's answers (gateway/errors.ts adds status and headers) and for the
 * examples of the OpenAPI document (src/compose/openapi.ts), so the document shows what the
 * gateway says, word for word.
 */
import type { ErrorBody } from '../schemas/wire.ts';

export const ERROR_BODY = {
  /** 404: any path no route answers. */
  unknownPath: (): ErrorBody => ({ error: 'not_found', message: 'Nothing is served at this path.' }),
  /** 404: a `{name}` that breaks the grammar, is shadowed by a fixed route, or is not in the catalog. */
  unknownPackage: (name: string): ErrorBody => ({ error: 'not_found', message: `No package named ${JSON.stringify(name)} in the catalog.` }),
  /** 404: a well-formed sha (7 to 40 hex) that is not on main's first-parent chain. */
  unknownSha: (value: string): ErrorBody => ({ error: 'not_found', message: `No commit ${value} on the main branch.` }),
  /** 404: a `{sha}`/`{base}` that is not 7 to 40 lowercase hex characters. */
  malformedSha: (): ErrorBody => ({ error: 'not_found', message: 'A commit is named by 40 lowercase hex characters, or a unique prefix of 7 or more.' }),
  /** 404: nothing is published yet (a catalog with no commits). */
  noCommits: (): ErrorBody => ({ error: 'not_found', message: 'The catalog has no commits yet.' }),
  /** 400 `ambiguous sha`: a prefix of several commits. */
  ambiguousSha: (prefix: string, matches: number): ErrorBody => ({
    error: 'ambiguous sha',
    message: `The prefix ${prefix} matches ${matches} commits on the main branch; use more characters.`,
  }),
  /** 401 `auth_required` (SPEC.md Authentication 4). */
  authRequired: (): ErrorBody => ({
    error: 'auth_required',
    message: 'Sign in at /auth/login and replay the session cookie; sha-pinned bundles need a signed-in session.',
  }),
} as const;
