/** `pkgcat demo` (`npm start`): generates the demo catalog once, then builds and serves it. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { makeDemoCatalog } from '../demo/make-demo-catalog.ts';
import type { Settings } from './main.ts';
import { runServe } from './serve.ts';

export async function runDemo(settings: Settings): Promise<number> {
  const root = resolve('.demo');
  const repo = resolve(root, 'catalog');
  if (!existsSync(repo)) {
    const shas = await makeDemoCatalog(repo);
    process.stderr.write(`pkgcat: wrote the demo catalog (${shas.length} commits) to ${repo}\n`);
  }
  return runServe({
    ...settings,
    repo,
    out: resolve(root, 'out'),
    users: resolve(settings.users ?? resolve(root, 'users.json')),
    sessionDir: resolve(settings.sessionDir ?? resolve(root, 'sessions')),
  });
}
