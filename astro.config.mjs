// The site (pages rendered from the same composed payloads) arrives with the site issue.
// Astro renders from the build's output; it never reads the catalog repository itself.
import { defineConfig } from 'astro/config';

export default defineConfig({
  output: 'static',
  outDir: './dist',
});
