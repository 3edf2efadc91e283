/**
 * The catalog reader: the only code in pkgcat that talks to git. It uses the git CLI, because
 * on real history one `git log --first-parent --raw` stream plus one long-running
 * `git cat-file --batch` process is orders of magnitude faster than a JavaScript git.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { stat } from 'node:fs/promises';
import type { CommitInfo } from '../compose/types.ts';

export type RepoErrorCode = 'git-missing' | 'not-a-repository' | 'no-main' | 'no-commits' | 'git-failed';

/** An unusable catalog repository; `message` is the one-line reason the CLI prints. */
export class CatalogRepoError extends Error {
  readonly code: RepoErrorCode;
  constructor(code: RepoErrorCode, message: string) {
    super(message);
    this.name = 'CatalogRepoError';
    this.code = code;
  }
}

/** One path changed by a commit, against its first parent. Blob ids are null where absent. */
export interface PathChange {
  path: string;
  oldBlob: string | null;
  newBlob: string | null;
}

export interface LoggedCommit {
  sha: string;
  /** First parent, or null for a root commit. */
  parent: string | null;
  pushedAt: string;
  changes: PathChange[];
}

export interface DiffStat {
  filesChanged: number;
  linesAdded: number;
  linesRemoved: number;
}

const ZERO_SHA = /^0+$/;
/** The empty tree: the "nothing" a first version is compared with. */
export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const BRANCH = 'refs/heads/main';
/** Folders of one parent at one commit from which one `ls-tree` lists them instead of a lookup each (CatalogRepo.folderTrees). */
const LIST_FOLDER_FROM = 16;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Committer time (unix seconds) as ISO-8601 UTC without fractional seconds. */
export function isoFromUnix(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}

/** First line of a raw commit message; null when empty or not valid UTF-8. */
export function firstLine(message: Buffer): string | null {
  let text: string;
  try {
    text = utf8.decode(message);
  } catch {
    return null;
  }
  const line = text.replace(/^\s+/, '').split('\n', 1)[0].replace(/\s+$/, '');
  return line === '' ? null : line;
}

/** Splits a raw commit object into its message bytes (after the first blank line). */
function messageOf(commitObject: Buffer): Buffer {
  const end = commitObject.indexOf('\n\n');
  return end < 0 ? Buffer.alloc(0) : commitObject.subarray(end + 2);
}

interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

function run(repo: string, args: string[]): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['-C', repo, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new CatalogRepoError('git-missing', 'git is not installed or not on PATH; pkgcat reads catalogs with the git CLI')
          : error,
      ),
    );
    child.on('close', (code) =>
      resolve({ code: code ?? 1, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8').trim() }),
    );
  });
}

async function runOk(repo: string, args: string[]): Promise<Buffer> {
  const result = await run(repo, args);
  if (result.code !== 0) throw new CatalogRepoError('git-failed', `git ${args[0]} failed in ${repo}: ${result.stderr}`);
  return result.stdout;
}

/**
 * A long-running git process that answers requests in order: a request is a line on its stdin,
 * and the subclass parses the answers from what its stdout has sent (`drain`), resolving the
 * oldest waiting request for each.
 */
abstract class GitPipe<T> {
  protected readonly child: ChildProcessWithoutNullStreams;
  protected readonly waiting: { resolve: (value: T) => void; reject: (error: Error) => void }[] = [];
  private failure: Error | null = null;
  private stderr = '';
  /** Whether this tick's requests are being gathered into one write. */
  private corked = false;

  constructor(repo: string, args: readonly string[]) {
    this.child = spawn('git', ['-C', repo, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    const fail = (error: Error) => {
      this.failure = error;
      for (const waiter of this.waiting.splice(0)) waiter.reject(error);
    };
    this.child.on('error', fail);
    this.child.on('close', () => fail(new CatalogRepoError('git-failed', `git ${args[0]} exited early${this.stderr ? `: ${this.stderr.trim()}` : ''}`)));
  }

  /**
   * Writes `text` (whole lines) and resolves with the answer drain() gives for it. The requests of
   * one tick go to git in one write: a write each (a commit's files, a release's folders asked at
   * once) was a system call each, 11 s of the 200 s vcpkg's 16,193 commits took to compose.
   */
  protected ask(text: string): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      if (!this.corked) {
        this.corked = true;
        this.child.stdin.cork();
        process.nextTick(() => {
          this.corked = false;
          this.child.stdin.uncork();
        });
      }
      this.child.stdin.write(text);
    });
  }

  close(): void {
    this.child.removeAllListeners('close');
    this.child.on('close', () => {});
    this.child.stdin.end();
  }
}

/** An object as `git cat-file --batch` gives it. */
interface CatObject {
  id: string;
  type: string;
  body: Buffer;
}

/** A long-running `git cat-file --batch` process: reads any number of objects over one pipe. */
class ObjectReader extends GitPipe<CatObject | null> {
  private buffer: Buffer = Buffer.alloc(0);

  constructor(repo: string) {
    super(repo, ['cat-file', '--batch']);
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      this.drain();
    });
  }

  private drain(): void {
    while (this.waiting.length > 0) {
      const headerEnd = this.buffer.indexOf(10);
      if (headerEnd < 0) return;
      const header = this.buffer.subarray(0, headerEnd).toString('utf8');
      if (header.endsWith(' missing')) {
        this.buffer = this.buffer.subarray(headerEnd + 1);
        this.waiting.shift()!.resolve(null);
        continue;
      }
      const [id, type, sizeText] = header.split(' ');
      const size = Number(sizeText);
      if (this.buffer.length < headerEnd + 1 + size + 1) return;
      const body = Buffer.from(this.buffer.subarray(headerEnd + 1, headerEnd + 1 + size));
      this.buffer = this.buffer.subarray(headerEnd + 1 + size + 1);
      this.waiting.shift()!.resolve({ id, type, body });
    }
  }

  read(id: string): Promise<Buffer | null> {
    return this.request(id).then((object) => object && object.body);
  }

  /** The object `name` (an id or `<rev>:<path>`) names, with its id; null when missing. */
  request(name: string): Promise<CatObject | null> {
    return this.ask(`${name}\n`);
  }
}

/** A numstat record of `git diff-tree -z --numstat`: `<added>\t<removed>\t<path>` (`-` for binary files). Sticky: read where the last one ended. */
const NUMSTAT = /(-|\d+)\t(-|\d+)\t[^\0]*\0/y;
/** The line `git diff-tree --stdin --always` echoes before the records of each pair of trees. */
const PAIR_HEADER = /^[0-9a-f]{40,64} [0-9a-f]{40,64}\n/;

/**
 * A long-running `git diff-tree --stdin`: the numstat of any number of pairs of trees over one
 * pipe (a `git diff` per shipped version cost a process each: a tenth of a full build's time).
 * With --always, git echoes each pair before its records. Every request is followed by a root
 * commit: git diffs a commit against its parents, a root commit has none, so it writes only the
 * commit's id, which marks where the request's records end and makes git flush its output (it
 * does not after a pair of trees).
 */
class TreeDiffer extends GitPipe<DiffStat> {
  private buffer = '';
  private readonly root: string;

  /** `root`: a commit without parents. */
  constructor(repo: string, root: string) {
    super(repo, ['diff-tree', '--stdin', '--always', '-r', '-z', '--numstat', '--no-renames']);
    this.root = root;
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      this.buffer += chunk;
      this.drain();
    });
  }

  /** Answers the requests whose end marker has arrived: a pair's echo, its records, the root's id. */
  private drain(): void {
    const marker = `${this.root}\0`;
    while (this.waiting.length > 0) {
      const header = PAIR_HEADER.exec(this.buffer);
      if (!header) return;
      const stat: DiffStat = { filesChanged: 0, linesAdded: 0, linesRemoved: 0 };
      let position = header[0].length;
      for (;;) {
        NUMSTAT.lastIndex = position;
        const record = NUMSTAT.exec(this.buffer);
        if (!record) break;
        stat.filesChanged += 1;
        stat.linesAdded += record[1] === '-' ? 0 : Number(record[1]);
        stat.linesRemoved += record[2] === '-' ? 0 : Number(record[2]);
        position = NUMSTAT.lastIndex;
      }
      if (!this.buffer.startsWith(marker, position)) return;
      this.buffer = this.buffer.slice(position + marker.length);
      this.waiting.shift()!.resolve(stat);
    }
  }

  /** Files changed and lines added and removed from tree `from` to tree `to`. */
  diff(from: string, to: string): Promise<DiffStat> {
    return this.ask(`${from} ${to}\n${this.root}\n`);
  }
}

/**
 * Parses `git log -z --raw --format=%x01%H %P %ct` output. Tokens are NUL-separated: a header
 * token starts with \x01; a raw entry is a `:meta` token followed by a path token.
 */
export function parseRawLog(output: Buffer): LoggedCommit[] {
  const commits: LoggedCommit[] = [];
  const text = output.toString('latin1'); // byte-preserving; paths are re-decoded below
  let position = 0;
  let pendingMeta: string | null = null;
  while (position < text.length) {
    let end = text.indexOf('\0', position);
    if (end < 0) end = text.length;
    const token = text.slice(position, end).replace(/^\n/, '');
    position = end + 1;
    if (pendingMeta !== null) {
      const [, , oldId, newId] = pendingMeta.slice(1).split(' ');
      commits[commits.length - 1].changes.push({
        path: Buffer.from(token, 'latin1').toString('utf8'),
        oldBlob: ZERO_SHA.test(oldId) ? null : oldId,
        newBlob: ZERO_SHA.test(newId) ? null : newId,
      });
      pendingMeta = null;
    } else if (token.startsWith('\x01')) {
      // `<sha> <parents...> <time>`: a merge has several parents, a root commit none.
      const fields = token.slice(1).split(' ').filter(Boolean);
      const sha = fields[0];
      const time = fields[fields.length - 1];
      const firstParent = fields.length > 2 ? fields[1] : null;
      commits.push({ sha, parent: firstParent, pushedAt: isoFromUnix(Number(time)), changes: [] });
    } else if (token.startsWith(':')) {
      pendingMeta = token;
    }
  }
  return commits;
}

/** An opened catalog repository. Call close() when done (it ends the cat-file process). */
export class CatalogRepo {
  readonly path: string;
  private objects: ObjectReader | null = null;
  private differ: Promise<TreeDiffer> | null = null;
  /** A commit without parents, once a chain read has found one (its oldest commit). */
  private root: string | null = null;

  private constructor(path: string) {
    this.path = path;
  }

  /** Opens a repository, failing with a CatalogRepoError that says what is wrong. */
  static async open(path: string): Promise<CatalogRepo> {
    try {
      await stat(path);
    } catch {
      throw new CatalogRepoError('not-a-repository', `${path} does not exist`);
    }
    const inside = await run(path, ['rev-parse', '--git-dir']);
    if (inside.code !== 0) throw new CatalogRepoError('not-a-repository', `${path} is not a git repository`);
    const repo = new CatalogRepo(path);
    const head = await run(path, ['rev-parse', '--verify', '--quiet', `${BRANCH}^{commit}`]);
    if (head.code !== 0) {
      const any = await run(path, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
      if (any.code !== 0) throw new CatalogRepoError('no-commits', `${path} has no commits; a catalog needs commits on its main branch`);
      throw new CatalogRepoError('no-main', `${path} has no branch main; pkgcat reads only main (see docs/catalog-format.md)`);
    }
    return repo;
  }

  /** The sha main points at now. */
  async mainSha(): Promise<string> {
    return (await runOk(this.path, ['rev-parse', '--verify', `${BRANCH}^{commit}`])).toString('utf8').trim();
  }

  /** A commit without parents that `commit` descends from. */
  private async rootOf(commit: string): Promise<string> {
    return (await runOk(this.path, ['rev-list', '--max-parents=0', commit])).toString('utf8').split('\n')[0];
  }

  /**
   * The first-parent chain of `tip`, newest first (shas only). `known`: a chain read before, newest
   * first; when its newest commit is on `tip`'s chain, git walks only the commits after it (a
   * catalog's history is long, and a build adds a few commits to it).
   */
  async chain(tip: string, known: readonly string[] = []): Promise<string[]> {
    const chain = (await this.chainAfter(tip, known)) ?? (await runOk(this.path, ['rev-list', '--first-parent', tip])).toString('utf8').split('\n').filter(Boolean);
    this.root = chain.at(-1) ?? null;
    return chain;
  }

  /** `tip`'s chain made of `known` and the commits after its newest; null when that is not on `tip`'s chain (a force-push, a tip behind it). */
  private async chainAfter(tip: string, known: readonly string[]): Promise<string[] | null> {
    const [newest] = known;
    if (newest === undefined) return null;
    if (newest === tip) return [...known];
    const out = await run(this.path, ['rev-list', '--first-parent', '--parents', `${newest}..${tip}`]);
    if (out.code !== 0) return null;
    // Each line: a commit and its parents. The oldest new commit must have `newest` as its first parent.
    const added = out.stdout.toString('utf8').split('\n').filter(Boolean).map((line) => line.split(' '));
    return added.length > 0 && added.at(-1)![1] === newest ? [...added.map(([sha]) => sha), ...known] : null;
  }

  /**
   * First-parent commits from `tip` back to (not including) `after`, oldest first, each with the
   * paths it changed against its first parent. `after` must be on the chain (or null: from the root).
   */
  async log(tip: string, after: string | null): Promise<LoggedCommit[]> {
    const range = after ? [`${after}..${tip}`] : [tip];
    const out = await runOk(this.path, [
      'log', '-z', '--first-parent', '--diff-merges=first-parent', '--raw', '--no-renames', '--no-abbrev',
      '--format=%x01%H %P %ct', ...range,
    ]);
    return parseRawLog(out).reverse();
  }

  private reader(): ObjectReader {
    this.objects ??= new ObjectReader(this.path);
    return this.objects;
  }

  /** Reads one object's bytes (null when missing). */
  readObject(id: string): Promise<Buffer | null> {
    return this.reader().read(id);
  }

  /** Commit infos (with the first line of each message) for the given shas. */
  async commitInfos(commits: readonly { sha: string; pushedAt: string }[]): Promise<CommitInfo[]> {
    return Promise.all(
      commits.map(async ({ sha, pushedAt }) => {
        const object = await this.readObject(sha);
        return { sha, pushedAt, message: object ? firstLine(messageOf(object)) : null };
      }),
    );
  }

  /**
   * File and line diff stats of each folder `dir` from commit `from` (null: the empty tree) to
   * `to`, as git's --numstat counts them; binary files count as changed with no lines. The folders'
   * trees are looked up (`folderTrees`) and compared by the long-running diff-tree, not a `git diff`.
   */
  async diffStats(to: string, changes: readonly { dir: string; from: string | null }[]): Promise<DiffStat[]> {
    const trees = await this.folderTrees([...changes.map(({ dir }) => ({ commit: to, dir })), ...changes.flatMap(({ dir, from }) => (from === null ? [] : [{ commit: from, dir }]))]);
    const treeOf = (commit: string | null, dir: string) => (commit === null ? EMPTY_TREE : trees.get(`${commit}:${dir}`)!);
    return Promise.all(
      changes.map(async ({ dir, from }) => {
        const [before, after] = [treeOf(from, dir), treeOf(to, dir)];
        if (before === after) return { filesChanged: 0, linesAdded: 0, linesRemoved: 0 };
        this.differ ??= (this.root ? Promise.resolve(this.root) : this.rootOf(to)).then((root) => new TreeDiffer(this.path, root));
        return (await this.differ).diff(before, after);
      }),
    );
  }

  /**
   * The tree of each folder at its commit, by `<commit>:<dir>` (the empty tree where there is none).
   * git finds `<commit>:<dir>` by reading its parent folder's tree entry by entry, so looking up each
   * of a commit's 20,000 package folders that way read 20,000 times 20,000 entries (50 s; by the
   * same count about 20 minutes at 100,000 packages); past LIST_FOLDER_FROM folders of one parent, one `ls-tree` lists them all.
   */
  private async folderTrees(wanted: readonly { commit: string; dir: string }[]): Promise<Map<string, string>> {
    const groups = new Map<string, { commit: string; parent: string; dirs: Set<string> }>();
    for (const { commit, dir } of wanted) {
      const parent = dir.includes('/') ? dir.slice(0, dir.lastIndexOf('/')) : '';
      let group = groups.get(`${commit}:${parent}`);
      if (!group) groups.set(`${commit}:${parent}`, (group = { commit, parent, dirs: new Set() }));
      group.dirs.add(dir);
    }
    const trees = new Map<string, string>();
    await Promise.all(
      [...groups.values()].map(async ({ commit, parent, dirs }) => {
        if (dirs.size >= LIST_FOLDER_FROM) {
          const listed = await this.listFolder(commit, parent);
          for (const dir of dirs) trees.set(`${commit}:${dir}`, listed.get(dir) ?? EMPTY_TREE);
          return;
        }
        await Promise.all(
          [...dirs].map(async (dir) => {
            const object = await this.reader().request(`${commit}:${dir}`);
            // A folder that is not there (or a file by that name) compares as empty.
            trees.set(`${commit}:${dir}`, object?.type === 'tree' ? object.id : EMPTY_TREE);
          }),
        );
      }),
    );
    return trees;
  }

  /**
   * The subfolders of `parent` at `commit` (`''`: the top), by path, from its tree object read over
   * the long-running cat-file (a `git ls-tree` each spawned a process from a build's large one: 6 s
   * of vcpkg's history).
   */
  private async listFolder(commit: string, parent: string): Promise<Map<string, string>> {
    const tree = await this.reader().request(parent === '' ? `${commit}^{tree}` : `${commit}:${parent}`);
    const trees = new Map<string, string>();
    if (tree?.type !== 'tree') return trees;
    // Entries are `<mode> SP <name> NUL <object id, raw>`; the id is as long as the tree's own.
    const { body } = tree;
    const idBytes = tree.id.length / 2;
    for (let at = 0; at < body.length; ) {
      const space = body.indexOf(0x20, at);
      const nul = body.indexOf(0, space);
      const mode = body.toString('latin1', at, space);
      if (mode === '40000') trees.set(`${parent === '' ? '' : `${parent}/`}${body.toString('utf8', space + 1, nul)}`, body.toString('hex', nul + 1, nul + 1 + idBytes));
      at = nul + 1 + idBytes;
    }
    return trees;
  }

  close(): void {
    this.objects?.close();
    this.objects = null;
    void this.differ?.then((differ) => differ.close());
    this.differ = null;
  }
}

/** The sha main points at, or null when the repository or branch is not readable right now. */
export async function readMainSha(repo: string): Promise<string | null> {
  const result = await run(repo, ['rev-parse', '--verify', '--quiet', `${BRANCH}^{commit}`]).catch(() => null);
  return result && result.code === 0 ? result.stdout.toString('utf8').trim() : null;
}

/** The repository's git directory (where refs change), absolute. */
export async function gitDirectory(repo: string): Promise<string> {
  return (await runOk(repo, ['rev-parse', '--absolute-git-dir'])).toString('utf8').trim();
}
