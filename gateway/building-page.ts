/**
 * What a person sees while there is nothing to serve yet: the first build is composing, or its
 * pages come with its second release (build/publish.ts). A request for a page (GET or HEAD that
 * prefers `text/html` to JSON, as a browser's does) that would get a 404 or a 503 then gets a small
 * HTML page instead: the catalog is being built, how far the build has got, and a reload every
 * two seconds, until the page itself is there. Scripts (curl, fetch: no `Accept`, `*\/*` or JSON)
 * keep the JSON errors (SPEC.md Errors).
 *
 * The page is answered 503 with `Retry-After`, never cached: it describes this process now.
 */
import type { ErrorRequestHandler, Request } from 'express';
import { CACHE } from '../src/http/cache-control.ts';
import { CONTENT_TYPE } from '../src/http/content-types.ts';
import { HttpError, KEPT_ON_ERROR } from './errors.ts';
import type { Releases } from './release.ts';

/** The registry row of the search page: a release without it has no pages yet. */
const PAGES_ROW = 'search-page';
/** Seconds between reloads (and the `Retry-After`). */
const RELOAD_SECONDS = 2;

/** How far the build of this process (`serve --repo`) has got, as the page shows it. */
export interface BuildingStatus {
  /** A build is running (or waiting for another build of the output). */
  readonly running: boolean;
  /** Commits composed of those to compose; absent before the build says. */
  readonly composed?: { readonly done: number; readonly total: number };
  /** Every commit is composed: the release is being written (the pages last). */
  readonly publishing: boolean;
  /** The last build failed and will be tried again. */
  readonly failed: boolean;
}

export interface BuildingPageOptions {
  readonly releases: Releases;
  /** The build this process runs; absent or null: another process builds the output. */
  readonly building?: () => BuildingStatus | null;
}

/** Whether a request is a person's: a browser's GET prefers HTML; curl's `*\/*` and an absent `Accept` prefer JSON. */
function wantsPage(req: Request): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && req.accepts(['application/json', 'text/html']) === 'text/html';
}

/** What the page says of the build, in one sentence, and the share done (null: unknown). */
function progressOf(status: BuildingStatus | null): { text: string; done: number | null } {
  if (status?.failed && !status.running) return { text: 'The last attempt to build it failed; it is tried again shortly (the log says why).', done: null };
  if (status?.publishing) return { text: 'Every commit is composed; the pages are being written.', done: 1 };
  if (status?.composed) {
    const { done, total } = status.composed;
    return { text: `${done} of ${total} commits composed.`, done: total > 0 ? done / total : null };
  }
  if (status?.running) return { text: 'The build has started.', done: 0 };
  return { text: 'Waiting for the first build to be published.', done: null };
}

const STYLE = `
  :root { color-scheme: light dark; }
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; padding: 3rem 1rem; }
  main { max-width: 30rem; margin: 0 auto; }
  h1 { font-size: 1.5rem; margin: 0 0 1rem; }
  progress { width: 100%; height: 1rem; }
  .note { font-size: .9rem; opacity: .8; }
`;

export function renderBuildingPage(status: BuildingStatus | null): string {
  const { text, done } = progressOf(status);
  const percent = done === null ? null : Math.floor(done * 100);
  const bar = percent === null ? '<progress aria-label="Build progress"></progress>' : `<progress aria-label="Build progress" max="100" value="${percent}">${percent}%</progress>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="${RELOAD_SECONDS}">
<title>The catalog is being built · pkgcat</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>The catalog is being built</h1>
<p id="progress" role="status">${text}</p>
${bar}
<p class="note">This page reloads itself every ${RELOAD_SECONDS} seconds and shows the catalog as soon as it is ready, usually within seconds.</p>
</main>
</body>
</html>
`;
}

/** The error handler that answers a person with the page while nothing is served yet; anything else goes on to the JSON errors. */
export function buildingPage(options: BuildingPageOptions): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (!(error instanceof HttpError) || (error.status !== 404 && error.status !== 503) || !wantsPage(req) || res.headersSent) return next(error);
    options.releases.current().then(
      (release) => {
        const surfaces = release?.info.publicSurfaces;
        const nothingToShow = release === null || (surfaces !== undefined && !surfaces.includes(PAGES_ROW));
        if (!nothingToShow) return next(error);
        const body = Buffer.from(renderBuildingPage(options.building?.() ?? null), 'utf8');
        for (const name of res.getHeaderNames()) if (!KEPT_ON_ERROR.has(name)) res.removeHeader(name);
        res.status(503);
        res.setHeader('Content-Type', CONTENT_TYPE.html);
        res.setHeader('Cache-Control', CACHE.error);
        res.setHeader('Retry-After', String(RELOAD_SECONDS));
        res.setHeader('Content-Length', String(body.length));
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => next(error),
    );
  };
}
