/**
 * The history of the demo catalog: one step per commit on `main`, oldest first, set in 2026.
 *
 * Each step changes the catalog's package set (add, remove, upgrade, patch) and may write other
 * files (advisories, scorecards, the README, a deliberately broken manifest). demo/make-demo-catalog.ts
 * turns the steps into commits: it regenerates every package's manifest.json, build.sh and notes.md
 * from the package state and commits what changed.
 *
 * What the story exercises, by step index (see STORY below):
 *    0  initial import (49 packages, README at the root: a path the service ignores)
 *    1  first Scorecard results (curl, openssl, zlib, libpng, sqlite)
 *    4  jq added; its dependency oniguruma does not exist yet (dangling in steps 4 to 6)
 *    5  advisory 0001 on libxml2, no fix known     8  libxml2 upgrade fixes it, `modified` moves
 *    7  oniguruma added: jq's dependency resolves
 *    9  advisory 0002 on zlib: transitive, every package linking zlib is exposed
 *   11  advisory 0003 on curl, severity only as a CVSS v3.1 vector; still active at the tip
 *   13  zlib upgrade fixes 0002 (advisory `modified` moves, a FIX reference appears)
 *   14  advisory 0004 on libuv                     18  0004 withdrawn
 *   15  BAD commit: packages/sqlite/manifest.json is not JSON (trailing comma)
 *   16  the manifest is fixed
 *   17  zlib's scorecard re-scored
 *   19  leveldb removed
 *   20  boost.beast added (dotted names: boost.asio, boost.beast, llama.cpp, whisper.cpp)
 *   22  advisory 0005: ggml by range, llama.cpp by version list, ollama (not in the catalog)
 *   23  ggml upgrade fixes 0005 for ggml          31  llama.cpp moves past 0005's list
 *   24  whisper.cpp added (depends on `sdl`, which is the package `SDL`: names are case-insensitive)
 *   26  more Scorecard results; lmdb's score is unknown (-1)
 *   28  star counts change, no version changes
 *   32  advisory 0006 on spdlog (SEMVER range)     33  spdlog upgrade fixes it
 *   34  notes-only change to curl (no new version; counted in curl's next version diff)
 *   38  README only (ignored path)
 */
import type { FileContent } from './catalog-writer.ts';
import {
  advisoryPath,
  curlAdvisory,
  ggmlAdvisory,
  libuvAdvisory,
  libxml2Advisory,
  spdlogAdvisory,
  zlibAdvisory,
} from './demo-advisories.ts';
import { DEMO_PACKAGES, demoArchiveSha256, type DemoPackage } from './demo-packages.ts';
import { SCORES, demoScorecard } from './demo-scorecards.ts';

export interface StoryStep {
  time: string;
  message: string;
  /** Packages from DEMO_PACKAGES entering the catalog (with their table version unless upgraded in the same step). */
  add?: string[];
  /** Packages leaving the catalog (their whole directory goes). */
  remove?: string[];
  /** New versions. */
  upgrade?: Record<string, string>;
  /** Other field changes (stars, recipe, notes, dependencies) that do not change the version by themselves. */
  patch?: Record<string, Partial<Omit<DemoPackage, 'name' | 'version'>>>;
  /**
   * Files written as given. Advisories, scorecards and other files stay until a later step
   * replaces or deletes them; a file that the generator owns (manifest.json, build.sh, notes.md)
   * is overridden for this one commit only, and regenerated in the next.
   */
  files?: Record<string, FileContent>;
}

/** Packages that join the catalog after the initial import. */
const ADDED_LATER = new Set(['jq', 'oniguruma', 'libgit2', 'boost.beast', 'whisper.cpp']);

const INITIAL = DEMO_PACKAGES.map((pkg) => pkg.name).filter((name) => !ADDED_LATER.has(name));

const README_V1 = `# pkgcat demo catalog

A catalog repository in the format pkgcat reads (see its docs/catalog-format.md): one directory per package
under \`packages/\`, OSV advisories under \`advisories/\`.

Everything here is demo data. The packages are real projects, but versions after 2025, star
counts, archive checksums, Scorecard results and every advisory are illustrative.
`;

const README_V2 = `${README_V1}
## Conventions

- Archive checksums are \`sha256("<name>@<version>")\`, not checksums of the real archives.
- Advisory ids look like \`PKGCAT-DEMO-2026-NNNN\`; none of them is a real vulnerability.
- Scorecard files carry \`"version": "demo"\`; their scores are invented.
`;

/** The broken manifest of step 15: a stray comma after the last member, so it is not JSON. Written byte for byte. */
const BAD_SQLITE_MANIFEST = `{
  "name": "sqlite",
  "version": "3.51.1",
  "description": "A self-contained SQL database engine in a single library: no server, one file per database, transactional, and embedded in phones, browsers and desktop applications alike.",
  "license": "blessing",
  "homepage": "https://sqlite.org",
  "repository": "https://github.com/sqlite/sqlite",
  "categories": [
    "database",
    "sql"
  ],
  "stars": 8200,
  "archive": {
    "url": "https://github.com/sqlite/sqlite/archive/refs/tags/version-3.51.1.tar.gz",
    "sha256": "${demoArchiveSha256('sqlite', '3.51.1')}"
  },
}
`;

export const BAD_COMMIT_INDEX = 15;
export const BAD_COMMIT_PATH = 'packages/sqlite/manifest.json';

export const STORY: readonly StoryStep[] = [
  /* 0 */ {
    time: '2026-01-05T09:00:00Z',
    message: `Import the initial catalog: ${INITIAL.length} packages\n\nManifests, build recipes and notes carried over from the old spreadsheet.\n`,
    add: INITIAL,
    files: { 'README.md': README_V1 },
  },
  /* 1 */ {
    time: '2026-01-06T14:20:00Z',
    message: 'Add Scorecard results for curl, openssl, zlib, libpng and sqlite\n',
    files: {
      'packages/curl/scorecard.json': demoScorecard('github.com/curl/curl', '2026-01-06T06:00:00Z', SCORES.curl),
      'packages/openssl/scorecard.json': demoScorecard('github.com/openssl/openssl', '2026-01-06T06:00:00Z', SCORES.openssl),
      'packages/zlib/scorecard.json': demoScorecard('github.com/madler/zlib', '2026-01-06T06:00:00Z', SCORES.zlibFirst),
      'packages/libpng/scorecard.json': demoScorecard('github.com/pnggroup/libpng', '2026-01-06T06:00:00Z', SCORES.libpng),
      'packages/sqlite/scorecard.json': demoScorecard('github.com/sqlite/sqlite', '2026-01-06T06:00:00Z', SCORES.sqlite),
    },
  },
  /* 2 */ {
    time: '2026-01-09T10:15:00Z',
    message: 'Upgrade curl to 8.17.0\n',
    upgrade: { curl: '8.17.0' },
  },
  /* 3 */ {
    time: '2026-01-12T16:40:00Z',
    message: 'Upgrade fmt to 12.0.0 and spdlog to 1.16.0\n\nspdlog 1.16 is the first release that builds against fmt 12.\n',
    upgrade: { fmt: '12.0.0', spdlog: '1.16.0' },
  },
  /* 4 */ {
    time: '2026-01-15T11:05:00Z',
    message: 'Add jq\n\nIts regex library, oniguruma, is not packaged yet: the dependency dangles for now.\n',
    add: ['jq'],
  },
  /* 5 */ {
    time: '2026-01-19T10:00:00Z',
    message: 'Publish PKGCAT-DEMO-2026-0001 for libxml2 (illustrative)\n',
    files: { [advisoryPath('PKGCAT-DEMO-2026-0001')]: libxml2Advisory('published') },
  },
  /* 6 */ {
    time: '2026-01-22T09:30:00Z',
    message: 'Upgrade protobuf to 33.2 and abseil-cpp to 20260107.0\n',
    upgrade: { protobuf: '33.2', 'abseil-cpp': '20260107.0' },
  },
  /* 7 */ {
    time: '2026-01-27T13:45:00Z',
    message: 'Add oniguruma, resolving jq\'s missing dependency\n',
    add: ['oniguruma'],
  },
  /* 8 */ {
    time: '2026-02-02T11:30:00Z',
    message: 'Upgrade libxml2 to 2.15.1, fixing PKGCAT-DEMO-2026-0001\n',
    upgrade: { libxml2: '2.15.1' },
    files: { [advisoryPath('PKGCAT-DEMO-2026-0001')]: libxml2Advisory('fixed') },
  },
  /* 9 */ {
    time: '2026-02-05T08:45:00Z',
    message: 'Publish PKGCAT-DEMO-2026-0002 for zlib (illustrative)\n\nEverything that links zlib is exposed until zlib 1.3.2 lands.\n',
    files: { [advisoryPath('PKGCAT-DEMO-2026-0002')]: zlibAdvisory('published') },
  },
  /* 10 */ {
    time: '2026-02-10T17:20:00Z',
    message: 'Upgrade llama.cpp to b7010\n',
    upgrade: { 'llama.cpp': 'b7010' },
  },
  /* 11 */ {
    time: '2026-02-13T13:20:00Z',
    message: 'Publish PKGCAT-DEMO-2026-0003 for curl (illustrative, CVSS vector only)\n',
    files: { [advisoryPath('PKGCAT-DEMO-2026-0003')]: curlAdvisory() },
  },
  /* 12 */ {
    time: '2026-02-18T10:00:00Z',
    message: 'Add libgit2\n',
    add: ['libgit2'],
  },
  /* 13 */ {
    time: '2026-02-24T16:05:00Z',
    message: 'Upgrade zlib to 1.3.2, fixing PKGCAT-DEMO-2026-0002\n',
    upgrade: { zlib: '1.3.2' },
    patch: {
      zlib: {
        notes:
          '# zlib\n\nThe catalog builds zlib with its own configure script, not CMake.\n\nMany packages depend on it at runtime; an upgrade here rebuilds a large part of the catalog.\n\n1.3.2 fixes PKGCAT-DEMO-2026-0002 (illustrative).\n',
      },
    },
    files: { [advisoryPath('PKGCAT-DEMO-2026-0002')]: zlibAdvisory('fixed') },
  },
  /* 14 */ {
    time: '2026-03-02T15:00:00Z',
    message: 'Publish PKGCAT-DEMO-2026-0004 for libuv (illustrative)\n',
    files: { [advisoryPath('PKGCAT-DEMO-2026-0004')]: libuvAdvisory('published') },
  },
  /* 15: BAD */ {
    time: '2026-03-06T09:12:00Z',
    message: 'Upgrade sqlite to 3.51.1\n',
    upgrade: { sqlite: '3.51.1' },
    files: { [BAD_COMMIT_PATH]: BAD_SQLITE_MANIFEST },
  },
  /* 16 */ {
    time: '2026-03-06T09:48:00Z',
    message: 'Fix the sqlite manifest: remove a stray trailing comma\n',
  },
  /* 17 */ {
    time: '2026-03-11T14:00:00Z',
    message: 'Re-score zlib: upstream enabled branch protection and dependency updates\n',
    files: {
      'packages/zlib/scorecard.json': demoScorecard('github.com/madler/zlib', '2026-03-10T06:00:00Z', SCORES.zlibRescored),
    },
  },
  /* 18 */ {
    time: '2026-03-16T09:10:00Z',
    message: 'Withdraw PKGCAT-DEMO-2026-0004: the report could not be reproduced\n',
    files: { [advisoryPath('PKGCAT-DEMO-2026-0004')]: libuvAdvisory('withdrawn') },
  },
  /* 19 */ {
    time: '2026-03-20T11:25:00Z',
    message: 'Remove leveldb: nothing in the catalog depends on it any more\n',
    remove: ['leveldb'],
  },
  /* 20 */ {
    time: '2026-03-25T15:40:00Z',
    message: 'Upgrade boost.asio to 1.90.0 and add boost.beast\n',
    upgrade: { 'boost.asio': '1.90.0' },
    add: ['boost.beast'],
  },
  /* 21 */ {
    time: '2026-04-01T08:55:00Z',
    message: 'Upgrade openssl to 3.6.1\n',
    upgrade: { openssl: '3.6.1' },
  },
  /* 22 */ {
    time: '2026-04-08T07:30:00Z',
    message: 'Publish PKGCAT-DEMO-2026-0005 for ggml and llama.cpp (illustrative)\n',
    files: { [advisoryPath('PKGCAT-DEMO-2026-0005')]: ggmlAdvisory('published') },
  },
  /* 23 */ {
    time: '2026-04-14T12:00:00Z',
    message: 'Upgrade ggml to 0.9.5, fixing PKGCAT-DEMO-2026-0005 for ggml\n\nllama.cpp b7010 is still on the advisory\'s list.\n',
    upgrade: { ggml: '0.9.5' },
    files: { [advisoryPath('PKGCAT-DEMO-2026-0005')]: ggmlAdvisory('ggml-fixed') },
  },
  /* 24 */ {
    time: '2026-04-21T10:10:00Z',
    message: 'Add whisper.cpp\n',
    add: ['whisper.cpp'],
  },
  /* 25 */ {
    time: '2026-05-04T13:30:00Z',
    message: 'Upgrade cmake to 4.2.1 and ninja to 1.13.2\n',
    upgrade: { cmake: '4.2.1', ninja: '1.13.2' },
  },
  /* 26 */ {
    time: '2026-05-12T09:00:00Z',
    message: 'Add Scorecard results for llama.cpp, grpc, protobuf, onnxruntime and lmdb\n\nScorecard could not score the lmdb mirror; it is recorded as unknown.\n',
    files: {
      'packages/llama.cpp/scorecard.json': demoScorecard('github.com/ggml-org/llama.cpp', '2026-05-11T06:00:00Z', SCORES['llama.cpp']),
      'packages/grpc/scorecard.json': demoScorecard('github.com/grpc/grpc', '2026-05-11T06:00:00Z', SCORES.grpc),
      'packages/protobuf/scorecard.json': demoScorecard('github.com/protocolbuffers/protobuf', '2026-05-11T06:00:00Z', SCORES.protobuf),
      'packages/onnxruntime/scorecard.json': demoScorecard('github.com/microsoft/onnxruntime', '2026-05-11T06:00:00Z', SCORES.onnxruntime),
      'packages/lmdb/scorecard.json': demoScorecard('github.com/LMDB/lmdb', '2026-05-11T06:00:00Z', SCORES.lmdbUnknown, -1),
    },
  },
  /* 27 */ {
    time: '2026-05-20T16:45:00Z',
    message: 'Upgrade rocksdb to 10.7.5 and stop building its tools\n',
    upgrade: { rocksdb: '10.7.5' },
    patch: {
      rocksdb: {
        recipe: {
          system: 'cmake',
          options: [
            '-DWITH_SNAPPY=ON',
            '-DWITH_LZ4=ON',
            '-DWITH_ZSTD=ON',
            '-DWITH_ZLIB=ON',
            '-DWITH_BZ2=ON',
            '-DWITH_TESTS=OFF',
            '-DWITH_TOOLS=OFF',
            '-DWITH_BENCHMARK_TOOLS=OFF',
            '-DFAIL_ON_WARNINGS=OFF',
          ],
        },
      },
    },
  },
  /* 28 */ {
    time: '2026-05-27T10:00:00Z',
    message: 'Refresh star counts\n',
    patch: {
      'llama.cpp': { stars: 93500 },
      'whisper.cpp': { stars: 45800 },
      curl: { stars: 39200 },
      zstd: { stars: 26100 },
      protobuf: { stars: 69300 },
      grpc: { stars: 44100 },
      ggml: { stars: 14600 },
      onnxruntime: { stars: 18300 },
    },
  },
  /* 29 */ {
    time: '2026-06-02T14:15:00Z',
    message: 'Upgrade freetype to 2.14.2 and harfbuzz to 12.3.0\n',
    upgrade: { freetype: '2.14.2', harfbuzz: '12.3.0' },
  },
  /* 30 */ {
    time: '2026-06-15T11:50:00Z',
    message: 'Upgrade grpc to 1.78.0 and re2 to 2025-11-05\n',
    upgrade: { grpc: '1.78.0', re2: '2025-11-05' },
  },
  /* 31 */ {
    time: '2026-06-22T10:30:00Z',
    message: 'Upgrade llama.cpp to b7400\n\nThis build is past the versions listed in PKGCAT-DEMO-2026-0005.\n',
    upgrade: { 'llama.cpp': 'b7400' },
  },
  /* 32 */ {
    time: '2026-07-01T09:00:00Z',
    message: 'Publish PKGCAT-DEMO-2026-0006 for spdlog (illustrative)\n',
    files: { [advisoryPath('PKGCAT-DEMO-2026-0006')]: spdlogAdvisory('published') },
  },
  /* 33 */ {
    time: '2026-07-08T10:00:00Z',
    message: 'Upgrade spdlog to 1.16.1, fixing PKGCAT-DEMO-2026-0006\n',
    upgrade: { spdlog: '1.16.1' },
    files: { [advisoryPath('PKGCAT-DEMO-2026-0006')]: spdlogAdvisory('fixed') },
  },
  /* 34 */ {
    time: '2026-07-20T15:05:00Z',
    message: 'Document how curl is built\n',
    patch: {
      curl: {
        notes:
          '# curl\n\nBuilt against the catalog\'s OpenSSL, with HTTP/2 (nghttp2) and the c-ares resolver.\n\n' +
          '## Options\n\n- TLS: OpenSSL only; other TLS back ends are disabled.\n- Compression: zlib, brotli and zstd content encodings.\n' +
          '- SSH: SFTP and SCP through libssh2.\n\n## Known gaps\n\nHTTP/3 is not enabled: the catalog has no QUIC stack yet.\n',
      },
    },
  },
  /* 35 */ {
    time: '2026-08-03T12:40:00Z',
    message: 'Upgrade onnxruntime to 1.24.0 and eigen to 5.0.0\n',
    upgrade: { onnxruntime: '1.24.0', eigen: '5.0.0' },
  },
  /* 36 */ {
    time: '2026-08-18T09:20:00Z',
    message: 'Upgrade nginx to 1.30.0\n',
    upgrade: { nginx: '1.30.0' },
  },
  /* 37 */ {
    time: '2026-09-01T10:00:00Z',
    message: 'Upgrade SDL to 3.4.0\n',
    upgrade: { SDL: '3.4.0' },
  },
  /* 38 */ {
    time: '2026-09-14T08:00:00Z',
    message: 'Explain the demo conventions in the README\n',
    files: { 'README.md': README_V2 },
  },
  /* 39 */ {
    time: '2026-10-05T13:00:00Z',
    message: 'Upgrade brotli to 1.2.0 and libpng to 1.6.53\n',
    upgrade: { brotli: '1.2.0', libpng: '1.6.53' },
  },
  /* 40 */ {
    time: '2026-10-19T15:30:00Z',
    message: 'Upgrade libarchive to 3.8.2 and xz to 5.8.2\n',
    upgrade: { libarchive: '3.8.2', xz: '5.8.2' },
  },
  /* 41 */ {
    time: '2026-11-09T10:45:00Z',
    message: 'Upgrade curl to 8.18.0\n\nStill short of 8.19.0, so PKGCAT-DEMO-2026-0003 remains active.\n',
    upgrade: { curl: '8.18.0' },
  },
];
