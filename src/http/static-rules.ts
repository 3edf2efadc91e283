/**
 * Header rules for serving the anonymous floats-latest files (`pkgcat export`'s `public/`)
 * from a static host instead of the gateway: an nginx `server`-block include and a `_headers`
 * file (Netlify and Cloudflare Pages). Both are rendered from the same tables the gateway
 * answers with (cache-control.ts, content-types.ts), so a static host sends what the gateway
 * sends: the surface's Content-Type and Cache-Control, `X-Content-Type-Options: nosniff`,
 * `Vary: Accept-Encoding`, and never a cookie. Pure functions: the export writes their output
 * beside the files (build/export.ts); nothing here reads or writes files.
 *
 * What a static host cannot do, and the gateway does (docs/deployment.md): other spellings of a
 * name (DECISIONS.md 4), query values that have no file (`?limit=` on recent commits, an SBOM's
 * `?format=`, a badge's `?style=` and `?label=`), and everything behind a session. The `gateway`
 * flavour of the nginx include sends those requests to a named location of the operator's
 * (`@pkgcat_gateway`, a `proxy_pass` to the gateways); the standalone flavour answers them with
 * the gateway's 404 headers, or the file of the defaults. Query values that do have a file (a
 * registry parameter with `variantFiles`: a badge's `?metric=advisories`) are rewritten to it by both flavours.
 */
import { CACHE } from './cache-control.ts';
import { CONTENT_TYPE, mediaTypeOf } from './content-types.ts';
import { escapeRegExp, fillTemplate, publicFileTemplates, SERVED, templateParams, templatePattern, type SurfaceRow } from '../surfaces/registry.ts';

/** One kind of file in `public/`: how a static host must serve it (derived from a registry row). */
export interface StaticSurface {
  /** The registry row (src/surfaces/registry.ts), and for a variant file the query it answers, for comments. */
  readonly id: string;
  /** Where its Cache-Control comes from (for comments). */
  readonly source: string;
  /** The URL paths it covers (a path in public/ is its URL path). */
  readonly pattern: RegExp;
  /** nginx `location` arguments matching exactly those paths. */
  readonly nginxLocation: string;
  /**
   * `_headers` path pattern (hostPathOf): the URL path with each parameter as a `:placeholder`
   * (one segment, on Netlify and Cloudflare Pages alike), or, for a parameter with text around it in
   * its segment, as a `*` splat keeping that text (`/pkgs/*.md`) when the splat matches no other
   * row's files. Rows sharing one must have the same headers. Null for a page at a path with a
   * parameter (`/pkgs/{name}`): a host rule for a path without an extension would match every
   * other file of its folder (`/pkgs/:name` matches `/pkgs/zlib.md`), and hosts add up the headers
   * of every rule that matches; the host's own headers serve it (text/html, from `.html`).
   */
  readonly hostPath: string | null;
  readonly contentType: string;
  readonly cacheControl: string;
  /**
   * Query parameters only the gateway answers (recent commits' `limit`, an SBOM's `format`, a
   * badge's `style` and `label`): the `gateway` flavour sends a request with one of them to the gateway.
   */
  readonly gatewayQuery: readonly string[];
  /**
   * Query values another file of public/ answers (a variant file, registry.ts publicFileTemplates):
   * nginx rewrites `?parameter=value` to that file: `from` matches this surface's paths with the
   * template parameters captured, `to` is the variant's URL template `file` with `$1`... in their place.
   */
  readonly variants: readonly { readonly parameter: string; readonly value: string; readonly file: string; readonly from: string; readonly to: string }[];
  /**
   * The file nginx serves for a matching URL (`try_files`): `$uri` when the public file is the URL
   * path, else the page's file (`pageFileOf`).
   */
  readonly tryFile: string;
  /** The files of `public/` it covers (paths with a leading slash). */
  readonly filePattern: RegExp;
}


/** `template` with its parameters replaced by `$1`, `$2`... in order (an nginx `rewrite` replacement). */
const numbered = (template: string) => {
  let index = 0;
  return template.replace(/\{\w+\}/g, () => `$${++index}`);
};

/** `template` with each parameter's segment as a `:placeholder` (one segment, on Netlify and Cloudflare Pages alike). */
const placeholdersOf = (template: string) =>
  template
    .split('/')
    .map((segment) => (segment.includes('{') ? `:${templateParams(segment)[0]}` : segment))
    .join('/');

/**
 * The public file of an HTML page at `path`: the path with `.html` (`/` is `/index.html`), which
 * static hosts serve for the path without its extension (nginx through `try_files $uri.html`,
 * Netlify and Cloudflare Pages and GitHub Pages by themselves), and with no redirect to a
 * trailing slash, as a directory's `index.html` would get.
 */
export const pageFileOf = (path: string) => `${path === '/' ? '/index' : path}.html`;

/**
 * The `_headers` pattern of the URL template `path`. A placeholder takes a whole segment, so
 * `/pkgs/:name` would also match `/pkgs/advisories.xml` (and a page's `/pkgs/zlib`); a splat keeps
 * the text around the parameter (`/pkgs/*.md`) but may cross segments, so `/api/pkgs/*.json`
 * would also match `/api/pkgs/zlib/sbom.json`. The splat is taken when it matches none of the
 * `others` (the URL templates of every other public file); else the placeholders.
 */
function hostPathOf(path: string, others: readonly string[]): string {
  const placeholders = placeholdersOf(path);
  const parameters = templateParams(path);
  // Cloudflare Pages takes one splat per rule; a segment that is only its parameter gains nothing from one.
  if (parameters.length !== 1 || path.split('/').includes(`{${parameters[0]}}`)) return placeholders;
  const splat = path.replace(/\{\w+\}/, '*');
  const samples = others.filter((other) => other !== path).map((other) => fillTemplate(other, Object.fromEntries(templateParams(other).map((name) => [name, 'x']))));
  return samples.some((sample) => hostPattern(splat).test(sample)) ? placeholders : splat;
}

/**
 * The static rules of one registry row whose public file is its URL path, or its page file; then
 * one for each of its variant files (registry.ts publicFileTemplates), each at its own URL path.
 */
function staticSurfaces(row: SurfaceRow, urls: readonly string[]): StaticSurface[] {
  const path = row.path;
  const file = `/${row.publicFile}`;
  const page = file !== path;
  if (page && file !== pageFileOf(path)) throw new Error(`static rules: ${row.id} is served from ${file}, neither its URL ${path} nor ${pageFileOf(path)}`);
  const files = publicFileTemplates(row);
  if (page && files.length > 1) throw new Error(`static rules: ${row.id} is a page with variant files`);
  const variantParameters = new Set(files.flatMap((variant) => Object.keys(variant.query)));
  const fixed = templateParams(path).length === 0;
  const own: StaticSurface = {
    id: row.id,
    source: row.source,
    pattern: new RegExp(templatePattern(path)),
    nginxLocation: fixed ? `= ${path}` : `~ ${templatePattern(path)}`,
    hostPath: page && !fixed ? null : hostPathOf(path, urls),
    contentType: row.contentType,
    cacheControl: row.cacheControl,
    // A variant file answers its own query; the rest of a request's query goes with it, unanswered.
    gatewayQuery: (row.query ?? []).map((query) => query.name).filter((name) => !variantParameters.has(name)),
    variants: files.slice(1).flatMap((variant) =>
      Object.entries(variant.query).map(([parameter, value]) => ({
        parameter,
        value,
        file: `/${variant.template}`,
        from: templatePattern(path, true),
        to: numbered(`/${variant.template}`),
      })),
    ),
    tryFile: !page ? '$uri' : fixed ? file : pageFileOf('$uri'),
    filePattern: new RegExp(templatePattern(file)),
  };
  const variants = files.slice(1).map(({ template, query }): StaticSurface => {
    const url = `/${template}`;
    return {
      ...own,
      id: `${row.id}?${Object.entries(query).map(([name, value]) => `${name}=${value}`).join('&')}`,
      pattern: new RegExp(templatePattern(url)),
      nginxLocation: templateParams(url).length === 0 ? `= ${url}` : `~ ${templatePattern(url)}`,
      hostPath: hostPathOf(url, urls),
      gatewayQuery: [],
      variants: [],
      tryFile: '$uri',
      filePattern: new RegExp(templatePattern(url)),
    };
  });
  return [own, ...variants];
}

/**
 * Every kind of file the build writes into `public/`, most specific first: the public files of the
 * registry's served rows, and their variants. tests/http/static-rules.test.ts fails when a file of
 * a build matches no row.
 */
const PUBLIC_ROWS = SERVED.filter((row) => row.publicFile !== undefined);
const PUBLIC_URLS = PUBLIC_ROWS.flatMap((row) => [row.path, ...publicFileTemplates(row).slice(1).map((file) => `/${file.template}`)]);
export const STATIC_SURFACES: readonly StaticSurface[] = PUBLIC_ROWS.flatMap((row) => staticSurfaces(row, PUBLIC_URLS));

/** Headers every anonymous file carries besides its Content-Type and Cache-Control (gateway/app.ts, gateway/send.ts). */
export const COMMON_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  Vary: 'Accept-Encoding',
};

/** The static row serving the URL path `urlPath`, or null. */
export function staticSurfaceOf(urlPath: string): StaticSurface | null {
  return STATIC_SURFACES.find((surface) => surface.pattern.test(urlPath)) ?? null;
}

/** The static row of the file `file` of public/ (with its leading slash), or null. */
export function staticSurfaceOfFile(file: string): StaticSurface | null {
  return STATIC_SURFACES.find((surface) => surface.filePattern.test(file)) ?? null;
}

/** The gateway's 404 for a name that is not in the catalog: its body shape (errors.ts) and negative cache (DECISIONS.md 8). */
const NOT_FOUND_BODY = '{"error":"not_found","message":"No package by that name in the catalog (names are served in their canonical spelling here)."}';

/** The named location the `gateway` flavour sends misses to; the operator defines it (a proxy_pass to the gateways). */
export const NGINX_GATEWAY_LOCATION = '@pkgcat_gateway';

export interface NginxRulesOptions {
  /**
   * `standalone` (default): a path that is not a file answers the gateway's 404 (JSON, negative
   * cache); query parameters without a file of their own (`?limit=`, `?style=`) are ignored (the
   * defaults' file). `gateway`: both go to the named location `@pkgcat_gateway`, which the
   * including configuration defines.
   */
  readonly flavour?: 'standalone' | 'gateway';
}

/**
 * nginx directives giving `contentType`. The charset goes through the charset module (`charset`,
 * `charset_types`) and not into `default_type`: nginx matches `gzip_types` against the bare type.
 */
function nginxContentType(contentType: string): string[] {
  const [type, ...parameters] = contentType.split(';').map((part) => part.trim());
  const charset = parameters.find((parameter) => parameter.toLowerCase().startsWith('charset='))?.slice('charset='.length);
  if (parameters.length > (charset ? 1 : 0)) throw new Error(`nginx rules: cannot express the parameters of ${contentType}`);
  return [
    '    types { }',
    `    default_type ${type};`,
    ...(charset ? [`    charset ${charset};`, `    charset_types ${type};`] : ['    charset off;']),
  ];
}

function quote(value: string): string {
  if (/["\\$]/.test(value)) throw new Error(`cannot quote ${value} for nginx`);
  return `"${value}"`;
}

/** The nginx include: `location` blocks for the files of `public/`, to include inside a `server` whose `root` is an export's `public/`. */
export function renderNginxRules(options: NginxRulesOptions = {}): string {
  const flavour = options.flavour ?? 'standalone';
  const miss = flavour === 'gateway' ? NGINX_GATEWAY_LOCATION : '@pkgcat_not_found';
  const gatewayQuery = STATIC_SURFACES.filter((surface) => surface.gatewayQuery.length > 0)
    .map((surface) => `${surface.gatewayQuery.map((name) => `?${name}=`).join(', ')} (${surface.id})`)
    .join('; ');
  const variants = STATIC_SURFACES.flatMap((surface) => surface.variants.map((variant) => `?${variant.parameter}=${variant.value} (${surface.id})`)).join(', ');
  const lines = [
    '# Generated by `pkgcat export` (src/http/static-rules.ts) from the gateway\'s Cache-Control and',
    '# Content-Type tables (src/http/cache-control.ts; docs/deployment.md lists them).',
    '# Do not edit: every export writes a fresh copy, identical unless pkgcat changed.',
    '#',
    '# The anonymous floats-latest files of a pkgcat export. Include it in a `server` block:',
    '#',
    '#     root /srv/pkgcat/static/public;    # kept current by `pkgcat build --export /srv/pkgcat/static`',
    `#     include /srv/pkgcat/static/static/${flavour === 'gateway' ? 'nginx-anonymous-gateway.conf' : 'nginx-anonymous.conf'};`,
    ...(flavour === 'gateway'
      ? [
          `#     location ${NGINX_GATEWAY_LOCATION} { proxy_pass http://pkgcat_gateways; ... }   # you define it (docs/deployment.md)`,
          '#',
          '# A path that is no file here (another spelling of a name, an unknown name), and a request with a',
          `# query parameter that has no file of its own (${gatewayQuery}),`,
          `# go to ${NGINX_GATEWAY_LOCATION}, which answers them exactly as the gateway does.`,
        ]
      : [
          '#',
          '# A path that is no file here answers the gateway\'s 404 for an unknown name. A static host serves',
          '# canonical spellings only, and query parameters that have no file of their own are ignored',
          `# (${gatewayQuery}): the defaults come back.`,
          '# nginx-anonymous-gateway.conf sends those requests to the gateway instead.',
        ]),
    ...(variants ? ['#', `# Query values with a file of their own are rewritten to it: ${variants}.`] : []),
    '#',
    '# Headers: the surface\'s Content-Type and Cache-Control, X-Content-Type-Options and Vary as the',
    '# gateway sends them, never a cookie; no ETag, no 304 and no ranges (the gateway answers no',
    '# conditional or range request). nginx adds Last-Modified and Accept-Ranges, which it cannot drop.',
    '# gzip: a precompressed `.gz` sibling when there is one, else compressed on the fly from 1 KiB, as the gateway does.',
    '',
  ];
  const common = (always: boolean) => [
    ...Object.entries(COMMON_HEADERS).map(([name, value]) => `    add_header ${name} ${quote(value)}${always ? ' always' : ''};`),
  ];
  for (const surface of STATIC_SURFACES) {
    lines.push(`# ${surface.id}: ${surface.source}`);
    lines.push(`location ${surface.nginxLocation} {`);
    if (flavour === 'gateway' && (surface.gatewayQuery.length > 0 || surface.variants.length > 0)) {
      lines.push(`    error_page 418 = ${NGINX_GATEWAY_LOCATION};`);
      for (const parameter of surface.gatewayQuery) lines.push(`    if ($arg_${parameter}) { return 418; }`);
      // Another spelling of a name goes to the gateway before a rewrite below changes its URI.
      if (surface.variants.length > 0) lines.push('    if (!-f $request_filename) { return 418; }');
    }
    for (const variant of surface.variants) {
      lines.push(`    if ($arg_${variant.parameter} = ${quote(variant.value)}) { rewrite ${variant.from} ${variant.to} last; }`);
    }
    lines.push(
      ...nginxContentType(surface.contentType),
      '    etag off;',
      '    if_modified_since off;',
      '    max_ranges 0;',
      '    gzip_static on;',
      '    gzip on;',
      '    gzip_proxied any;',
      '    gzip_min_length 1024;',
      '    gzip_comp_level 6;',
      `    gzip_types ${mediaTypeOf(surface.contentType)};`,
      `    add_header Cache-Control ${quote(surface.cacheControl)};`,
      ...common(false),
      `    try_files ${surface.tryFile} ${miss};`,
      '}',
      '',
    );
  }
  if (flavour === 'standalone') {
    lines.push(
      `# A name that is not in the catalog: the gateway's 404 (a short edge negative cache).`,
      'location @pkgcat_not_found {',
      ...nginxContentType(CONTENT_TYPE.json),
      `    add_header Cache-Control ${quote(CACHE.negative)} always;`,
      `    add_header X-Content-Type-Options ${quote(COMMON_HEADERS['X-Content-Type-Options'])} always;`,
      `    return 404 '${NOT_FOUND_BODY}';`,
      '}',
      '',
    );
  }
  return lines.join('\n');
}

/**
 * The `_headers` file (Netlify, Cloudflare Pages) for a site whose root is `public/`. Hosts combine
 * the values of every rule that matches a path: one rule should match each file, or values would
 * repeat (same headers) or mix (different ones). A fixed path that a placeholder or splat rule covers is
 * left to that rule when their headers agree. When they differ (the OpenAPI document's
 * Cache-Control under `/api/pkgs/:name`) no pattern can leave the fixed file out, so it gets its
 * own rule after the placeholder's: Netlify takes a header from the later rule, Cloudflare Pages
 * joins both values (docs/deployment.md).
 */
export function renderHeadersFile(): string {
  const rules = new Map<string, Record<string, string>>();
  const covering = (path: string) => [...rules.keys()].find((rule) => hostPattern(rule).test(path));
  const ruled = STATIC_SURFACES.filter((surface): surface is StaticSurface & { hostPath: string } => surface.hostPath !== null);
  const placeholders = ruled.filter((surface) => /[:*]/.test(surface.hostPath));
  for (const surface of [...placeholders, ...ruled.filter((surface) => !placeholders.includes(surface))]) {
    const headers = { 'Cache-Control': surface.cacheControl, 'Content-Type': surface.contentType, ...COMMON_HEADERS };
    const rule = covering(surface.hostPath);
    if (rule === undefined) rules.set(surface.hostPath, headers);
    else if (JSON.stringify(rules.get(rule)) !== JSON.stringify(headers)) {
      if (placeholders.includes(surface)) throw new Error(`_headers: ${surface.hostPath} would need two sets of headers (${rule} covers it)`);
      rules.set(surface.hostPath, headers);
    }
  }
  const lines = [
    '# Generated by `pkgcat export` (src/http/static-rules.ts) from the gateway\'s Cache-Control table',
    '# (docs/deployment.md lists it). Netlify / Cloudflare Pages format; the site root',
    '# is this directory. Sha-pinned bundles, /auth/ and /api/pkgs/bundle/latest.json belong to the gateway.',
    '# A static host of this kind does not look at query strings: each URL answers its defaults. Other',
    '# query values that have a file of their own are served at that file\'s path:',
    ...STATIC_SURFACES.flatMap((surface) => surface.variants.map((variant) => `#   ${surface.hostPath}?${variant.parameter}=${variant.value} -> ${placeholdersOf(variant.file)}`)),
  ];
  for (const [path, headers] of rules) {
    lines.push(path);
    for (const [name, value] of Object.entries(headers)) lines.push(`  ${name}: ${value}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The paths a `_headers` rule matches (`:placeholder`: one segment; `*`: anything, `/` included). */
function hostPattern(rule: string): RegExp {
  const segment = (text: string) => (text.startsWith(':') ? '[^/]+' : text.split('*').map(escapeRegExp).join('.*'));
  return new RegExp(`^${rule.split('/').map(segment).join('/')}$`);
}

/** Headers the gateway sets on an X-Accel-Redirect answer that nginx does not carry over by itself (it keeps Content-Type and Cache-Control). */
const ACCEL_HEADERS = ['ETag', 'Vary', 'Content-Encoding', 'X-Content-Type-Options'] as const;

/**
 * The `internal` location of the X-Accel-Redirect mode (`pkgcat serve --accel-redirect <prefix>`):
 * nginx serves the output directory `out` under `prefix`, only for answers of the gateway, with the
 * headers the gateway chose. To include in the `server` block that proxies to the gateways.
 */
export function renderNginxAccelLocation(prefix: string, out: string): string {
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(prefix)) throw new Error(`not an internal location prefix: ${prefix}`);
  if (!out.startsWith('/') || /[\s;{}"'$]/.test(out)) throw new Error(`not an absolute output directory nginx can alias: ${out}`);
  return [
    `# pkgcat X-Accel-Redirect mode: the gateway answers with the headers and X-Accel-Redirect: ${prefix}/<path in out>;`,
    '# nginx sends that file. Generated from src/http/static-rules.ts (renderNginxAccelLocation).',
    `location ${prefix}/ {`,
    '    internal;',
    `    alias ${out.replace(/\/+$/, '')}/;`,
    '    # The gateway chose every header: nginx keeps its Content-Type and Cache-Control, the rest are copied here.',
    '    etag off;',
    '    if_modified_since off;',
    '    max_ranges 0;',
    '    gzip off;',
    '    charset off;',
    ...ACCEL_HEADERS.map((name) => `    add_header ${name} $upstream_http_${name.toLowerCase().replaceAll('-', '_')};`),
    '}',
    '',
  ].join('\n');
}

export interface NginxAccelFrontOptions {
  /** `host:port` of each gateway started with `--accel-redirect <prefix>`. */
  gateways: readonly string[];
  /** What the `server` block listens on, e.g. `127.0.0.1:8080`. */
  listen: string;
  prefix: string;
  out: string;
  keepalive?: number;
}

/**
 * The `upstream` and `server` blocks of the X-Accel-Redirect deployment: nginx proxies every
 * request to the gateways and sends the files they name. To include in nginx's `http` block.
 */
export function renderNginxAccelFront(options: NginxAccelFrontOptions): string {
  const servers = options.gateways.map((gateway) => `server ${gateway};`).join(' ');
  return `  upstream pkgcat_gateways { ${servers} keepalive ${options.keepalive ?? 64}; }
  server {
    listen ${options.listen};
    location / {
      proxy_pass http://pkgcat_gateways;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
    }
${renderNginxAccelLocation(options.prefix, options.out)}
  }`;
}
