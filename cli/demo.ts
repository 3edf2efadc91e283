/** `pkgcat demo` (`npm start`): generates the demo catalog once, then builds and serves it. */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { log } from '../src/log.ts';
import { LAYOUT_VERSION } from '../src/store/layout.ts';
import { makeDemoCatalog } from '../demo/make-demo-catalog.ts';
import type { Settings } from './main.ts';
import { runServe } from './serve.ts';

export async function runDemo(settings: Settings & { siteUrl: string }): Promise<number> {
  const root = resolve('.demo');
  const repo = resolve(root, 'catalog');
  if (!existsSync(repo)) {
    const shas = await makeDemoCatalog(repo);
    log.info('demo.catalog_written', `wrote the demo catalog (${shas.length} commits) to ${repo}`, { repo, commits: shas.length });
  }
  const out = resolve(root, 'out');
  if (builtWithAnotherLayout(out)) {
    // The demo's output is scratch: an older pkgcat's build is rebuilt, not refused.
    rmSync(out, { recursive: true, force: true });
    log.warn('demo.rebuilding', `${out} was built by another version of pkgcat; building it again`, { out });
  }
  return runServe({
    ...settings,
    repo,
    out,
    users: resolve(settings.users ?? resolve(root, 'users.json')),
    sessionDir: resolve(settings.sessionDir ?? resolve(root, 'sessions')),
  });
}

function builtWithAnotherLayout(out: string): boolean {
  try {
    return (JSON.parse(readFileSync(join(out, 'layout.json'), 'utf8')) as { layout?: number }).layout !== LAYOUT_VERSION;
  } catch {
    return false;
  }
}
