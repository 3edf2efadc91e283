/** The session cookie's name: set by the sign-in (gateway/auth), named by the OpenAPI document's security scheme. */
export const SESSION_COOKIE = 'pkgcat.sid';
