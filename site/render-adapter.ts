/**
 * A minimal Astro adapter: the compiled server entry exports the Astro app itself
 * (render-entry.ts), so the build renders a page with `app.render(request, { locals })` in its
 * own process, with no HTTP server in between (docs/decisions.md "The site").
 */
import type { AstroIntegration } from 'astro';

export const ADAPTER_NAME = 'pkgcat-render';

export default function renderAdapter(): AstroIntegration {
  return {
    name: ADAPTER_NAME,
    hooks: {
      'astro:config:done': ({ setAdapter }) => {
        setAdapter({
          name: ADAPTER_NAME,
          entrypointResolution: 'auto',
          serverEntrypoint: new URL('./render-entry.ts', import.meta.url),
          supportedAstroFeatures: { serverOutput: 'stable', staticOutput: 'stable', hybridOutput: 'stable', sharpImageService: 'unsupported' },
        });
      },
    },
  };
}
