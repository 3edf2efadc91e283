/**
 * The site's Astro project (docs/site.md). It is compiled once (build/site.ts, keyed by a hash of
 * its sources), not per commit: every page is server-rendered ('server' output) by calling the
 * compiled app with the page's view model, and the build writes the HTML into each release.
 * Stylesheets and the search script are inlined, so every page is one self-contained file that
 * any static host serves as it is, and nothing is fetched from elsewhere.
 */
import { defineConfig } from 'astro/config';
import renderAdapter from './render-adapter.ts';

export default defineConfig({
  output: 'server',
  adapter: renderAdapter(),
  // Pages link to paths without a trailing slash (`/pkgs/zlib`, `/changes`).
  trailingSlash: 'never',
  build: { inlineStylesheets: 'always' },
  // No image service: the site has no images to transform.
  image: { service: { entrypoint: 'astro/assets/services/noop' } },
  // Its caches stay inside the compiled output, which is not part of the repository.
  cacheDir: './dist/.cache',
  devToolbar: { enabled: false },
  vite: {
    cacheDir: './dist/.cache/vite',
    // Scripts and styles of any size are inlined into the page instead of emitted as files.
    build: { assetsInlineLimit: 1024 * 1024 },
  },
});
