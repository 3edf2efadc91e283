/**
 * Security advisories of the demo catalog, as OSV 1.6 records (advisories/<id>.json).
 *
 * ILLUSTRATIVE, NOT REAL VULNERABILITIES. Every id is `PKGCAT-DEMO-2026-NNNN`, every summary starts
 * with "Illustrative demo advisory", and the references point at example.invalid. They exist to
 * show how the catalog treats advisories: one that appears and is later fixed by an upgrade, one
 * on a library half the catalog depends on, one whose severity comes only from a CVSS vector, one
 * that is withdrawn, one that names several packages (one not in the catalog) with an explicit
 * version list, and one with a SEMVER range.
 */

export const ADVISORY_IDS = {
  libxml2: 'PKGCAT-DEMO-2026-0001',
  zlib: 'PKGCAT-DEMO-2026-0002',
  curl: 'PKGCAT-DEMO-2026-0003',
  libuv: 'PKGCAT-DEMO-2026-0004',
  ggml: 'PKGCAT-DEMO-2026-0005',
  spdlog: 'PKGCAT-DEMO-2026-0006',
} as const;

export function advisoryPath(id: string): string {
  return `advisories/${id}.json`;
}

const NOTICE =
  'This record is illustrative demo data shipped with pkgcat. It does not describe a real vulnerability in the named project.';

function reference(id: string): { type: string; url: string } {
  return { type: 'ADVISORY', url: `https://example.invalid/pkgcat-demo/advisories/${id}` };
}

function affected(name: string, events: Record<string, string>[], type = 'ECOSYSTEM') {
  return { package: { name, ecosystem: 'pkgcat-demo' }, ranges: [{ type, events }] };
}

/** 0001, libxml2: published with no fix known; the fix arrives with the catalog's upgrade. */
export function libxml2Advisory(stage: 'published' | 'fixed'): Record<string, unknown> {
  const id = ADVISORY_IDS.libxml2;
  const events: Record<string, string>[] = [{ introduced: '0' }];
  if (stage === 'fixed') events.push({ fixed: '2.15.1' });
  return {
    schema_version: '1.6.0',
    id,
    modified: stage === 'fixed' ? '2026-02-02T11:30:00Z' : '2026-01-19T10:00:00Z',
    published: '2026-01-19T10:00:00Z',
    aliases: [],
    summary: 'Illustrative demo advisory (not a real vulnerability): libxml2 entity expansion limit can be bypassed',
    details:
      `${NOTICE} In the story of the demo catalog, a crafted document could make the parser expand nested entities past its ` +
      'configured limit and use excessive memory. ' +
      (stage === 'fixed'
        ? 'The catalog ships the fixed version 2.15.1 from 2026-02-02.'
        : 'No fixed version is available yet; the catalog will upgrade once one is released.'),
    affected: [affected('libxml2', events)],
    database_specific: { severity: 'MODERATE' },
    references: [reference(id), { type: 'PACKAGE', url: 'https://gitlab.gnome.org/GNOME/libxml2' }],
  };
}

/** 0002, zlib: a transitive advisory; every package depending on zlib inherits it until zlib is upgraded. */
export function zlibAdvisory(stage: 'published' | 'fixed'): Record<string, unknown> {
  const id = ADVISORY_IDS.zlib;
  const references = [reference(id), { type: 'PACKAGE', url: 'https://github.com/madler/zlib' }];
  if (stage === 'fixed') references.push({ type: 'FIX', url: 'https://example.invalid/pkgcat-demo/catalog/zlib-1.3.2' });
  return {
    schema_version: '1.6.0',
    id,
    modified: stage === 'fixed' ? '2026-02-24T16:05:00Z' : '2026-02-05T08:45:00Z',
    published: '2026-02-05T08:45:00Z',
    aliases: [],
    summary: 'Illustrative demo advisory (not a real vulnerability): zlib inflate window handling reads out of bounds',
    details:
      `${NOTICE} In the demo story, decompressing a crafted stream could read past the end of the sliding window. ` +
      'Because curl, libpng, libxml2, protobuf, grpc, rocksdb, cmake and many other catalog packages link zlib, ' +
      'the advisory matters well beyond zlib itself. Upstream has released 1.3.2 with a fix.',
    affected: [affected('zlib', [{ introduced: '1.2.12' }, { fixed: '1.3.2' }])],
    database_specific: { severity: 'HIGH' },
    references,
  };
}

/** 0003, curl: no database_specific severity, only a CVSS v3.1 vector (base score 4.8, medium). Never fixed in the catalog. */
export function curlAdvisory(): Record<string, unknown> {
  const id = ADVISORY_IDS.curl;
  return {
    schema_version: '1.6.0',
    id,
    modified: '2026-02-13T13:20:00Z',
    published: '2026-02-13T13:20:00Z',
    aliases: [],
    summary: 'Illustrative demo advisory (not a real vulnerability): curl may reuse a connection across differing TLS options',
    details:
      `${NOTICE} In the demo story, libcurl could pick an existing connection from its pool even though the new ` +
      'transfer asked for different TLS settings. The fix is in 8.19.0, which the demo catalog has not shipped yet, ' +
      'so this advisory stays active at the tip.',
    severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:L/A:N' }],
    affected: [affected('curl', [{ introduced: '8.10.0' }, { fixed: '8.19.0' }])],
    references: [reference(id), { type: 'PACKAGE', url: 'https://curl.se' }],
  };
}

/** 0004, libuv: published, then withdrawn because the report could not be reproduced. */
export function libuvAdvisory(stage: 'published' | 'withdrawn'): Record<string, unknown> {
  const id = ADVISORY_IDS.libuv;
  const record: Record<string, unknown> = {
    schema_version: '1.6.0',
    id,
    modified: stage === 'withdrawn' ? '2026-03-16T09:10:00Z' : '2026-03-02T15:00:00Z',
    published: '2026-03-02T15:00:00Z',
  };
  if (stage === 'withdrawn') record.withdrawn = '2026-03-16T09:10:00Z';
  return {
    ...record,
    aliases: [],
    summary: 'Illustrative demo advisory (not a real vulnerability): libuv pipe handle double close',
    details:
      `${NOTICE} In the demo story, a report claimed that closing a pipe handle twice could corrupt the loop. ` +
      (stage === 'withdrawn'
        ? 'The report could not be reproduced and the advisory was withdrawn; it no longer counts anywhere.'
        : 'The report is under investigation.'),
    affected: [affected('libuv', [{ introduced: '1.45.0' }])],
    database_specific: { severity: 'HIGH' },
    references: [reference(id)],
  };
}

/**
 * 0005, ggml and llama.cpp (and ollama, which is not in the catalog): ggml by range, llama.cpp by an
 * explicit version list. ggml's upgrade to 0.9.5 fixes it for ggml; llama.cpp stays affected until
 * it moves past the listed builds.
 */
export function ggmlAdvisory(stage: 'published' | 'ggml-fixed'): Record<string, unknown> {
  const id = ADVISORY_IDS.ggml;
  return {
    schema_version: '1.6.0',
    id,
    modified: stage === 'ggml-fixed' ? '2026-04-14T12:00:00Z' : '2026-04-08T07:30:00Z',
    published: '2026-04-08T07:30:00Z',
    aliases: [],
    summary: 'Illustrative demo advisory (not a real vulnerability): GGUF tensor metadata can overflow a size computation',
    details:
      `${NOTICE} In the demo story, a model file with crafted tensor dimensions could overflow a size computation ` +
      'while loading. ggml fixes it in 0.9.5; the listed llama.cpp builds vendor the affected loader.',
    affected: [
      affected('ggml', [{ introduced: '0' }, { fixed: '0.9.5' }]),
      { package: { name: 'llama.cpp', ecosystem: 'pkgcat-demo' }, versions: ['b6800', 'b7010'] },
      affected('ollama', [{ introduced: '0' }]),
    ],
    database_specific: { severity: 'CRITICAL' },
    references: [reference(id), { type: 'PACKAGE', url: 'https://github.com/ggml-org/ggml' }],
  };
}

/** 0006, spdlog: a SEMVER range, low severity, fixed by the next upgrade. */
export function spdlogAdvisory(stage: 'published' | 'fixed'): Record<string, unknown> {
  const id = ADVISORY_IDS.spdlog;
  return {
    schema_version: '1.6.0',
    id,
    modified: stage === 'fixed' ? '2026-07-08T10:00:00Z' : '2026-07-01T09:00:00Z',
    published: '2026-07-01T09:00:00Z',
    aliases: [],
    summary: 'Illustrative demo advisory (not a real vulnerability): spdlog rotating file sink may follow a symlink',
    details:
      `${NOTICE} In the demo story, the rotating file sink could follow a symbolic link planted at the rotation ` +
      'target. Fixed in 1.16.1.',
    affected: [affected('spdlog', [{ introduced: '1.16.0' }, { fixed: '1.16.1' }], 'SEMVER')],
    database_specific: { severity: 'LOW' },
    references: [reference(id)],
  };
}
