/** `pkgcat build`: builds every commit of main not built yet, then publishes the tip. */
import { buildCatalog } from '../build/build.ts';
import { checkDirectory } from './errors.ts';

export async function runBuild(options: { repo: string; out: string; siteUrl: string; quiet: boolean }): Promise<number> {
  await checkDirectory(options.out, 'the output directory', { writable: true });
  const started = performance.now();
  const result = await buildCatalog({ repo: options.repo, out: options.out, siteUrl: options.siteUrl, progress: !options.quiet });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const problems = result.diagnostics.length > 0 ? `, ${result.diagnostics.length} diagnostics (see ${options.out}/current/diagnostics.json)` : '';
  if (result.releaseId === null) {
    process.stderr.write(`pkgcat: ${result.tip.slice(0, 12)} is already built and published (${result.commits} commits); nothing to do\n`);
  } else {
    process.stderr.write(`pkgcat: built ${result.composed} new of ${result.commits} commits in ${seconds} s; published ${result.tip.slice(0, 12)}${problems}\n`);
  }
  return 0;
}
