/**
 * The command line as a well-made one behaves: --version, help per command, one clean line and
 * exit 2 on bad usage, one line and exit 1 on an unusable output directory. Over the real command
 * (bin/pkgcat.js in a child process), except the settings table, which reads parseCommandLine.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../cli/main.ts';
import { createCatalogRepo } from '../../demo/catalog-writer.ts';
import { hoursLater, manifest, temporaryDirectory } from '../helpers/catalog.ts';
import { cleanEnv, pkgcat } from './run.ts';

const packageJson = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

describe('pkgcat --version', () => {
  it.each([['--version'], ['-V']])('%s prints the version of package.json', async (flag) => {
    expect(await pkgcat([flag])).toEqual({ code: 0, stdout: `${packageJson.version}\n`, stderr: '' });
  });
});

/** Each command's flags, with their environment variables, as its own help must list them. */
const COMMAND_FLAGS: Record<string, [string, string][]> = {
  build: [['--repo', 'PKGCAT_REPO'], ['--out', 'PKGCAT_OUT'], ['--site-url', 'PKGCAT_SITE_URL'], ['--quiet', ''], ['--wait', '']],
  serve: [
    ['--out', 'PKGCAT_OUT'], ['--repo', 'PKGCAT_REPO'], ['--users', 'PKGCAT_USERS'], ['--port', 'PORT'], ['--host', 'HOST'],
    ['--site-url', 'PKGCAT_SITE_URL'], ['--redis-url', 'PKGCAT_REDIS_URL'], ['--session-dir', 'PKGCAT_SESSION_DIR'],
    ['--trust-proxy', 'PKGCAT_TRUST_PROXY'], ['--poll-seconds', 'PKGCAT_POLL_SECONDS'], ['--build-idle-seconds', 'PKGCAT_BUILD_IDLE_SECONDS'], ['--accel-redirect', 'PKGCAT_ACCEL_REDIRECT'],
    ['--composed-cache-mb', 'PKGCAT_COMPOSED_CACHE_MB'], ['--mcp-allowed-hosts', 'PKGCAT_MCP_ALLOWED_HOSTS'], ['--signing-key', 'PKGCAT_SIGNING_KEY'],
  ],
  verify: [['--out', 'PKGCAT_OUT'], ['--digest', 'PKGCAT_DIGEST'], ['--key', 'PKGCAT_VERIFY_KEY'], ['--body', 'PKGCAT_BODY'], ['--url', 'PKGCAT_BODY_URL'], ['--log-format', 'PKGCAT_LOG_FORMAT'], ['--quiet', '']],
  user: [['--users', 'PKGCAT_USERS']],
  demo: [['--port', 'PORT'], ['--host', 'HOST'], ['--users', 'PKGCAT_USERS'], ['--site-url', 'PKGCAT_SITE_URL']],
};

describe('help', () => {
  it.each(Object.keys(COMMAND_FLAGS))('`pkgcat help %s` and `pkgcat %s --help` print that command\'s usage and flags', async (command) => {
    const help = await pkgcat(['help', command]);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout.split('\n')[0]).toMatch(new RegExp(`^Usage: pkgcat ${command} `));
    for (const [flag, variable] of COMMAND_FLAGS[command]!) expect(help.stdout).toMatch(new RegExp(`^  ${flag}\\b.*${variable}`, 'm'));
    expect(await pkgcat([command, '--help'])).toEqual(help);
    expect(await pkgcat([command, '-h'])).toEqual(help);
  });

  it('build\'s usage names only build\'s flags, and the site URL\'s default', async () => {
    const { stdout } = await pkgcat(['help', 'build']);
    expect(stdout).not.toMatch(/--port|--users|--redis-url/);
    expect(stdout).toContain('default http://127.0.0.1:8080');
  });

  it('`pkgcat help` is `pkgcat --help`: the overview of every command', async () => {
    const help = await pkgcat(['help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(await pkgcat(['--help'])).toEqual(help);
    for (const command of Object.keys(COMMAND_FLAGS)) expect(help.stdout).toMatch(new RegExp(`^  pkgcat ${command} `, 'm'));
    expect(help.stdout).toMatch(/^ {2}-V, --version /m);
  });

  it('points only to files in the repository', async () => {
    for (const args of [['--help'], ...Object.keys(COMMAND_FLAGS).map((command) => ['help', command])]) {
      const { stdout } = await pkgcat(args);
      expect(stdout).not.toMatch(/CATALOG-FORMAT|SPEC\.md|DECISIONS\.md|\.\.\/shared|\(\w+\.md\)/);
    }
  });

  it('with no command, prints the overview on stderr and exits 2', async () => {
    const result = await pkgcat([]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe((await pkgcat(['--help'])).stdout);
  });
});

describe('bad usage: exit 2 and exactly one line on stderr', () => {
  it.each([
    [['build', '--frob'], {}, 'pkgcat: unknown option --frob; see pkgcat build --help'],
    [['serve', '--frob=1', '--out', 'x'], {}, 'pkgcat: unknown option --frob; see pkgcat serve --help'],
    [['--frob'], {}, 'pkgcat: unknown option --frob; see pkgcat --help'],
    [['build', '-x'], {}, 'pkgcat: unknown option -x; see pkgcat build --help'],
    [['build', '--users', 'u.json'], {}, 'pkgcat: build does not take --users; see pkgcat build --help'],
    [['build', '--quiet=yes'], {}, 'pkgcat: --quiet takes no value; see pkgcat build --help'],
    [['serve', '--out'], {}, 'pkgcat: --out needs a value; see pkgcat serve --help'],
    [['serve', '--port', '--out', 'x'], {}, 'pkgcat: --port needs a value; see pkgcat serve --help'],
    [['serve', '--out', 'x', '--port', '70000'], {}, 'pkgcat: --port must be an integer from 0 to 65535, got "70000"'],
    [['serve', '--out', 'x', '--port', 'abc'], {}, 'pkgcat: --port must be an integer from 0 to 65535, got "abc"'],
    [['serve', '--out', 'x', '--port', '-1'], {}, 'pkgcat: --port must be an integer from 0 to 65535, got "-1"'],
    [['serve', '--out', 'x', '--port=8080.5'], {}, 'pkgcat: --port must be an integer from 0 to 65535, got "8080.5"'],
    [['serve', '--out', 'x'], { PORT: '99999' }, 'pkgcat: PORT must be an integer from 0 to 65535, got "99999"'],
    [['serve', '--out', 'x', '--poll-seconds', '0'], {}, 'pkgcat: --poll-seconds must be a number of seconds above 0, got "0"'],
    [['serve', '--out', 'x', '--poll-seconds', 'soon'], {}, 'pkgcat: --poll-seconds must be a number of seconds above 0, got "soon"'],
    [['serve', '--out', 'x'], { PKGCAT_POLL_SECONDS: '-2' }, 'pkgcat: PKGCAT_POLL_SECONDS must be a number of seconds above 0, got "-2"'],
    [['serve', '--out', 'x', '--build-idle-seconds', '-1'], {}, 'pkgcat: --build-idle-seconds must be a number of seconds, 0 or more, got "-1"'],
    [['serve', '--out', 'x'], { PKGCAT_BUILD_IDLE_SECONDS: 'forever' }, 'pkgcat: PKGCAT_BUILD_IDLE_SECONDS must be a number of seconds, 0 or more, got "forever"'],
    [['serve', '--out', 'x', '--composed-cache-mb', '1.5'], {}, 'pkgcat: --composed-cache-mb must be a whole number of MiB, 0 or more, got "1.5"'],
    [['serve', '--out', 'x'], { PKGCAT_COMPOSED_CACHE_MB: 'lots' }, 'pkgcat: PKGCAT_COMPOSED_CACHE_MB must be a whole number of MiB, 0 or more, got "lots"'],
    [['serve', '--out', 'x', '--mcp-allowed-hosts', 'ok.example,https://mcp.example.com'], {}, 'pkgcat: --mcp-allowed-hosts takes hostnames separated by commas, without scheme or port (such as mcp.example.com,10.0.0.5), got "https://mcp.example.com"'],
    [['serve', '--out', 'x'], { PKGCAT_MCP_ALLOWED_HOSTS: 'localhost:8080' }, 'pkgcat: PKGCAT_MCP_ALLOWED_HOSTS takes hostnames separated by commas, without scheme or port (such as mcp.example.com,10.0.0.5), got "localhost:8080"'],
    [['build', '--repo', 'r', '--out', 'o', '--site-url', 'ftp://x'], {}, 'pkgcat: --site-url must be an absolute http(s) URL without query or fragment, such as https://pkgs.example.com, got "ftp://x"'],
    [['build', '--repo', 'r', '--out', 'o'], { PKGCAT_SITE_URL: '/catalog' }, 'pkgcat: PKGCAT_SITE_URL must be an absolute http(s) URL without query or fragment, such as https://pkgs.example.com, got "/catalog"'],
    [['serve', '--out', 'x', '--site-url', 'https://pkgs.example.com/?a=1'], {}, 'pkgcat: --site-url must be an absolute http(s) URL without query or fragment, such as https://pkgs.example.com, got "https://pkgs.example.com/?a=1"'],
    [['build', 'extra'], {}, 'pkgcat: build takes no arguments, got "extra"; see pkgcat build --help'],
    [['verify', '--out', 'o'], {}, 'pkgcat: --digest is required (or set PKGCAT_DIGEST)'],
    [['verify', '--out', 'o', '--digest', 'd.json', '--body', 'full.json'], {}, 'pkgcat: --body needs --url, the sha-pinned URL it was downloaded from'],
    [['verify', '--out', 'o', '--digest', 'd.json', '--url', '/api/pkgs/bundle/x.json'], {}, 'pkgcat: --url goes with --body, the downloaded file to check'],
    [['serve', '--out', 'x', '--signing-key', 'a.pem,'], {}, 'pkgcat: --signing-key must be one file or several separated by commas, got "a.pem,"'],
    [['help', 'frob'], {}, 'pkgcat: unknown command "frob"; see pkgcat --help'],
    // A variable only another command reads does not stop this one.
    [['build', '--out', 'o'], { PORT: 'abc' }, 'pkgcat: --repo is required (or set PKGCAT_REPO)'],
  ] as [string[], NodeJS.ProcessEnv, string][])('%j %j', async (args, env, line) => {
    expect(await pkgcat(args, { env: cleanEnv(env) })).toEqual({ code: 2, stdout: '', stderr: `${line}\n` });
  });
});

describe('settings', () => {
  const settings = (argv: string[], env: Record<string, string> = {}) => {
    const parsed = parseCommandLine(argv, env);
    if (parsed.kind !== 'run') throw new Error(`not a command to run: ${parsed.kind}`);
    return parsed.settings;
  };

  it.each([
    ['https://pkgs.example.com/', 'https://pkgs.example.com'],
    ['https://pkgs.example.com/catalog//', 'https://pkgs.example.com/catalog'],
    ['HTTP://Example.COM:8080', 'http://example.com:8080'],
  ])('--site-url %s is %s', (raw, url) => {
    expect(settings(['build', '--site-url', raw]).siteUrl).toBe(url);
    expect(settings(['serve'], { PKGCAT_SITE_URL: raw }).siteUrl).toBe(url);
  });

  it('a flag wins over its variable; an empty variable is unset', () => {
    expect(settings(['serve', '--port', '0'], { PORT: '9090' }).port).toBe(0);
    expect(settings(['serve'], { PORT: '9090' }).port).toBe(9090);
    expect(settings(['serve'], { PORT: '' }).port).toBe(8080);
    expect(settings(['serve', '--poll-seconds', '0.5']).pollSeconds).toBe(0.5);
    expect(settings(['serve']).buildIdleSeconds).toBe(600);
    expect(settings(['serve', '--build-idle-seconds', '0'], { PKGCAT_BUILD_IDLE_SECONDS: '60' }).buildIdleSeconds).toBe(0);
    expect(settings(['serve']).composedCacheMb).toBe(1024);
    expect(settings(['serve', '--composed-cache-mb', '0'], { PKGCAT_COMPOSED_CACHE_MB: '64' }).composedCacheMb).toBe(0);
    expect(settings(['serve'], { PKGCAT_COMPOSED_CACHE_MB: '64' }).composedCacheMb).toBe(64);
  });

  it("serve --repo's build process gets glibc's malloc settings where the operator set none (docs/deployment.md)", () => {
    expect(settings(['serve'], { PATH: '/usr/bin' }).buildProcessEnv).toEqual({ PATH: '/usr/bin', MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '131072' });
    expect(settings(['serve'], { MALLOC_ARENA_MAX: '8' }).buildProcessEnv).toEqual({ MALLOC_ARENA_MAX: '8', MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '131072' });
  });

  it('--mcp-allowed-hosts and PKGCAT_MCP_ALLOWED_HOSTS are hostnames as the tool server compares them', () => {
    expect(settings(['serve']).mcpAllowedHosts).toEqual([]);
    expect(settings(['serve', '--mcp-allowed-hosts', 'MCP.Example.com, 10.0.0.5,::1,[fd00::2],'], {}).mcpAllowedHosts).toEqual(['mcp.example.com', '10.0.0.5', '[::1]', '[fd00::2]']);
    expect(settings(['demo'], { PKGCAT_MCP_ALLOWED_HOSTS: 'tools.internal' }).mcpAllowedHosts).toEqual(['tools.internal']);
  });

  it('flags may come before the command', () => {
    expect(settings(['--port', '9000', 'serve']).port).toBe(9000);
  });
});

describe('an output directory that cannot be one: exit 1, one line, no stack', () => {
  it.each([['build'], ['serve']])('%s --out under a regular file', async (command) => {
    const dir = await temporaryDirectory();
    const repo = join(dir, 'catalog');
    await createCatalogRepo(repo, [{ message: 'zlib', time: hoursLater(0), files: { 'packages/zlib/manifest.json': manifest('zlib') } }]);
    const file = join(dir, 'file');
    await writeFile(file, 'not a directory');
    const args = command === 'build' ? ['build', '--repo', repo, '--out', `${file}/out`] : ['serve', '--out', `${file}/out`, '--port', '0'];
    expect(await pkgcat(args)).toEqual({ code: 1, stdout: '', stderr: `pkgcat: cannot use ${file}/out as the output directory: ${file} is a file, not a directory\n` });
  });

  it.each([['build'], ['serve']])('%s --out on a regular file', async (command) => {
    const file = join(await temporaryDirectory(), 'file');
    await writeFile(file, 'not a directory');
    const args = command === 'build' ? ['build', '--repo', file, '--out', file] : ['serve', '--out', file, '--port', '0'];
    expect(await pkgcat(args)).toEqual({ code: 1, stdout: '', stderr: `pkgcat: cannot use ${file} as the output directory: it is a file, not a directory\n` });
  });
});

describe('build --site-url', () => {
  it('accepts an http(s) URL', async () => {
    const dir = await temporaryDirectory();
    const repo = join(dir, 'catalog');
    await createCatalogRepo(repo, [{ message: 'zlib', time: hoursLater(0), files: { 'packages/zlib/manifest.json': manifest('zlib') } }]);
    const result = await pkgcat(['build', '--repo', repo, '--out', join(dir, 'out'), '--quiet', '--site-url', 'https://pkgs.example.com/']);
    expect(result.code).toBe(0);
  });
});
