/** Content-Type of every surface, with its charset where the type is text (the gateway's and the static hosts' rules). */
export const CONTENT_TYPE = {
  json: 'application/json; charset=utf-8',
  cyclonedx: 'application/vnd.cyclonedx+json; charset=utf-8',
  spdx: 'application/spdx+json; charset=utf-8',
  svg: 'image/svg+xml; charset=utf-8',
  markdown: 'text/markdown; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  atom: 'application/atom+xml; charset=utf-8',
  html: 'text/html; charset=utf-8',
} as const;

/** The media type of a Content-Type, without its parameters (`application/json; charset=utf-8` gives `application/json`). */
export function mediaTypeOf(contentType: string): string {
  return contentType.split(';')[0]!.trim();
}
