import { currentReleaseId, paths, readJson, type ChunkRef } from './src/store/layout.ts';
import { manifestEntries } from './src/store/manifest.ts';
import { openObjects } from './src/store/objects.ts';
const load = async (out: string) => { const m = new Map<string, string>(); const rel = paths.release(out, (await currentReleaseId(out))!); for await (const [f, e] of manifestEntries(openObjects(out), await readJson<ChunkRef[]>(paths.manifest(rel)))) m.set(f, JSON.stringify([e.object, e.holes ?? [], e.length ?? null, e.joined ?? false, e.components ?? false])); return m; };
const a = await load(process.argv[2]); const b = await load(process.argv[3]);
let diff = 0; for (const [f, v] of a) if (b.get(f) !== v) { if (diff++ < 5) console.log('differs', f); }
console.log('entries', a.size, b.size, 'differ', diff);
