/**
 * `/sitemap.xml` (sitemaps.org protocol 0.9), written with the `sitemap` package: the search
 * page, the changes page, every package page and every active advisory's page, as absolute URLs
 * from the site URL. No `lastmod`: a page shows the latest commit, so any date but "now" would be
 * a guess, and crawlers distrust dates that are not exact.
 *
 * One sitemap holds at most 50,000 URLs. Past that the sitemap keeps the first 50,000 (the two
 * pages, then packages by name, then advisories) and says how many it left out, which the build
 * reports (docs/decisions.md "Sitemap").
 */
import { SitemapStream, streamToPromise } from 'sitemap';
import { absolute, siteLink, type TipDocuments } from './documents.ts';

/** The protocol's limit on the URLs of one sitemap file. */
export const SITEMAP_URL_LIMIT = 50_000;

/** The pages a sitemap lists, in order. */
export function sitemapUrls(tip: TipDocuments): string[] {
  return [
    siteLink(tip, 'search-page'),
    siteLink(tip, 'changes-page'),
    ...[...tip.records.values()].map((record) => absolute(tip, record.links.page)),
    ...[...tip.advisories.keys()].map((id) => siteLink(tip, 'advisory-page', { id })),
  ];
}

/** How many pages sitemapUrls lists, without making their URLs. */
export const sitemapUrlCount = (tip: TipDocuments): number => 2 + tip.records.size + tip.advisories.size;

export interface Sitemap {
  readonly xml: string;
  /** URLs past the limit, left out. */
  readonly omitted: number;
}

export async function composeSitemap(tip: TipDocuments): Promise<Sitemap> {
  const urls = sitemapUrls(tip);
  const kept = urls.slice(0, SITEMAP_URL_LIMIT);
  // Only the protocol's own namespace: the image, video, news and xhtml extensions are not used.
  const stream = new SitemapStream({ xmlns: { news: false, xhtml: false, image: false, video: false } });
  const xml = streamToPromise(stream);
  // Written in one go, not piped from a Readable: a tenth of a second less for 3,000 URLs; they are in memory anyway.
  for (const url of kept) stream.write({ url });
  stream.end();
  return { xml: `${(await xml).toString('utf8')}\n`, omitted: urls.length - kept.length };
}
