/** Rendering one page with the compiled site: the same code in the build's thread and its render workers. */
import { pathToFileURL } from 'node:url';
import type { PageView } from '../src/site/pages.ts';

/** What the compiled entry exports (site/render-entry.ts). */
export interface CompiledSite {
  app: { render(request: Request, options: { locals: object }): Promise<Response> };
}

export async function loadCompiled(entry: string): Promise<CompiledSite> {
  return (await import(pathToFileURL(entry).href)) as CompiledSite;
}

/** Any origin: pages link site-relative, and absolute addresses come from the view (the site URL). */
const RENDER_ORIGIN = 'http://pkgcat.invalid';

/** The HTML of the page at `path`, laying out `view`, as UTF-8 bytes. */
export async function renderPage({ app }: CompiledSite, path: string, view: PageView): Promise<Uint8Array> {
  const response = await app.render(new Request(`${RENDER_ORIGIN}${path}`), { locals: { view } });
  // The bytes go to the file as they are: decoding them only to encode them again costs time on every page.
  const html = new Uint8Array(await response.arrayBuffer());
  if (response.status !== 200) throw new Error(`the site answered ${response.status} for ${path}: ${Buffer.from(html).toString('utf8', 0, 500)}`);
  return html;
}
