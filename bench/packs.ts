/**
 * The object packs on their own (src/store/objects.ts): a writer puts N small JSON bodies (the
 * size of a deps.json, 40 to 340 bytes, and a tenth of them with a brotli-sized copy), as a build
 * does, a few at a time; then a reader in this process loads the index and looks up random keys;
 * then `--pack-builds` more writers add a small pack each and the packs are merged as builds do.
 *
 *   npm run bench -- packs [--pack-items 250000] [--pack-builds 20]
 *
 * Results go to bench/results/packs-synthetic.json; docs/benchmarks.md "Packs" quotes them.
 */
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PackObjects } from '../src/store/objects.ts';
import { count, machine, median, mib, projectRevision, table, writeResults } from './lib.ts';
import type { Suite, SuiteContext } from './suite.ts';

/** Puts in flight at once: what the build's ObjectStore allows. */
const AT_ONCE = 8;
const LOOKUPS = 20_000;

const itemOf = (index: number) => Buffer.from(JSON.stringify({ name: `package-${index}`, dependencies: Array.from({ length: index % 12 }, (_, at) => `dependency-${(index * 31 + at) % 5000}`) }));
const hashOf = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex').slice(0, 32);
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

async function putAll(objects: PackObjects, from: number, to: number): Promise<string[]> {
  const hashes: string[] = [];
  let next = from;
  await Promise.all(
    Array.from({ length: AT_ONCE }, async () => {
      while (next < to) {
        const index = next++;
        const bytes = itemOf(index);
        const hash = hashOf(bytes);
        hashes.push(hash);
        await objects.put(hash, bytes);
        if (index % 10 === 0) await objects.put(hash, Buffer.alloc(bytes.length >> 1, index & 0xff), 'br');
      }
    }),
  );
  return hashes;
}

function folderFigures(out: string): { files: number; bytes: number } {
  const folder = join(out, 'objects');
  const files = readdirSync(folder);
  return { files: files.length, bytes: files.reduce((sum, file) => sum + statSync(join(folder, file)).size, 0) };
}

async function timed(reader: PackObjects, hashes: string[], read: (hash: string) => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  const micros: number[] = [];
  for (let at = 0; at < LOOKUPS; at++) {
    const hash = hashes[(at * 7919) % hashes.length];
    const started = performance.now();
    await read(hash);
    micros.push((performance.now() - started) * 1000);
  }
  micros.sort((a, b) => a - b);
  return { p50: percentile(micros, 0.5), p99: percentile(micros, 0.99) };
}

export const suite: Suite = {
  name: 'packs',
  description: 'the object packs alone: writes, index load, lookups, merging',
  options: { 'pack-items': { type: 'string' }, 'pack-builds': { type: 'string' } },
  usage: ['--pack-items <n>   objects the first writer puts (default 250000)', '--pack-builds <n>  small writers after it, each followed by a merge (default 20)'],
  async run(context: SuiteContext): Promise<void> {
    const items = Number(context.values['pack-items'] ?? 250_000);
    const builds = Number(context.values['pack-builds'] ?? 20);
    const out = join(context.work, 'out');
    const { log } = context;
    log(`== packs: ${count(items)} objects, then ${builds} small builds ==`);

    let started = performance.now();
    const writer = new PackObjects(out);
    const hashes = await putAll(writer, 0, items);
    await writer.close();
    const writeSeconds = (performance.now() - started) / 1000;
    const written = folderFigures(out);
    log(`  ${count(items)} puts (+ ${count(Math.ceil(items / 10))} copies) in ${writeSeconds.toFixed(1)} s; ${written.files} files, ${mib(written.bytes)}`);

    started = performance.now();
    const reader = new PackObjects(out);
    await reader.has(hashes[0]);
    const loadMs = performance.now() - started;
    const has = await timed(reader, hashes, (hash) => reader.has(hash));
    const get = await timed(reader, hashes, (hash) => reader.get(hash));
    log(`  index loaded in ${loadMs.toFixed(0)} ms; has p50 ${has.p50.toFixed(1)} µs, p99 ${has.p99.toFixed(1)} µs; get p50 ${get.p50.toFixed(1)} µs, p99 ${get.p99.toFixed(1)} µs`);

    const packsAfter: number[] = [];
    const mergeMs: number[] = [];
    for (let build = 0; build < builds; build++) {
      const small = new PackObjects(out);
      await putAll(small, items + build * 500, items + (build + 1) * 500);
      await small.seal();
      const merging = performance.now();
      await small.consolidate();
      mergeMs.push(performance.now() - merging);
      await small.close();
      packsAfter.push(readdirSync(join(out, 'objects')).filter((file) => file.endsWith('.pack')).length);
    }
    // The reader that loaded before the merges still finds every object.
    for (const hash of hashes.slice(0, 1000)) if (!(await reader.has(hash))) throw new Error(`object ${hash} is lost after merging`);
    await reader.close();
    log(`  after ${builds} builds of 500 objects: ${Math.max(...packsAfter)} packs at most, merging ${median(mergeMs).toFixed(0)} ms median, ${Math.max(...mergeMs).toFixed(0)} ms at most`);

    const file = await writeResults(context.resultsDir, 'packs-synthetic', {
      suite: 'packs',
      machine: machine(),
      project: projectRevision(context.root),
      items,
      write: { seconds: writeSeconds, ...written },
      index: { loadMs, has, get },
      builds: { count: builds, packsAfter, mergeMs },
    });
    log(table(['figure', 'value'], [
      ['puts', `${count(items)} in ${writeSeconds.toFixed(1)} s`],
      ['files, bytes', `${written.files}, ${mib(written.bytes)}`],
      ['index load', `${loadMs.toFixed(0)} ms`],
      ['has p50 / p99', `${has.p50.toFixed(1)} / ${has.p99.toFixed(1)} µs`],
      ['get p50 / p99', `${get.p50.toFixed(1)} / ${get.p99.toFixed(1)} µs`],
      ['packs after each build, at most', String(Math.max(...packsAfter))],
    ]));
    log(`raw results: ${file}`);
  },
};
