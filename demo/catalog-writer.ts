/**
 * Writes catalog histories (CATALOG-FORMAT.md) into git repositories with the git CLI.
 *
 * Deterministic: the same commits produce the same shas on any machine. Every commit is written
 * by one `git fast-import` stream with a fixed identity (`pkgcat demo <demo@example.invalid>`),
 * the given time as author and committer date (UTC, `+0000`), the message bytes exactly as given
 * (no trailing newline is added), and every file as mode 100644 (but
 * a SymbolicLink or a Gitlink). Git runs with the environment's
 * `GIT_*` variables removed, `GIT_CONFIG_NOSYSTEM=1`, and `-c` options that pin everything user
 * configuration could change about the result.
 *
 * Used by the demo catalog (demo/make-demo-catalog.ts) and by tests that need fixture catalogs.
 */
import { spawn } from 'node:child_process';
import { mkdir, realpath } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** A symbolic link (mode 120000) whose link text is `target`. */
export class SymbolicLink {
  readonly target: string;
  constructor(target: string) {
    this.target = target;
  }
}

/** A gitlink (mode 160000, a submodule's entry): a commit of another repository, with no blob. */
export class Gitlink {
  readonly commit: string;
  constructor(commit: string) {
    this.commit = commit;
  }
}

/**
 * A file's new content. Objects and arrays are written as `JSON.stringify(v, null, 2) + "\n"`;
 * `null` deletes the path.
 */
export type FileContent = string | Buffer | SymbolicLink | Gitlink | Record<string, unknown> | unknown[] | null;

export interface CatalogCommit {
  /** The commit message, byte-exact: raw bytes (invalid UTF-8) and the empty message are allowed. */
  message: string | Buffer;
  /** ISO-8601 time in whole seconds (e.g. `2026-03-01T12:00:00Z`), used as author and committer date. */
  time: string;
  /** Changes relative to the previous commit on `main`, applied in key order. */
  files?: Record<string, FileContent>;
}

export const DEMO_IDENTITY = { name: 'pkgcat demo', email: 'demo@example.invalid' } as const;

/** Options passed to every git invocation so that user or system configuration cannot change results. */
const PINNED_CONFIG: readonly string[] = [
  `user.name=${DEMO_IDENTITY.name}`,
  `user.email=${DEMO_IDENTITY.email}`,
  'init.defaultBranch=main',
  'core.autocrlf=false',
  'core.eol=lf',
  'core.safecrlf=false',
  'core.fileMode=true',
  'core.quotePath=false',
  'core.hooksPath=/dev/null',
  'commit.gpgSign=false',
  'tag.gpgSign=false',
  'i18n.commitEncoding=UTF-8',
  'gc.auto=0',
  'maintenance.auto=false',
  'advice.detachedHead=false',
  'fastimport.unpackLimit=0',
];

function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    // GIT_DIR, GIT_INDEX_FILE, GIT_AUTHOR_DATE, GIT_CONFIG_PARAMETERS, ... would all leak into results.
    if (!key.startsWith('GIT_')) env[key] = value;
  }
  env.GIT_CONFIG_NOSYSTEM = '1';
  env.GIT_TERMINAL_PROMPT = '0';
  return env;
}

function runGit(dir: string, args: string[], input?: string | Buffer): Promise<Buffer> {
  const argv: string[] = [];
  for (const option of PINNED_CONFIG) argv.push('-c', option);
  argv.push(...args);
  return new Promise((resolvePromise, reject) => {
    const child = spawn('git', argv, { cwd: dir, env: gitEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => reject(new Error(`git ${args.join(' ')}: ${error.message}`)));
    child.on('close', (code, signal) => {
      if (code === 0) {
        resolvePromise(Buffer.concat(out));
        return;
      }
      const stderr = Buffer.concat(err).toString('utf8').trim();
      const how = signal ? `signal ${signal}` : `exit code ${code}`;
      reject(new Error(`git ${args.join(' ')} failed (${how})${stderr ? `: ${stderr}` : ''}`));
    });
    // A git that exits early (bad arguments) closes stdin; the close handler reports the reason.
    child.stdin.on('error', () => {});
    child.stdin.end(input ?? '');
  });
}

/** Runs git in `dir`; resolves with stdout (UTF-8), rejects with git's stderr on failure. */
export async function git(dir: string, args: string[], input?: string | Buffer): Promise<string> {
  return (await runGit(dir, args, input)).toString('utf8');
}

/** Like `git`, but resolves with stdout's raw bytes (for `cat-file` of commits with non-UTF-8 messages). */
export async function gitBytes(dir: string, args: string[], input?: string | Buffer): Promise<Buffer> {
  return runGit(dir, args, input);
}

/** Creates a non-bare repository at `dir` with branch `main` and writes `commits` on it; returns their shas, oldest first. */
export async function createCatalogRepo(dir: string, commits: CatalogCommit[]): Promise<string[]> {
  const target = resolve(dir);
  await mkdir(target, { recursive: true });
  // `--template=` keeps user template directories (hooks, excludes) out of the repository.
  await git(target, ['init', '-q', '--template=', '-b', 'main', target]);
  await assertRepositoryRoot(target);
  if (await tipOf(target)) {
    throw new Error(`${target} already has a branch main; use appendCommits to add to it`);
  }
  return writeCommits(target, commits, null);
}

/** Writes `commits` on top of `main` of the repository at `dir` (a root commit when `main` does not exist yet). */
export async function appendCommits(dir: string, commits: CatalogCommit[]): Promise<string[]> {
  const target = resolve(dir);
  await assertRepositoryRoot(target);
  return writeCommits(target, commits, await tipOf(target));
}

async function writeCommits(dir: string, commits: CatalogCommit[], from: string | null): Promise<string[]> {
  if (commits.length === 0) return [];
  const stream = fastImportStream(commits, from);
  await runGit(dir, ['fast-import', '--quiet', '--done'], stream);
  const listed = await git(dir, ['rev-list', '--first-parent', `--max-count=${commits.length}`, 'refs/heads/main']);
  const shas = listed.split('\n').filter((line) => line !== '').reverse();
  if (shas.length !== commits.length) {
    throw new Error(`expected ${commits.length} new commits on main in ${dir}, found ${shas.length}`);
  }
  await syncWorkTree(dir);
  return shas;
}

/** Brings the index and work tree in line with `main` when `main` is the checked-out branch of a non-bare repository. */
async function syncWorkTree(dir: string): Promise<void> {
  if ((await git(dir, ['rev-parse', '--is-bare-repository'])).trim() === 'true') return;
  let head: string;
  try {
    head = (await git(dir, ['symbolic-ref', '-q', 'HEAD'])).trim();
  } catch {
    return; // detached HEAD: someone chose what to look at; leave it.
  }
  if (head !== 'refs/heads/main') return;
  await git(dir, ['reset', '-q', '--hard', 'refs/heads/main']);
}

async function tipOf(dir: string): Promise<string | null> {
  try {
    return (await git(dir, ['rev-parse', '-q', '--verify', 'refs/heads/main^{commit}'])).trim() || null;
  } catch {
    return null;
  }
}

/** Refuses to write into a repository found above `dir` (a directory inside some other checkout). */
async function assertRepositoryRoot(dir: string): Promise<void> {
  let gitDir: string;
  try {
    gitDir = (await git(dir, ['rev-parse', '--absolute-git-dir'])).trim();
  } catch (error) {
    throw new Error(`${dir} is not a git repository: ${(error as Error).message}`);
  }
  const real = await realpath(dir);
  const realGitDir = await realpath(gitDir);
  if (realGitDir !== real && dirname(realGitDir) !== real) {
    throw new Error(`${dir} is not the root of a git repository (git found ${gitDir})`);
  }
}

function unixSeconds(time: string): number {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(time)) {
    throw new Error(`commit time must be ISO-8601 with a zone, e.g. 2026-03-01T12:00:00Z: ${JSON.stringify(time)}`);
  }
  const ms = Date.parse(time);
  if (Number.isNaN(ms)) throw new Error(`invalid commit time: ${JSON.stringify(time)}`);
  if (ms % 1000 !== 0) throw new Error(`commit time must be whole seconds: ${JSON.stringify(time)}`);
  return ms / 1000;
}

function checkPath(path: string): void {
  const parts = path.split('/');
  if (path === '' || parts.some((part) => part === '' || part === '.' || part === '..' || part === '.git')) {
    throw new Error(`invalid repository path: ${JSON.stringify(path)}`);
  }
  if (path.includes('\0')) throw new Error(`invalid repository path: ${JSON.stringify(path)}`);
}

/** A path as fast-import reads it: C-style quoted when it could be misread unquoted. */
function streamPath(path: string): string {
  if (!/["\\\n\r\t]/.test(path) && !path.startsWith(' ')) return path;
  let quoted = '"';
  for (const byte of Buffer.from(path, 'utf8')) {
    if (byte === 0x22) quoted += '\\"';
    else if (byte === 0x5c) quoted += '\\\\';
    else if (byte === 0x0a) quoted += '\\n';
    else if (byte === 0x0d) quoted += '\\r';
    else if (byte === 0x09) quoted += '\\t';
    else if (byte < 0x20 || byte >= 0x7f) quoted += `\\${byte.toString(8).padStart(3, '0')}`;
    else quoted += String.fromCharCode(byte);
  }
  return `${quoted}"`;
}

function fileBytes(path: string, content: Exclude<FileContent, null>): Buffer {
  if (typeof content === 'string') return Buffer.from(content, 'utf8');
  if (Buffer.isBuffer(content)) return content;
  if (typeof content === 'object') return Buffer.from(`${JSON.stringify(content, null, 2)}\n`, 'utf8');
  throw new Error(`unsupported content for ${path}: ${typeof content}`);
}

function fastImportStream(commits: CatalogCommit[], from: string | null): Buffer {
  const chunks: Buffer[] = [];
  const text = (value: string) => chunks.push(Buffer.from(value, 'utf8'));
  const data = (bytes: Buffer) => {
    text(`data ${bytes.length}\n`);
    chunks.push(bytes);
    text('\n');
  };
  const ident = `${DEMO_IDENTITY.name} <${DEMO_IDENTITY.email}>`;
  commits.forEach((commit, index) => {
    const when = unixSeconds(commit.time);
    const message = typeof commit.message === 'string' ? Buffer.from(commit.message, 'utf8') : commit.message;
    if (!Buffer.isBuffer(message)) throw new Error(`commit ${index}: message must be a string or a Buffer`);
    text('commit refs/heads/main\n');
    text(`author ${ident} ${when} +0000\n`);
    text(`committer ${ident} ${when} +0000\n`);
    data(message);
    // Later commits in the same stream continue from fast-import's own branch tip.
    if (index === 0 && from) text(`from ${from}\n`);
    for (const [path, content] of Object.entries(commit.files ?? {})) {
      checkPath(path);
      if (content === null) {
        text(`D ${streamPath(path)}\n`);
      } else if (content === undefined) {
        throw new Error(`commit ${index}: content of ${path} is undefined (use null to delete)`);
      } else if (content instanceof Gitlink) {
        text(`M 160000 ${content.commit} ${streamPath(path)}\n`);
      } else if (content instanceof SymbolicLink) {
        text(`M 120000 inline ${streamPath(path)}\n`);
        data(Buffer.from(content.target, 'utf8'));
      } else {
        text(`M 100644 inline ${streamPath(path)}\n`);
        data(fileBytes(path, content));
      }
    }
    text('\n');
  });
  text('done\n');
  return Buffer.concat(chunks);
}
