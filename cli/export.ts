/** `pkgcat export`, and `build --export`: the published release as a tree for a static host (build/export.ts). */
import { exportRelease, ExportError } from '../build/export.ts';
import { log } from '../src/log.ts';
import { checkDirectory, Failure } from './errors.ts';

/** Exports the release `out` publishes into `to`, and says what it wrote. */
export async function exportTo(out: string, to: string, quiet: boolean): Promise<void> {
  try {
    const done = await exportRelease(out, to);
    const fields = { release: done.release, written: done.written, kept: done.kept, removed: done.removed, to };
    if (!quiet) log.info('export.done', `exported release ${done.release} into ${to}: ${done.written} files written, ${done.kept} unchanged, ${done.removed} removed`, fields);
  } catch (error) {
    if (error instanceof ExportError) throw new Failure(error.message);
    throw error;
  }
}

export async function runExport(options: { out: string; to: string; quiet: boolean }): Promise<number> {
  await checkDirectory(options.out, 'the output directory', { writable: false });
  await checkDirectory(options.to, 'the export directory', { writable: true });
  await exportTo(options.out, options.to, options.quiet);
  return 0;
}
