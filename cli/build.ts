/** `pkgcat build`: builds every commit of main not built yet, then publishes the tip. */
import { buildCatalog } from '../build/build.ts';
import { endWithParent, tellParent } from './build-channel.ts';
import { checkDirectory } from './errors.ts';
import { writtenSoFar } from '../src/store/atomic.ts';

export async function runBuild(options: { repo: string; out: string; siteUrl: string; quiet: boolean; wait: boolean }): Promise<number> {
  // Run by `serve --repo`: never outlive it (build-channel.ts).
  endWithParent();
  await checkDirectory(options.out, 'the output directory', { writable: true });
  const started = performance.now();
  const result = await buildCatalog({
    repo: options.repo,
    out: options.out,
    siteUrl: options.siteUrl,
    progress: !options.quiet,
    waitForLock: options.wait
      ? (holder) => {
          process.stderr.write(`pkgcat: another build (pid ${holder ?? 'unknown'}) is writing ${options.out}; waiting for it to finish\n`);
          void tellParent({ kind: 'waiting', holder });
        }
      : undefined,
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const problems = result.diagnostics.length > 0 ? `, ${result.diagnostics.length} diagnostics (see ${options.out}/current/diagnostics.json)` : '';
  if (result.releaseId === null) {
    process.stderr.write(`pkgcat: ${result.tip.slice(0, 12)} is already built and published (${result.commits} commits); nothing to do\n`);
  } else {
    process.stderr.write(`pkgcat: built ${result.composed} new of ${result.commits} commits in ${seconds} s; published ${result.tip.slice(0, 12)}${problems}\n`);
  }
  const written = writtenSoFar();
  const diagnostics: Record<string, number> = {};
  for (const { level } of result.diagnostics) diagnostics[level] = (diagnostics[level] ?? 0) + 1;
  await tellParent({ kind: 'done', tip: result.tip, releaseId: result.releaseId, figures: { composed: result.composed, files: written.files, bytes: written.bytes, diagnostics } });
  return 0;
}
