/**
 * The `pkgcat` command line. Flags and environment are read here, once, and passed down as
 * plain options: nothing below this file reads process.env or argv.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { resolve } from 'node:path';

type Env = Record<string, string | undefined>;

const HELP = `pkgcat: a read-only package catalog built from a git repository's main branch

Usage:
  pkgcat build --repo <catalog-repo> --out <dir>
  pkgcat serve --out <dir> [--repo <catalog-repo>] [--users <file>] [--port 8080] [--host 127.0.0.1]
  pkgcat user add <username> --users <file>      (the password is read from standard input)
  pkgcat demo                                    (what \`npm start\` runs)

Flags (each has an environment variable; a flag wins over its variable):
  --repo <dir>            PKGCAT_REPO            catalog git repository (CATALOG-FORMAT.md); with serve: build, then follow main
  --out <dir>             PKGCAT_OUT             build output directory
  --users <file>          PKGCAT_USERS           users file for signing in (created by \`pkgcat user add\`)
  --port <n>              PORT                   port to listen on (default 8080)
  --host <addr>           HOST                   address to listen on (default 127.0.0.1)
  --site-url <url>        PKGCAT_SITE_URL        public site URL for sitemaps, feeds, SBOM namespaces (default: the listen address)
  --redis-url <url>       PKGCAT_REDIS_URL       share sessions through Redis instead of the local session database
  --session-dir <dir>     PKGCAT_SESSION_DIR     where the local session database and generated secret live (default: <out>/../<out name>-sessions)
  --trust-proxy <value>   PKGCAT_TRUST_PROXY     Express "trust proxy" (e.g. 1, loopback); needed for Secure cookies behind TLS termination
  --poll-seconds <n>      PKGCAT_POLL_SECONDS    how often serve --repo checks main when file events are missed (default 2)
  --accel-redirect <path> PKGCAT_ACCEL_REDIRECT  behind nginx: answer bodies with X-Accel-Redirect to this internal location aliasing --out (e.g. /_pkgcat), nginx sends the bytes (docs/deployment.md)
  --quiet                                        build: no progress lines (diagnostics are still printed)
                          PKGCAT_SESSION_SECRET  secret that signs session cookies (at least 32 characters; generated and kept in the session dir when unset)
  -h, --help                                     this text

Exit status: 0 on success; 1 when the repository or output is unusable (one line on stderr says why); 2 on bad usage.
`;

class UsageError extends Error {}

const OPTIONS = {
  repo: { type: 'string' },
  out: { type: 'string' },
  users: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'site-url': { type: 'string' },
  'redis-url': { type: 'string' },
  'session-dir': { type: 'string' },
  'trust-proxy': { type: 'string' },
  'poll-seconds': { type: 'string' },
  'accel-redirect': { type: 'string' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

/** Every setting, from flags first and environment second. */
export interface Settings {
  command: string[];
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
  /** X-Accel-Redirect mode: nginx's internal location for the output directory. */
  accelRedirect?: string;
  quiet: boolean;
  help: boolean;
}

export function readSettings(argv: string[], env: Env): Settings {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const number = (raw: string | undefined, fallback: number, what: string) => {
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0) throw new UsageError(`${what} must be a number, got "${raw}"`);
    return value;
  };
  return {
    command: positionals,
    repo: values.repo ?? env.PKGCAT_REPO,
    out: values.out ?? env.PKGCAT_OUT,
    users: values.users ?? env.PKGCAT_USERS,
    port: number(values.port ?? env.PORT, 8080, '--port'),
    host: values.host ?? env.HOST ?? '127.0.0.1',
    siteUrl: values['site-url'] ?? env.PKGCAT_SITE_URL,
    redisUrl: values['redis-url'] ?? env.PKGCAT_REDIS_URL,
    sessionDir: values['session-dir'] ?? env.PKGCAT_SESSION_DIR,
    sessionSecret: env.PKGCAT_SESSION_SECRET,
    trustProxy: values['trust-proxy'] ?? env.PKGCAT_TRUST_PROXY,
    pollSeconds: number(values['poll-seconds'] ?? env.PKGCAT_POLL_SECONDS, 2, '--poll-seconds'),
    accelRedirect: accelRedirect(values['accel-redirect'] ?? env.PKGCAT_ACCEL_REDIRECT),
    quiet: values.quiet ?? false,
    help: values.help ?? false,
  };
}

/** `--accel-redirect`: an absolute URL path (the gateway checks the rest); empty means off. */
function accelRedirect(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!raw.startsWith('/')) throw new UsageError(`--accel-redirect must be an absolute path such as /_pkgcat, got "${raw}"`);
  return raw;
}

function required(value: string | undefined, flag: string, variable: string): string {
  if (!value) throw new UsageError(`${flag} is required (or set ${variable})`);
  return resolve(value);
}

export async function main(argv: string[], env: Env): Promise<number> {
  let settings: Settings;
  try {
    settings = readSettings(argv, env);
    if (settings.help || settings.command.length === 0) {
      process.stdout.write(HELP);
      return settings.help ? 0 : 2;
    }
    const [command, ...rest] = settings.command;
    switch (command) {
      case 'build': {
        const { runBuild } = await import('./build.ts');
        return await runBuild({ repo: required(settings.repo, '--repo', 'PKGCAT_REPO'), out: required(settings.out, '--out', 'PKGCAT_OUT'), quiet: settings.quiet });
      }
      case 'serve': {
        const { runServe } = await import('./serve.ts');
        return await runServe({ ...settings, out: required(settings.out, '--out', 'PKGCAT_OUT'), repo: settings.repo && resolve(settings.repo), users: settings.users && resolve(settings.users) });
      }
      case 'user': {
        if (rest[0] !== 'add' || !rest[1] || rest.length > 2) throw new UsageError('usage: pkgcat user add <username> --users <file>');
        const { runUserAdd } = await import('../gateway/auth/user-cli.ts');
        await runUserAdd({ username: rest[1], usersFile: required(settings.users, '--users', 'PKGCAT_USERS') });
        return 0;
      }
      case 'demo': {
        const { runDemo } = await import('./demo.ts');
        return await runDemo(settings);
      }
      default:
        throw new UsageError(`unknown command "${command}"; see pkgcat --help`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`pkgcat: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`pkgcat: ${(error as Error).message}\n`);
    return 1;
  }
}
