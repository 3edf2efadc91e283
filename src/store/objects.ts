/**
 * Where the output's content-addressed objects are kept. The build writes objects and the gateway
 * and tool server read them only through `ObjectBackend`, so another backend (pack files, SQLite,
 * an object store: docs/decisions.md, "Storage") can replace the files without touching
 * composition or the surfaces.
 *
 * An object is named by the content hash of its plain bytes (hash.ts). What is stored under that
 * name may be compressed at rest (object-codec.ts; `readObject` gives the plain bytes). A body
 * served whole may also have precompressed copies, one per encoding.
 *
 * Today's backend, `FileObjects`: one file per object, `<out>/objects/<2 hex>/<30 hex>`, with
 * `.br` and `.gz` siblings for the precompressed copies; nginx's X-Accel-Redirect mode sends those
 * files itself (`file()`).
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from './atomic.ts';
import { CONTENT_HASH_LENGTH } from './hash.ts';
import { decodeAtRest } from './object-codec.ts';

/** The stored object itself, or one of its precompressed copies (the names of HTTP content codings). */
export type ObjectEncoding = 'identity' | 'br' | 'gzip';

export interface ObjectBackend {
  /** The bytes stored under `hash` (for `encoding`, default the object itself), or null when there are none. */
  get(hash: string, encoding?: ObjectEncoding): Promise<Buffer | null>;
  /**
   * Stores `bytes` under `hash`. Atomic: a reader finds all of them or nothing, also after a crash
   * or a SIGKILL. Write-once: the bytes under a hash never change, so storing them again is harmless.
   */
  put(hash: string, bytes: Uint8Array, encoding?: ObjectEncoding): Promise<void>;
  /** Whether bytes are stored under `hash` (for `encoding`). */
  has(hash: string, encoding?: ObjectEncoding): Promise<boolean>;
  /** The hash of every stored object (precompressed copies are not listed), in no particular order. */
  list(): AsyncIterable<string>;
  /**
   * The file holding exactly the bytes stored under `hash` (for `encoding`), for a server that sends
   * files itself (nginx's X-Accel-Redirect); null when this backend keeps objects in no such file.
   * It names the file whether or not it exists (`has` says).
   */
  file(hash: string, encoding?: ObjectEncoding): string | null;
}

const SUFFIX: Record<ObjectEncoding, string> = { identity: '', br: '.br', gzip: '.gz' };
const HEX = /^[0-9a-f]+$/;

/** `<out>/objects`: the folder of FileObjects (layout.ts `paths.objects`). */
export const objectsFolder = (out: string): string => join(out, 'objects');

/** `<out>/objects/<2 hex>/<30 hex>`: the file of an object in FileObjects (layout.ts `paths.object`). */
export const objectFile = (out: string, hash: string): string => join(out, 'objects', hash.slice(0, 2), hash.slice(2));

/** One file per object under `<out>/objects/`, precompressed copies beside it. */
export class FileObjects implements ObjectBackend {
  readonly #out: string;
  /** Object directories (`objects/ab/`) made by this process: a build writes thousands of objects into a few hundred. */
  readonly #directories = new Map<string, Promise<unknown>>();

  constructor(out: string) {
    this.#out = out;
  }

  file(hash: string, encoding: ObjectEncoding = 'identity'): string {
    return `${objectFile(this.#out, hash)}${SUFFIX[encoding]}`;
  }

  async get(hash: string, encoding: ObjectEncoding = 'identity'): Promise<Buffer | null> {
    return readFile(this.file(hash, encoding)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
  }

  async put(hash: string, bytes: Uint8Array, encoding: ObjectEncoding = 'identity'): Promise<void> {
    const file = this.file(hash, encoding);
    const directory = dirname(file);
    let made = this.#directories.get(directory);
    if (!made) this.#directories.set(directory, (made = mkdir(directory, { recursive: true })));
    await made;
    await writeFileAtomic(file, bytes, { directoryExists: true });
  }

  async has(hash: string, encoding: ObjectEncoding = 'identity'): Promise<boolean> {
    return existsSync(this.file(hash, encoding));
  }

  async *list(): AsyncIterable<string> {
    const root = objectsFolder(this.#out);
    const prefixes = await readdir(root).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [] as string[];
      throw error;
    });
    for (const prefix of prefixes.sort()) {
      if (prefix.length !== 2 || !HEX.test(prefix)) continue;
      for (const rest of (await readdir(join(root, prefix))).sort()) {
        // Skips the precompressed copies and any temporary file of a write in progress.
        if (rest.length === CONTENT_HASH_LENGTH - 2 && HEX.test(rest)) yield prefix + rest;
      }
    }
  }
}

/** The object backend of an output directory. */
export function openObjects(out: string): ObjectBackend {
  return new FileObjects(out);
}

/** The plain bytes of a stored object (decompressed when stored compressed at rest); throws when it is missing. */
export async function readStoredObject(objects: ObjectBackend, hash: string): Promise<Buffer> {
  const stored = await objects.get(hash);
  if (!stored) throw new Error(`object ${hash} is missing from the object store`);
  return decodeAtRest(stored);
}
