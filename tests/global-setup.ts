/**
 * Before any test file: the site's pages are compiled once (build/site.ts), so the builds of the
 * test files find them compiled instead of waiting for each other's first compile.
 */
import { compileSite } from '../build/site.ts';

export default async function setup(): Promise<void> {
  await compileSite();
}
