/** The compiled site's server entry: the Astro app, rendered in process by build/site.ts. */
import { createApp } from 'astro/app/entrypoint';

export const app = createApp({ streaming: false });
