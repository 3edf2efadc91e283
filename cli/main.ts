/**
 * The `pkgcat` command line. Flags and environment are read here, once, and passed down as
 * plain options: nothing below this file reads process.env or argv.
 *
 * Each command takes its own flags (an unknown or misplaced one is a usage error, exit 2), and
 * reads only its own flags' environment variables, so a variable set for `serve` (PORT, say) can
 * never break a `build`.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { tellParent } from './build-channel.ts';
import { hostnameOf } from '../gateway/mcp/allowed-hosts.ts';
import { oneLine, UsageError } from './errors.ts';
import { configureLog, log, type LogFormat } from '../src/log.ts';

type Env = Record<string, string | undefined>;

type FlagName =
  | 'repo' | 'out' | 'users' | 'port' | 'host' | 'site-url' | 'redis-url' | 'session-dir' | 'trust-proxy'
  | 'poll-seconds' | 'build-idle-seconds' | 'accel-redirect' | 'composed-cache-mb' | 'mcp-allowed-hosts' | 'signing-key' | 'digest' | 'key' | 'body' | 'url'
  | 'metrics-port' | 'metrics-host' | 'log-format' | 'access-log' | 'export' | 'to' | 'quiet' | 'wait' | 'help' | 'version';

interface Flag {
  type: 'string' | 'boolean';
  short?: string;
  /** The environment variable read when the flag is absent. */
  env?: string;
  /** The value's placeholder in the help text. */
  value?: string;
  help: string;
}

/** The site URL every command writes when none is given (the default address of `serve`, whatever address it listens on). */
export const DEFAULT_SITE_URL = 'http://127.0.0.1:8080';
const DEFAULT_PORT = 8080;
const DEFAULT_HOST = '127.0.0.1';
const DEFAULT_POLL_SECONDS = 2;
const DEFAULT_BUILD_IDLE_SECONDS = 600;
const DEFAULT_COMPOSED_CACHE_MB = 1024;
const DEFAULT_METRICS_HOST = '127.0.0.1';

const FLAGS: Record<FlagName, Flag> = {
  repo: { type: 'string', env: 'PKGCAT_REPO', value: '<dir>', help: 'the catalog git repository (see docs/catalog-format.md)' },
  out: { type: 'string', env: 'PKGCAT_OUT', value: '<dir>', help: 'the build output directory' },
  users: { type: 'string', env: 'PKGCAT_USERS', value: '<file>', help: 'the users file for signing in (created by `pkgcat user add`)' },
  port: { type: 'string', env: 'PORT', value: '<n>', help: `port to listen on, 0 to 65535; 0 picks a free one (default ${DEFAULT_PORT})` },
  host: { type: 'string', env: 'HOST', value: '<addr>', help: `address to listen on (default ${DEFAULT_HOST})` },
  'site-url': { type: 'string', env: 'PKGCAT_SITE_URL', value: '<url>', help: 'the public http(s) address of the site, for the sitemap, feeds, llms.txt and mirrors' },
  'redis-url': { type: 'string', env: 'PKGCAT_REDIS_URL', value: '<url>', help: 'share sessions through Redis instead of the local session database' },
  'session-dir': { type: 'string', env: 'PKGCAT_SESSION_DIR', value: '<dir>', help: 'where the local session database and the generated secret live (default: <out>/../<out name>-sessions)' },
  'trust-proxy': { type: 'string', env: 'PKGCAT_TRUST_PROXY', value: '<value>', help: 'Express "trust proxy" (e.g. 1, loopback); needed for Secure cookies behind TLS termination' },
  'poll-seconds': { type: 'string', env: 'PKGCAT_POLL_SECONDS', value: '<n>', help: `with --repo: how often to check main when file events are missed, in seconds above 0 (default ${DEFAULT_POLL_SECONDS})` },
  'build-idle-seconds': {
    type: 'string',
    env: 'PKGCAT_BUILD_IDLE_SECONDS',
    value: '<n>',
    help: `with --repo: how long the build process stays up after a build, holding the catalog in memory so the next commit builds from it, in seconds; 0: a process per build (default ${DEFAULT_BUILD_IDLE_SECONDS})`,
  },
  'accel-redirect': { type: 'string', env: 'PKGCAT_ACCEL_REDIRECT', value: '<path>', help: 'behind nginx: answer bodies with X-Accel-Redirect to this internal location aliasing --out (e.g. /_pkgcat; see docs/deployment.md)' },
  'composed-cache-mb': { type: 'string', env: 'PKGCAT_COMPOSED_CACHE_MB', value: '<n>', help: `disk space for the bodies the gateway writes on request under <out>/cache (diffs, SBOMs, X-Accel-Redirect bodies), in MiB; least recently used deleted first; 0 keeps none (default ${DEFAULT_COMPOSED_CACHE_MB})` },
  'mcp-allowed-hosts': {
    type: 'string',
    env: 'PKGCAT_MCP_ALLOWED_HOSTS',
    value: '<names>',
    help: 'hostnames, comma-separated, the tool server (/api/mcp) also answers in Host and Origin, besides the site URL\'s host and, on a loopback --host, localhost, 127.0.0.1 and [::1] (see docs/mcp.md)',
  },
  'signing-key': { type: 'string', env: 'PKGCAT_SIGNING_KEY', value: '<file>[,<file>]', help: "Ed25519 private keys (PEM) that sign each commit's digest at /api/digests/{sha}.json; two while a key is rolled over (see docs/deployment.md)" },
  digest: { type: 'string', env: 'PKGCAT_DIGEST', value: '<file|url>', help: "the origin's signed digest of a commit: a file, or its https URL (/api/digests/{sha}.json)" },
  export: { type: 'string', env: 'PKGCAT_EXPORT', value: '<dir>', help: 'after each published build, export the anonymous files into <dir> for a static host (as pkgcat export does)' },
  to: { type: 'string', env: 'PKGCAT_EXPORT_TO', value: '<dir>', help: 'the directory to export into: created when missing; new, empty, or an earlier export' },
  key: { type: 'string', env: 'PKGCAT_VERIFY_KEY', value: '<file>[,<file>]', help: "the origin's Ed25519 public keys (PEM) a signature of the digest must verify with" },
  body: { type: 'string', env: 'PKGCAT_BODY', value: '<file>', help: 'a body downloaded from a sha-pinned URL, to check against the verified mirror' },
  url: { type: 'string', env: 'PKGCAT_BODY_URL', value: '<url>', help: 'the sha-pinned URL (or path) --body was downloaded from' },
  'metrics-port': { type: 'string', env: 'PKGCAT_METRICS_PORT', value: '<n>', help: 'serve GET /metrics (Prometheus) on a listener of its own on this port, 0 picks a free one; none when unset (see docs/deployment.md)' },
  'metrics-host': { type: 'string', env: 'PKGCAT_METRICS_HOST', value: '<addr>', help: `address of the metrics listener (default ${DEFAULT_METRICS_HOST}: keep it off the public interface)` },
  'log-format': { type: 'string', env: 'PKGCAT_LOG_FORMAT', value: '<format>', help: 'json (one JSON object per line: level, time, event, msg, ...) or text (lines for a person); default: text on a terminal, json otherwise (see docs/deployment.md)' },
  'access-log': { type: 'string', env: 'PKGCAT_ACCESS_LOG', value: '<on|off>', help: 'one http.request line per answered request (default: on with --log-format json, off with text)' },
  quiet: { type: 'boolean', help: 'no progress lines (diagnostics are still printed)' },
  wait: { type: 'boolean', help: 'when another build is writing --out, wait for it to finish instead of exiting (what serve --repo does)' },
  help: { type: 'boolean', short: 'h', help: 'this text' },
  version: { type: 'boolean', short: 'V', help: "print pkgcat's version and exit" },
};

/** PKGCAT_SESSION_SECRET has no flag: a secret on the command line would show in `ps`. */
const SESSION_SECRET_HELP = 'PKGCAT_SESSION_SECRET  the secret that signs session cookies (at least 32 characters; generated and kept in the session dir when unset)';

type CommandName = 'build' | 'serve' | 'export' | 'verify' | 'user' | 'demo';

interface Command {
  usage: string[];
  summary: string;
  about: string;
  flags: FlagName[];
  /** A command's own wording of a flag, where the shared one would mislead. */
  flagHelp?: Partial<Record<FlagName, string>>;
  sessionSecret?: boolean;
  examples: string[];
}

const SERVE_FLAGS: FlagName[] = [
  'users', 'port', 'host', 'site-url', 'redis-url', 'session-dir', 'trust-proxy', 'poll-seconds', 'build-idle-seconds', 'accel-redirect', 'composed-cache-mb', 'mcp-allowed-hosts', 'signing-key',
  'metrics-port', 'metrics-host', 'log-format', 'access-log', 'export',
];

const COMMANDS: Record<CommandName, Command> = {
  build: {
    usage: ['pkgcat build --repo <catalog-repo> --out <dir> [--site-url <url>] [--export <dir>] [--quiet] [--wait]'],
    summary: "build every commit of a catalog repository's main into <dir>",
    about:
      "Builds every first-parent commit of the repository's main that <dir> does not hold yet, then the\n" +
      'surfaces that float with the latest commit, and publishes them atomically: a build that fails or is\n' +
      'killed leaves <dir> serving what it served before. Running it again with no new commit does nothing.\n' +
      'Problems in the catalog data are printed with commit, path and reason, and never stop the build.',
    flags: ['repo', 'out', 'site-url', 'export', 'log-format', 'quiet', 'wait'],
    flagHelp: {
      repo: 'the catalog git repository to build (see docs/catalog-format.md)',
      out: 'the output directory; created when missing',
      'site-url': `the public http(s) address the site will be served at, written into the sitemap, feeds, llms.txt and mirrors (default ${DEFAULT_SITE_URL}, the default address of pkgcat serve)`,
    },
    examples: [
      'npx pkgcat build --repo ../catalog --out /srv/pkgcat --site-url https://pkgs.example.com',
      'npx pkgcat build --repo ../catalog --out /srv/pkgcat --export /srv/static',
    ],
  },
  serve: {
    usage: ['pkgcat serve --out <dir> [--repo <catalog-repo>] [--users <file>] [--port 8080] [--host 127.0.0.1] [...]'],
    summary: 'serve a build output over HTTP; with --repo, build and follow main in the background',
    about:
      'Serves <dir>, as written by pkgcat build, from the moment it listens. With --repo it also builds main\n' +
      'in the background and follows it: a new commit (or a force-push) becomes the latest state within a\n' +
      'few seconds, without a restart; a failed build keeps the previous release. Without --repo, another\n' +
      'process builds into <dir>; until a build is published, every surface answers 404. GET /healthz tells\n' +
      'a load balancer what is served and how the builds go. SIGTERM or SIGINT stops it gracefully: requests\n' +
      'in flight finish, the build ends (see docs/deployment.md).',
    flags: ['out', 'repo', ...SERVE_FLAGS],
    flagHelp: {
      out: 'the build output directory to serve (with --repo, built there)',
      repo: 'build this catalog repository into --out first, then follow its main (see docs/catalog-format.md)',
      'site-url': `the public http(s) address of the site, written by --repo's builds into the sitemap, feeds, llms.txt and mirrors (default ${DEFAULT_SITE_URL}, whatever address serve listens on)`,
    },
    sessionSecret: true,
    examples: [
      'npx pkgcat serve --out /srv/pkgcat --users /etc/pkgcat/users.json',
      'npx pkgcat serve --out /srv/pkgcat --repo ../catalog --port 8080 --site-url https://pkgs.example.com',
    ],
  },
  export: {
    usage: ['pkgcat export --out <dir> --to <dir>'],
    summary: 'write the published anonymous files of <dir> as a tree a static host or a CDN serves as it is',
    about:
      'Writes every anonymous file of the release <dir> publishes (records, SBOMs, badges, mirrors, feeds,\n' +
      'llms.txt, the sitemap, the OpenAPI document, the pages) into <to>/public, with the header rules for\n' +
      'Netlify and Cloudflare Pages (<to>/public/_headers) and for nginx (<to>/static/). Exporting again\n' +
      'writes only the files whose bytes changed and removes those the release no longer has. A build\n' +
      'output serves itself through pkgcat serve; the export is for hosts that only serve files\n' +
      '(see docs/deployment.md).',
    flags: ['out', 'to', 'log-format', 'quiet'],
    flagHelp: { out: 'the build output whose published release to export (pkgcat build --out)' },
    examples: ['npx pkgcat export --out /srv/pkgcat --to /srv/static'],
  },
  verify: {
    usage: ['pkgcat verify --out <dir> --digest <file|url> [--key <public-key.pem>] [--body <file> --url <url>]'],
    summary: "check that a build output (a mirror) is the origin's catalog, byte for byte, against its signed digest",
    about:
      "Checks <dir>, a build of the catalog made elsewhere (an offline mirror), against the origin's digest of a\n" +
      'commit (GET /api/digests/{sha}.json on the origin): with --key, a signature of the digest must verify with\n' +
      "that public key; then the digest of that commit and every commit before it is computed from <dir>'s own\n" +
      'files, and every object they name is checked against its name. With --body and --url, it also checks that a\n' +
      "body downloaded from that sha-pinned URL (from any gateway) is the origin's, byte for byte.\n" +
      'Exit 0 when everything matches; 1 with one line saying where it differs.',
    flags: ['out', 'digest', 'key', 'body', 'url', 'log-format', 'quiet'],
    flagHelp: { out: 'the build output to check (pkgcat build --out)' },
    examples: [
      'curl -O https://pkgs.example.com/api/digests/<sha>.json',
      'npx pkgcat verify --out /srv/mirror --digest <sha>.json --key origin.pub.pem',
      'npx pkgcat verify --out /srv/mirror --digest <sha>.json --key origin.pub.pem --body full.json --url /api/pkgs/bundle/<sha>/full.json',
    ],
  },
  user: {
    usage: ['pkgcat user add <username> --users <file>'],
    summary: 'create or replace a user who can sign in (the password is read from standard input)',
    about:
      'Creates or replaces <username> in the users file. The password is read from standard input: typed\n' +
      'at a terminal (asked twice, not echoed) or piped as one line. Passwords are stored only as slow\n' +
      'salted hashes, in a file only its owner can read.',
    flags: ['users'],
    flagHelp: { users: 'the users file to change; created when missing' },
    examples: ["printf '%s\\n' \"$PASSWORD\" | npx pkgcat user add alice --users users.json"],
  },
  demo: {
    usage: ['pkgcat demo [--port 8080] [--host 127.0.0.1] [...]'],
    summary: 'write the demo catalog into .demo/, then build, serve and follow it (what `npm start` runs)',
    about:
      'Writes the bundled demo catalog into .demo/catalog (once), then serves it as\n' +
      '`pkgcat serve --repo .demo/catalog --out .demo/out --users .demo/users.json` would.',
    flags: SERVE_FLAGS,
    flagHelp: {
      users: 'the users file for signing in (default .demo/users.json)',
      'session-dir': 'where the local session database and the generated secret live (default .demo/sessions)',
    },
    sessionSecret: true,
    examples: ['npm start', 'npx pkgcat demo --port 9090'],
  },
};

const EXIT_STATUS = 'Exit status: 0 on success; 1 when the repository, the output or the address is unusable, or when what verify checks differs (one line on stderr says why); 2 on bad usage.';

const flagSyntax = (name: FlagName, flag: Flag) => `${flag.short ? `-${flag.short}, ` : ''}--${name}${flag.value ? ` ${flag.value}` : ''}`;

/** The help's columns, wide enough for the longest flag and variable. */
const FLAG_COLUMN = Math.max(...(Object.entries(FLAGS) as [FlagName, Flag][]).map(([name, flag]) => flagSyntax(name, flag).length)) + 1;
const ENV_COLUMN = Math.max(...Object.values(FLAGS).map((flag) => flag.env?.length ?? 0)) + 2;

function flagLines(names: readonly FlagName[], overrides: Partial<Record<FlagName, string>> = {}, secret = false): string[] {
  const lines = names.map((name) => {
    const flag = FLAGS[name];
    return `  ${flagSyntax(name, flag).padEnd(FLAG_COLUMN)}${(flag.env ?? '').padEnd(ENV_COLUMN)}${overrides[name] ?? flag.help}`;
  });
  if (secret) lines.push(`  ${''.padEnd(FLAG_COLUMN)}${SESSION_SECRET_HELP}`);
  return lines;
}

function overview(): string {
  const commands = Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(8)}${command.summary}`);
  const all = (Object.keys(FLAGS) as FlagName[]).filter((name) => name !== 'help' && name !== 'version');
  return [
    "pkgcat: a read-only package catalog built from a git repository's main branch",
    '',
    'Usage:',
    ...Object.values(COMMANDS).flatMap((command) => command.usage.map((line) => `  ${line}`)),
    '  pkgcat help <command>         a command\'s flags and their environment variables (or: pkgcat <command> --help)',
    '  pkgcat --version              the version',
    '',
    'Commands:',
    ...commands,
    '',
    'Flags (each has an environment variable; a flag wins over its variable; `pkgcat help <command>` says which command takes which):',
    ...flagLines(all, {}, true),
    ...flagLines(['help', 'version']),
    '',
    EXIT_STATUS,
    '',
  ].join('\n');
}

function commandHelp(name: CommandName): string {
  const command = COMMANDS[name];
  return [
    `Usage: ${command.usage.join('\n       ')}`,
    '',
    command.about,
    '',
    'Flags (each has an environment variable; a flag wins over its variable):',
    ...flagLines(command.flags, command.flagHelp, command.sessionSecret),
    ...flagLines(['help']),
    '',
    'Example:',
    ...command.examples.map((line) => `  ${line}`),
    '',
    EXIT_STATUS,
    '',
  ].join('\n');
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function isCommand(name: string | undefined): name is CommandName {
  return name !== undefined && Object.hasOwn(COMMANDS, name);
}

/** Every setting a command uses, from its flags first and their environment variables second. */
export interface Settings {
  repo?: string;
  out?: string;
  users?: string;
  port: number;
  host: string;
  siteUrl?: string;
  redisUrl?: string;
  sessionDir?: string;
  sessionSecret?: string;
  trustProxy?: string;
  pollSeconds: number;
  /** How long serve --repo's build process stays up after a build (0: a process per build). */
  buildIdleSeconds: number;
  /** X-Accel-Redirect mode: nginx's internal location for the output directory. */
  accelRedirect?: string;
  /** Disk space for the gateway's bodies composed on request, in MiB. */
  composedCacheMb: number;
  /** Hostnames the tool server answers besides its own. */
  mcpAllowedHosts: string[];
  /** `serve --signing-key`: files of Ed25519 private keys. */
  signingKeys: string[];
  /** `verify`: the origin's signed digest (a file or a URL), its public keys, a downloaded body and its URL. */
  digest?: string;
  verifyKeys: string[];
  body?: string;
  bodyUrl?: string;
  /** The metrics listener's port; undefined: no metrics listener. */
  metricsPort?: number;
  metricsHost: string;
  logFormat: LogFormat;
  /** The access log: one line per answered request. */
  accessLog: boolean;
  /** `build --export`, `serve --repo --export`: a static export after each published build; `export --to`: where to export. */
  exportDir?: string;
  exportTo?: string;
  quiet: boolean;
  wait: boolean;
  /** The environment `serve --repo` starts its build process with: this one's, glibc's malloc settings added (BUILD_PROCESS_MALLOC). */
  buildProcessEnv: Env;
}

/**
 * glibc's malloc settings for `serve --repo`'s build process, each unless the operator set it: two
 * arenas, and buffers from 128 KiB on mapped and given back when freed. The build process stays up
 * between commits and puts gigabytes of bodies through buffers on its threads; with glibc's
 * defaults it keeps what they freed (a 50,000-package builder's warm commits peaked 100 to 150 MiB
 * higher, at the same CPU: docs/benchmarks.md).
 */
const BUILD_PROCESS_MALLOC: Readonly<Env> = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '131072' };

type Parsed =
  | { kind: 'help'; command?: CommandName }
  | { kind: 'version' }
  | { kind: 'missing' }
  | { kind: 'run'; command: CommandName; args: string[]; settings: Settings };

/** Where to look for help in a usage error. */
const seeHelp = (command: CommandName | undefined) => `see pkgcat ${command ? `${command} ` : ''}--help`;

/**
 * Parses argv for one command. The flags are checked against the command's own list (node's
 * parseArgs is run non-strict only to split argv into tokens, so its verbose errors never reach a
 * user).
 */
export function parseCommandLine(argv: string[], env: Env, stderrIsTerminal = false): Parsed {
  const options = Object.fromEntries(
    Object.entries(FLAGS).map(([name, flag]) => [name, flag.short ? { type: flag.type, short: flag.short } : { type: flag.type }]),
  );
  const { tokens } = parseArgs({ args: argv, options, strict: false, allowPositionals: true, tokens: true });
  const positionals = tokens.flatMap((token) => (token.kind === 'positional' ? [token.value] : []));
  const first = positionals[0];
  const command = isCommand(first) ? first : undefined;
  const allowed = new Set<string>([...(command ? COMMANDS[command].flags : []), 'help', 'version']);

  const values = new Map<FlagName, string | true>();
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const flag = Object.hasOwn(FLAGS, token.name) ? FLAGS[token.name as FlagName] : undefined;
    if (!flag) throw new UsageError(`unknown option ${token.rawName}; ${seeHelp(command)}`);
    if (!allowed.has(token.name)) {
      if (command) throw new UsageError(`${command} does not take --${token.name}; ${seeHelp(command)}`);
      if (first === undefined || first === 'help') throw new UsageError(`--${token.name} goes after a command, as in pkgcat serve --${token.name} ...; ${seeHelp(undefined)}`);
      continue; // An unknown command is reported below, with its name.
    }
    if (flag.type === 'boolean') {
      if (token.value !== undefined) throw new UsageError(`--${token.name} takes no value; ${seeHelp(command)}`);
      values.set(token.name as FlagName, true);
    } else {
      // `--port --host x`: a value that looks like a flag is a forgotten value (`--x=-y` passes one).
      if (token.value === undefined || token.value === '' || (!token.inlineValue && /^-(?!\d)/.test(token.value))) {
        throw new UsageError(`--${token.name} needs a value; ${seeHelp(command)}`);
      }
      values.set(token.name as FlagName, token.value);
    }
  }

  if (values.has('version')) return { kind: 'version' };
  if (first === 'help') {
    const topic = positionals[1];
    if (topic === undefined) return { kind: 'help' };
    if (!isCommand(topic) || positionals.length > 2) throw new UsageError(`unknown command "${positionals.slice(1).join(' ')}"; see pkgcat --help`);
    return { kind: 'help', command: topic };
  }
  if (values.has('help')) return command || first === undefined ? { kind: 'help', command } : unknownCommand(first);
  if (first === undefined) return { kind: 'missing' };
  if (!command) return unknownCommand(first);

  const args = positionals.slice(1);
  const expected = command === 'user' ? 2 : 0;
  if (command === 'user' ? args[0] !== 'add' || args.length !== expected : args.length > 0) {
    throw new UsageError(command === 'user' ? `usage: ${COMMANDS.user.usage[0]}; ${seeHelp('user')}` : `${command} takes no arguments, got "${args.join(' ')}"; ${seeHelp(command)}`);
  }
  return { kind: 'run', command, args, settings: readSettings(COMMANDS[command], values, env, stderrIsTerminal) };
}

function unknownCommand(name: string): never {
  throw new UsageError(`unknown command "${name}"; see pkgcat --help`);
}

/** A value and where it came from, for messages: the flag, or the environment variable. */
function readSettings(command: Command, values: Map<FlagName, string | true>, env: Env, stderrIsTerminal: boolean): Settings {
  const { flags } = command;
  const take = (name: FlagName): { raw: string; source: string } | undefined => {
    if (!flags.includes(name)) return undefined;
    const value = values.get(name);
    if (typeof value === 'string') return { raw: value, source: `--${name}` };
    const variable = FLAGS[name].env;
    const fromEnv = variable ? env[variable] : undefined;
    // An empty variable is an unset one (`PORT= pkgcat serve` uses the default).
    return variable && fromEnv ? { raw: fromEnv, source: variable } : undefined;
  };
  const text = (name: FlagName) => take(name)?.raw;
  const format = logFormat(take('log-format'), stderrIsTerminal);
  return {
    repo: text('repo'),
    out: text('out'),
    users: text('users'),
    port: port(take('port')),
    host: text('host') ?? DEFAULT_HOST,
    siteUrl: siteUrl(take('site-url')),
    redisUrl: text('redis-url'),
    sessionDir: text('session-dir'),
    sessionSecret: command.sessionSecret ? env.PKGCAT_SESSION_SECRET || undefined : undefined,
    trustProxy: text('trust-proxy'),
    pollSeconds: pollSeconds(take('poll-seconds')),
    buildIdleSeconds: buildIdleSeconds(take('build-idle-seconds')),
    accelRedirect: accelRedirect(take('accel-redirect')),
    composedCacheMb: composedCacheMb(take('composed-cache-mb')),
    mcpAllowedHosts: hostnames(take('mcp-allowed-hosts')),
    signingKeys: fileList(take('signing-key')),
    digest: text('digest'),
    verifyKeys: fileList(take('key')),
    body: text('body'),
    bodyUrl: text('url'),
    metricsPort: take('metrics-port') ? port(take('metrics-port')) : undefined,
    metricsHost: text('metrics-host') ?? DEFAULT_METRICS_HOST,
    logFormat: format,
    accessLog: onOff(take('access-log')) ?? format === 'json',
    exportDir: text('export'),
    exportTo: text('to'),
    quiet: values.get('quiet') === true,
    wait: values.get('wait') === true,
    buildProcessEnv: { ...BUILD_PROCESS_MALLOC, ...env },
  };
}

/** `--log-format`: json or text; unset, text for a person at a terminal and json for a machine. */
function logFormat(value: { raw: string; source: string } | undefined, terminal: boolean): LogFormat {
  if (!value) return terminal ? 'text' : 'json';
  if (value.raw !== 'json' && value.raw !== 'text') throw new UsageError(`${value.source} must be json or text, got "${value.raw}"`);
  return value.raw;
}

function onOff(value: { raw: string; source: string } | undefined): boolean | undefined {
  if (!value) return undefined;
  if (value.raw !== 'on' && value.raw !== 'off') throw new UsageError(`${value.source} must be on or off, got "${value.raw}"`);
  return value.raw === 'on';
}

function port(value: { raw: string; source: string } | undefined): number {
  if (!value) return DEFAULT_PORT;
  const number = /^\d{1,5}$/.test(value.raw) ? Number(value.raw) : NaN;
  if (!(number <= 65535)) throw new UsageError(`${value.source} must be an integer from 0 to 65535, got "${value.raw}"`);
  return number;
}

function pollSeconds(value: { raw: string; source: string } | undefined): number {
  if (!value) return DEFAULT_POLL_SECONDS;
  const number = /^\s*$/.test(value.raw) ? NaN : Number(value.raw);
  if (!(number > 0 && Number.isFinite(number))) throw new UsageError(`${value.source} must be a number of seconds above 0, got "${value.raw}"`);
  return number;
}

function buildIdleSeconds(value: { raw: string; source: string } | undefined): number {
  if (!value) return DEFAULT_BUILD_IDLE_SECONDS;
  const number = /^\s*$/.test(value.raw) ? NaN : Number(value.raw);
  if (!(number >= 0 && Number.isFinite(number))) throw new UsageError(`${value.source} must be a number of seconds, 0 or more, got "${value.raw}"`);
  return number;
}

function composedCacheMb(value: { raw: string; source: string } | undefined): number {
  if (!value) return DEFAULT_COMPOSED_CACHE_MB;
  const number = /^\d{1,9}$/.test(value.raw.trim()) ? Number(value.raw.trim()) : NaN;
  if (!Number.isInteger(number)) throw new UsageError(`${value.source} must be a whole number of MiB, 0 or more, got "${value.raw}"`);
  return number;
}

/** `--site-url`: an absolute http(s) URL without query or fragment; trailing slashes removed. */
function siteUrl(value: { raw: string; source: string } | undefined): string | undefined {
  if (!value) return undefined;
  let url: URL | null = null;
  try {
    url = new URL(value.raw);
  } catch {
    // Reported below.
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname || url.search || url.hash || url.username || url.password) {
    throw new UsageError(`${value.source} must be an absolute http(s) URL without query or fragment, such as https://pkgs.example.com, got "${value.raw}"`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** `--mcp-allowed-hosts`: hostnames, comma-separated, without scheme or port (an IPv6 address with or without brackets). */
function hostnames(value: { raw: string; source: string } | undefined): string[] {
  if (!value) return [];
  return value.raw
    .split(',')
    .filter((name) => name.trim() !== '')
    .map((name) => {
      const hostname = hostnameOf(name);
      if (hostname === null) throw new UsageError(`${value.source} takes hostnames separated by commas, without scheme or port (such as mcp.example.com,10.0.0.5), got "${name.trim()}"`);
      return hostname;
    });
}

/** A comma-separated list of files (`--signing-key a.pem,b.pem`), each resolved. */
function fileList(value: { raw: string; source: string } | undefined): string[] {
  if (!value) return [];
  const files = value.raw.split(',').map((file) => file.trim());
  if (files.some((file) => file === '')) throw new UsageError(`${value.source} must be one file or several separated by commas, got "${value.raw}"`);
  return files.map((file) => resolve(file));
}

/** `--accel-redirect`: an absolute URL path (the gateway checks the rest). */
function accelRedirect(value: { raw: string; source: string } | undefined): string | undefined {
  if (!value) return undefined;
  if (!value.raw.startsWith('/')) throw new UsageError(`${value.source} must be an absolute path such as /_pkgcat, got "${value.raw}"`);
  return value.raw;
}

function required(value: string | undefined, flag: FlagName): string {
  return resolve(requiredText(value, flag));
}

function requiredText(value: string | undefined, flag: FlagName): string {
  if (!value) throw new UsageError(`--${flag} is required (or set ${FLAGS[flag].env})`);
  return value;
}

export async function main(argv: string[], env: Env): Promise<number> {
  try {
    const parsed = parseCommandLine(argv, env, process.stderr.isTTY === true);
    switch (parsed.kind) {
      case 'version':
        process.stdout.write(`${version()}\n`);
        return 0;
      case 'help':
        process.stdout.write(parsed.command ? commandHelp(parsed.command) : overview());
        return 0;
      case 'missing':
        process.stderr.write(overview());
        return 2;
    }
    const { command, args, settings } = parsed;
    // `user add` talks to the person typing a password: its lines stay text.
    if (command !== 'user') configureLog(settings.logFormat);
    switch (command) {
      case 'build': {
        const { runBuild } = await import('./build.ts');
        return await runBuild({
          repo: required(settings.repo, 'repo'),
          out: required(settings.out, 'out'),
          siteUrl: settings.siteUrl ?? DEFAULT_SITE_URL,
          quiet: settings.quiet,
          wait: settings.wait,
          logFormat: settings.logFormat,
          exportDir: settings.exportDir && resolve(settings.exportDir),
        });
      }
      case 'export': {
        const { runExport } = await import('./export.ts');
        return await runExport({ out: required(settings.out, 'out'), to: required(settings.exportTo, 'to'), quiet: settings.quiet });
      }
      case 'serve': {
        const out = required(settings.out, 'out');
        const { runServe } = await import('./serve.ts');
        return await runServe({
          ...settings,
          out,
          repo: settings.repo ? resolve(settings.repo) : undefined,
          users: settings.users ? resolve(settings.users) : undefined,
          siteUrl: settings.siteUrl ?? DEFAULT_SITE_URL,
          sessionDir: settings.sessionDir ? resolve(settings.sessionDir) : join(dirname(out), `${basename(out)}-sessions`),
          exportDir: settings.exportDir && resolve(settings.exportDir),
        });
      }
      case 'verify': {
        const { runVerify } = await import('./verify.ts');
        if (settings.body !== undefined && settings.bodyUrl === undefined) throw new UsageError('--body needs --url, the sha-pinned URL it was downloaded from');
        if (settings.bodyUrl !== undefined && settings.body === undefined) throw new UsageError('--url goes with --body, the downloaded file to check');
        return await runVerify({
          out: required(settings.out, 'out'),
          digest: requiredText(settings.digest, 'digest'),
          keys: settings.verifyKeys,
          body: settings.body ? { file: resolve(settings.body), url: settings.bodyUrl! } : null,
          quiet: settings.quiet,
        });
      }
      case 'user': {
        const { runUserAdd } = await import('../gateway/auth/user-cli.ts');
        await runUserAdd({ username: args[1]!, usersFile: required(settings.users, 'users') });
        return 0;
      }
      case 'demo': {
        const { runDemo } = await import('./demo.ts');
        return await runDemo({ ...settings, siteUrl: settings.siteUrl ?? DEFAULT_SITE_URL });
      }
    }
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`pkgcat: ${error.message}\n`);
      await tellParent({ kind: 'failed', reason: error.message });
      return 2;
    }
    const message = oneLine(error);
    log.fatal('cli.failed', message);
    // A build run by `serve --repo` tells it why, for /healthz (cli/build-channel.ts).
    const code = (error as NodeJS.ErrnoException | null)?.code;
    await tellParent({ kind: 'failed', reason: message, ...(typeof code === 'string' ? { code } : {}) });
    return 1;
  }
}
