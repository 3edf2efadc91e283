/** A render worker of build/site.ts: loads the compiled site once, then renders each page posted to it. */
import { parentPort, workerData } from 'node:worker_threads';
import type { PageView } from '../src/site/pages.ts';
import { loadCompiled, renderPage } from './site-render.ts';

const site = await loadCompiled((workerData as { entry: string }).entry);

parentPort!.on('message', async ({ id, path, view }: { id: number; path: string; view: PageView }) => {
  try {
    const html = await renderPage(site, path, view);
    parentPort!.postMessage({ id, html }, [html.buffer as ArrayBuffer]);
  } catch (error) {
    parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
