/// <reference types="astro/client" />
/** A page receives its view model (src/site/pages.ts) as `Astro.locals.view` (build/site.ts). */
declare namespace App {
  interface Locals {
    view: import('../../src/site/pages.ts').PageView;
  }
}
