/**
 * Which hosts the tool server answers (MCP, Streamable HTTP, security: servers MUST validate
 * `Origin` to prevent DNS rebinding). A page on `evil.example` whose name an attacker points at
 * 127.0.0.1 reaches a local pkgcat with `Host: evil.example` and `Origin: http://evil.example`;
 * neither is on this list, so the request is refused before any tool runs.
 *
 * The list holds hostnames, without ports (a port does not tell a rebound name from a real one):
 * the site URL's host; `localhost`, `127.0.0.1` and `[::1]` when the gateway listens on a loopback
 * address (the names a browser on the same machine uses); and those the operator adds
 * (`serve --mcp-allowed-hosts`). Both headers are checked against it by the MCP SDK's own
 * validators (`validateHostHeader`, `validateOriginHeader`).
 */
import { isIP } from 'node:net';

/** The names of the local machine a client on it may use. */
export const LOOPBACK_NAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** Whether `host` (a listen address) accepts loopback connections only. */
export function isLoopbackAddress(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  const v4 = bare.replace(/^::ffff:/, '');
  return isIP(v4) === 4 && v4.startsWith('127.');
}

/**
 * A hostname as the allow-list holds it, spelled as the validators read one from a header (a
 * URL's hostname: lower case, an IPv6 address in brackets), or null for what is no bare hostname
 * (a port, a scheme, a path).
 */
export function hostnameOf(name: string): string | null {
  const text = name.trim();
  const bare = text.replace(/^\[(.*)\]$/, '$1');
  const ipv6 = isIP(bare) === 6;
  if (text === '' || (!ipv6 && /[:/?#@\\\s[\]]/.test(text))) return null;
  const host = ipv6 ? `[${bare}]` : text;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return null;
  }
}

export interface AllowedHostsInput {
  /** The site's public address (DECISIONS.md 13). */
  readonly siteUrl: string;
  /** The address the gateway listens on. */
  readonly listenHost: string;
  /** Hostnames the operator adds. */
  readonly extra?: readonly string[];
}

/** The hostnames the tool server answers, in a stable order, each once. */
export function toolServerHostnames({ siteUrl, listenHost, extra = [] }: AllowedHostsInput): string[] {
  const names = [new URL(siteUrl).hostname, ...(isLoopbackAddress(listenHost) ? LOOPBACK_NAMES : []), ...extra.map((name) => hostnameOf(name) ?? name)];
  return [...new Set(names)];
}
