/**
 * The wire schema version carried by every JSON payload (its major version: a bump is a breaking
 * change). Its own module so that code needing only the number does not load the schemas (zod).
 */
export const SCHEMA_VERSION = 1;
