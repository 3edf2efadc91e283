/**
 * The packages of the demo catalog: real open-source projects, described in our own words.
 *
 * What is real: names, licenses (SPDX), homepages, source repositories, categories and the
 * dependency relations between them. What is illustrative: star counts (rounded, approximate),
 * versions and upgrade dates after 2025 (the demo history is a story set in 2026, not a record of
 * real releases), and archive checksums. Archive URLs follow each project's real download layout,
 * but `archive.sha256` is NOT the checksum of that file: it is `sha256("<name>@<version>")`
 * (see demoArchiveSha256), so the demo is deterministic and never pretends to pin a real tarball.
 */
import { createHash } from 'node:crypto';

/** How a package's demo `build.sh` configures the project. */
export interface BuildRecipe {
  system: 'cmake' | 'autotools' | 'make';
  /** One option per line of the generated script. */
  options: string[];
}

export interface DemoPackage {
  name: string;
  /** The version the package enters the catalog with. */
  version: string;
  description: string;
  license: string;
  homepage?: string;
  repository?: string;
  categories: string[];
  stars?: number;
  /** Archive URL template; `{version}` is replaced by the version. */
  archive: string;
  build?: string[];
  runtime?: string[];
  /** When set, the package directory gets a `build.sh` generated from it. */
  recipe?: BuildRecipe;
  /** When set, the package directory gets this `notes.md`. */
  notes?: string;
}

/** The deterministic stand-in for an archive checksum: sha256 of `name@version`, 64 lowercase hex. */
export function demoArchiveSha256(name: string, version: string): string {
  return createHash('sha256').update(`${name}@${version}`).digest('hex');
}

export const DEMO_PACKAGES: readonly DemoPackage[] = [
  // ---------------------------------------------------------------- compression
  {
    name: 'zlib',
    version: '1.3.1',
    description:
      'A small, portable library implementing the DEFLATE algorithm with the zlib and gzip wrappers around it. It sits underneath a large share of the software in this catalog, from image formats to network clients, which is why a problem in it travels far.',
    license: 'Zlib',
    homepage: 'https://zlib.net',
    repository: 'https://github.com/madler/zlib',
    categories: ['compression'],
    stars: 6200,
    archive: 'https://zlib.net/fossils/zlib-{version}.tar.gz',
    recipe: { system: 'autotools', options: ['--static', '--64'] },
    notes:
      '# zlib\n\nThe catalog builds zlib with its own configure script, not CMake.\n\nMany packages depend on it at runtime; an upgrade here rebuilds a large part of the catalog.\n',
  },
  {
    name: 'bzip2',
    version: '1.0.8',
    description:
      'The block-sorting compressor built on the Burrows-Wheeler transform, shipped as the libbz2 library and the familiar command-line tools. It compresses more tightly than gzip at the cost of speed and remains common in older archive formats.',
    license: 'bzip2-1.0.6',
    homepage: 'https://sourceware.org/bzip2/',
    repository: 'https://gitlab.com/bzip2/bzip2',
    categories: ['compression'],
    stars: 150,
    archive: 'https://sourceware.org/pub/bzip2/bzip2-{version}.tar.gz',
  },
  {
    name: 'xz',
    version: '5.8.1',
    description:
      'XZ Utils and liblzma, an implementation of LZMA2 compression with a high ratio and reasonable decompression speed. The library is used by package managers, kernels and archivers that need compact downloads.',
    license: '0BSD AND LGPL-2.1-or-later AND GPL-2.0-or-later',
    homepage: 'https://tukaani.org/xz/',
    repository: 'https://github.com/tukaani-project/xz',
    categories: ['compression'],
    stars: 750,
    archive: 'https://github.com/tukaani-project/xz/releases/download/v{version}/xz-{version}.tar.gz',
    recipe: { system: 'autotools', options: ['--disable-doc', '--enable-static'] },
  },
  {
    name: 'zstd',
    version: '1.5.7',
    description:
      'Zstandard, a fast lossless compressor that reaches zlib-like ratios at much higher speed and offers a wide range of levels plus dictionary training for small payloads. It is used in file systems, databases and transport protocols.',
    license: 'BSD-3-Clause OR GPL-2.0-only',
    homepage: 'https://facebook.github.io/zstd/',
    repository: 'https://github.com/facebook/zstd',
    categories: ['compression'],
    stars: 25500,
    archive: 'https://github.com/facebook/zstd/releases/download/v{version}/zstd-{version}.tar.gz',
  },
  {
    name: 'lz4',
    version: '1.10.0',
    description:
      'An extremely fast compression algorithm and library that trades ratio for speed, with decompression running at memory-bandwidth rates. It is popular for caches, logs and real-time data paths.',
    license: 'BSD-2-Clause AND GPL-2.0-or-later',
    homepage: 'https://lz4.org',
    repository: 'https://github.com/lz4/lz4',
    categories: ['compression'],
    stars: 11200,
    archive: 'https://github.com/lz4/lz4/releases/download/v{version}/lz4-{version}.tar.gz',
  },
  {
    name: 'brotli',
    version: '1.1.0',
    description:
      'A general-purpose compressor combining LZ77, Huffman coding and context modelling with a built-in dictionary tuned for web content. Browsers and HTTP servers use it as a content encoding.',
    license: 'MIT',
    repository: 'https://github.com/google/brotli',
    categories: ['compression', 'web'],
    stars: 14200,
    archive: 'https://github.com/google/brotli/archive/refs/tags/v{version}.tar.gz',
    build: ['cmake'],
  },
  {
    name: 'libarchive',
    version: '3.8.1',
    description:
      'A library and the bsdtar/bsdcpio tools for reading and writing many archive and compression formats through one streaming interface: tar, cpio, zip, 7z, ISO images and more.',
    license: 'BSD-2-Clause',
    homepage: 'https://libarchive.org',
    repository: 'https://github.com/libarchive/libarchive',
    categories: ['compression', 'archive'],
    stars: 3300,
    archive: 'https://github.com/libarchive/libarchive/releases/download/v{version}/libarchive-{version}.tar.xz',
    build: ['cmake'],
    runtime: ['zlib', 'bzip2', 'xz', 'zstd', 'lz4', 'openssl', 'libxml2'],
  },

  // ---------------------------------------------------------------- crypto and TLS
  {
    name: 'openssl',
    version: '3.6.0',
    description:
      'A toolkit for TLS and general-purpose cryptography: the libssl and libcrypto libraries and the openssl command. Most network software in this catalog links it, so its advisories reach far.',
    license: 'Apache-2.0',
    homepage: 'https://www.openssl.org',
    repository: 'https://github.com/openssl/openssl',
    categories: ['crypto', 'tls', 'networking'],
    stars: 28500,
    archive: 'https://github.com/openssl/openssl/releases/download/openssl-{version}/openssl-{version}.tar.gz',
    recipe: { system: 'make', options: ['no-tests', 'shared', 'enable-ktls'] },
  },
  {
    name: 'libsodium',
    version: '1.0.20',
    description:
      'A portable, easy-to-use crypto library with safe defaults: authenticated encryption, signatures, key exchange and password hashing behind a small API that is hard to misuse.',
    license: 'ISC',
    homepage: 'https://doc.libsodium.org',
    repository: 'https://github.com/jedisct1/libsodium',
    categories: ['crypto'],
    stars: 13100,
    archive: 'https://download.libsodium.org/libsodium/releases/libsodium-{version}.tar.gz',
  },

  // ---------------------------------------------------------------- networking
  {
    name: 'curl',
    version: '8.16.0',
    description:
      'The curl tool and libcurl, a client-side library for transferring data with URLs over HTTP(S), FTP, SFTP and many other protocols. It is embedded in countless applications and devices.',
    license: 'curl',
    homepage: 'https://curl.se',
    repository: 'https://github.com/curl/curl',
    categories: ['networking', 'http'],
    stars: 38500,
    archive: 'https://curl.se/download/curl-{version}.tar.xz',
    build: ['cmake'],
    runtime: ['openssl', 'zlib', 'nghttp2', 'brotli', 'zstd', 'libssh2', 'c-ares'],
    recipe: {
      system: 'cmake',
      options: ['-DCURL_USE_OPENSSL=ON', '-DUSE_NGHTTP2=ON', '-DCURL_BROTLI=ON', '-DCURL_ZSTD=ON', '-DENABLE_ARES=ON'],
    },
    notes: '# curl\n\nBuilt against the catalog\'s OpenSSL, with HTTP/2 (nghttp2) and the c-ares resolver.\n',
  },
  {
    name: 'nghttp2',
    version: '1.67.1',
    description:
      'An implementation of HTTP/2 in C: a framing and HPACK library used by clients and servers, plus sample client, server and proxy programs.',
    license: 'MIT',
    homepage: 'https://nghttp2.org',
    repository: 'https://github.com/nghttp2/nghttp2',
    categories: ['networking', 'http'],
    stars: 4800,
    archive: 'https://github.com/nghttp2/nghttp2/releases/download/v{version}/nghttp2-{version}.tar.xz',
    build: ['cmake'],
  },
  {
    name: 'c-ares',
    version: '1.34.5',
    description:
      'An asynchronous DNS resolver library that lets programs issue many lookups at once without blocking, used by HTTP clients and RPC frameworks.',
    license: 'MIT',
    homepage: 'https://c-ares.org',
    repository: 'https://github.com/c-ares/c-ares',
    categories: ['networking', 'dns'],
    stars: 2000,
    archive: 'https://github.com/c-ares/c-ares/releases/download/v{version}/c-ares-{version}.tar.gz',
    build: ['cmake'],
  },
  {
    name: 'libuv',
    version: '1.51.0',
    description:
      'A cross-platform event loop with asynchronous I/O: TCP and UDP sockets, file system operations, timers, child processes and a thread pool. Originally written for Node.js.',
    license: 'MIT',
    homepage: 'https://libuv.org',
    repository: 'https://github.com/libuv/libuv',
    categories: ['networking', 'async'],
    stars: 25800,
    archive: 'https://dist.libuv.org/dist/v{version}/libuv-v{version}.tar.gz',
    build: ['cmake'],
  },
  {
    name: 'libssh2',
    version: '1.11.1',
    description:
      'A client-side implementation of the SSH2 protocol as a C library, providing sessions, SFTP and SCP transfers, and channel forwarding.',
    license: 'BSD-3-Clause',
    homepage: 'https://libssh2.org',
    repository: 'https://github.com/libssh2/libssh2',
    categories: ['networking', 'ssh'],
    stars: 1400,
    archive: 'https://libssh2.org/download/libssh2-{version}.tar.gz',
    build: ['cmake'],
    runtime: ['openssl', 'zlib'],
  },
  {
    name: 'grpc',
    version: '1.76.0',
    description:
      'A high-performance RPC framework that runs over HTTP/2 and uses Protocol Buffers for service definitions, with generated clients and servers in many languages around a C++ core.',
    license: 'Apache-2.0',
    homepage: 'https://grpc.io',
    repository: 'https://github.com/grpc/grpc',
    categories: ['networking', 'rpc'],
    stars: 43500,
    archive: 'https://github.com/grpc/grpc/archive/refs/tags/v{version}.tar.gz',
    build: ['cmake'],
    runtime: ['protobuf', 'abseil-cpp', 'c-ares', 'openssl', 're2', 'zlib'],
    recipe: {
      system: 'cmake',
      options: [
        '-DgRPC_PROTOBUF_PROVIDER=package',
        '-DgRPC_ABSL_PROVIDER=package',
        '-DgRPC_CARES_PROVIDER=package',
        '-DgRPC_SSL_PROVIDER=package',
        '-DgRPC_RE2_PROVIDER=package',
        '-DgRPC_ZLIB_PROVIDER=package',
      ],
    },
  },
  {
    name: 'nginx',
    version: '1.28.0',
    description:
      'A web server, reverse proxy and load balancer built around an event-driven architecture that serves many concurrent connections with little memory.',
    license: 'BSD-2-Clause',
    homepage: 'https://nginx.org',
    repository: 'https://github.com/nginx/nginx',
    categories: ['networking', 'web-server', 'http'],
    stars: 27000,
    archive: 'https://nginx.org/download/nginx-{version}.tar.gz',
    runtime: ['pcre2', 'openssl', 'zlib'],
    recipe: {
      system: 'autotools',
      options: ['--with-http_ssl_module', '--with-http_v2_module', '--with-pcre-jit', '--with-threads'],
    },
  },

  // ---------------------------------------------------------------- parsing and serialization
  {
    name: 'expat',
    version: '2.7.3',
    description:
      'A stream-oriented XML parser in C: the application registers callbacks and the parser reports elements and text as it reads, without building a tree in memory.',
    license: 'MIT',
    homepage: 'https://libexpat.github.io',
    repository: 'https://github.com/libexpat/libexpat',
    categories: ['parsing', 'xml'],
    stars: 1200,
    archive: 'https://github.com/libexpat/libexpat/releases/download/R_2_7_3/expat-{version}.tar.xz',
    build: ['cmake'],
  },
  {
    name: 'libxml2',
    version: '2.15.0',
    description:
      'The XML toolkit from the GNOME project: a parser with DOM and streaming interfaces, XPath, XInclude, schema validation and an HTML parser.',
    license: 'MIT',
    homepage: 'https://gitlab.gnome.org/GNOME/libxml2',
    repository: 'https://gitlab.gnome.org/GNOME/libxml2',
    categories: ['parsing', 'xml'],
    stars: 650,
    archive: 'https://download.gnome.org/sources/libxml2/2.15/libxml2-{version}.tar.xz',
    build: ['cmake'],
    runtime: ['zlib', 'xz'],
    recipe: { system: 'cmake', options: ['-DLIBXML2_WITH_PYTHON=OFF', '-DLIBXML2_WITH_LZMA=ON', '-DLIBXML2_WITH_ZLIB=ON'] },
  },
  {
    name: 'pcre2',
    version: '10.46',
    description:
      'Perl-compatible regular expressions, second generation: a backtracking regex engine with a JIT compiler, used by web servers, editors and scripting languages.',
    license: 'BSD-3-Clause WITH PCRE2-exception',
    homepage: 'https://pcre2project.github.io/pcre2/',
    repository: 'https://github.com/PCRE2Project/pcre2',
    categories: ['parsing', 'regex'],
    stars: 1000,
    archive: 'https://github.com/PCRE2Project/pcre2/releases/download/pcre2-{version}/pcre2-{version}.tar.bz2',
    build: ['cmake'],
  },
  {
    name: 're2',
    version: '2025-08-12',
    description:
      'A regular expression library that guarantees matching time linear in the input by refusing backtracking-only features, which makes it safe for untrusted patterns.',
    license: 'BSD-3-Clause',
    repository: 'https://github.com/google/re2',
    categories: ['parsing', 'regex'],
    stars: 9300,
    archive: 'https://github.com/google/re2/releases/download/{version}/re2-{version}.tar.gz',
    build: ['cmake'],
    runtime: ['abseil-cpp'],
  },
  {
    name: 'abseil-cpp',
    version: '20250814.1',
    description:
      'A collection of C++ building blocks extracted from a large internal code base: containers, string utilities, synchronization, time and status types that augment the standard library.',
    license: 'Apache-2.0',
    homepage: 'https://abseil.io',
    repository: 'https://github.com/abseil/abseil-cpp',
    categories: ['cpp', 'utilities'],
    stars: 16500,
    archive: 'https://github.com/abseil/abseil-cpp/releases/download/{version}/abseil-cpp-{version}.tar.gz',
    build: ['cmake'],
  },
  {
    name: 'protobuf',
    version: '32.1',
    description:
      'Protocol Buffers, a language-neutral format and code generator for structured data: messages are declared in .proto files and compiled into compact binary serializers for many languages.',
    license: 'BSD-3-Clause',
    homepage: 'https://protobuf.dev',
    repository: 'https://github.com/protocolbuffers/protobuf',
    categories: ['serialization', 'parsing'],
    stars: 68500,
    archive: 'https://github.com/protocolbuffers/protobuf/releases/download/v{version}/protobuf-{version}.tar.gz',
    build: ['cmake'],
    runtime: ['abseil-cpp', 'zlib'],
    recipe: { system: 'cmake', options: ['-Dprotobuf_BUILD_TESTS=OFF', '-Dprotobuf_ABSL_PROVIDER=package'] },
  },
  {
    name: 'flatbuffers',
    version: '25.2.10',
    description:
      'A serialization library that lets programs read structured data directly from the buffer without unpacking it first, designed for games and other latency-sensitive code.',
    license: 'Apache-2.0',
    homepage: 'https://flatbuffers.dev',
    repository: 'https://github.com/google/flatbuffers',
    categories: ['serialization'],
    stars: 24800,
    archive: 'https://github.com/google/flatbuffers/archive/refs/tags/v{version}.tar.gz',
    build: ['cmake'],
  },
  {
    name: 'simdjson',
    version: '4.0.7',
    description:
      'A JSON parser that uses SIMD instructions to validate and parse documents at gigabytes per second, with an on-demand API that only materialises the values a program touches.',
    license: 'Apache-2.0 OR MIT',
    homepage: 'https://simdjson.org',
    repository: 'https://github.com/simdjson/simdjson',
    categories: ['parsing', 'json'],
    stars: 21000,
    archive: 'https://github.com/simdjson/simdjson/archive/refs/tags/v{version}.tar.gz',
    build: ['cmake'],
  },
  {
    name: 'yaml-cpp',
    version: '0.8.0',
    description:
      'A YAML 1.2 parser and emitter for C++ with a node-based API for reading configuration files and writing them back.',
    license: 'MIT',
    repository: 'https://github.com/jbeder/yaml-cpp',
    categories: ['parsing', 'yaml'],
    stars: 5500,
    archive: 'https://github.com/jbeder/yaml-cpp/archive/refs/tags/{version}.tar.gz',
    build: ['cmake'],
  },
  {
    name: 'fmt',
    version: '11.2.0',
    description:
      'A formatting library for C++ offering a fast, type-safe alternative to printf and iostreams; its design became the basis of std::format.',
    license: 'MIT',
    homepage: 'https://fmt.dev',
    repository: 'https://github.com/fmtlib/fmt',
    categories: ['formatting', 'cpp'],
    stars: 22500,
    archive: 'https://github.com/fmtlib/fmt/releases/download/{version}/fmt-{version}.zip',
    build: ['cmake'],
  },
  {
    name: 'spdlog',
    version: '1.15.3',
    description:
      'A fast C++ logging library with sinks for consoles, rotating files and syslog, asynchronous logging and formatting provided by fmt.',
    license: 'MIT',
    repository: 'https://github.com/gabime/spdlog',
    categories: ['logging', 'cpp'],
    stars: 26500,
    archive: 'https://github.com/gabime/spdlog/archive/refs/tags/v{version}.tar.gz',
    build: ['cmake'],
    runtime: ['fmt'],
    recipe: { system: 'cmake', options: ['-DSPDLOG_FMT_EXTERNAL=ON', '-DSPDLOG_BUILD_SHARED=ON'] },
  },

  // ---------------------------------------------------------------- databases and storage
  {
    name: 'sqlite',
    version: '3.50.4',
    description:
      'A self-contained SQL database engine in a single library: no server, one file per database, transactional, and embedded in phones, browsers and desktop applications alike.',
    license: 'blessing',
    homepage: 'https://sqlite.org',
    repository: 'https://github.com/sqlite/sqlite',
    categories: ['database', 'sql'],
    stars: 8200,
    archive: 'https://github.com/sqlite/sqlite/archive/refs/tags/version-{version}.tar.gz',
    recipe: { system: 'autotools', options: ['--enable-fts5', '--enable-rtree', '--enable-session'] },
  },
  {
    name: 'lmdb',
    version: '0.9.33',
    description:
      'The Lightning Memory-Mapped Database: an embedded key-value store built on a copy-on-write B+tree in a memory-mapped file, with fully serialized writers and lock-free readers.',
    license: 'OLDAP-2.8',
    homepage: 'https://www.symas.com/mdb',
    repository: 'https://github.com/LMDB/lmdb',
    categories: ['database', 'key-value'],
    stars: 2900,
    archive: 'https://github.com/LMDB/lmdb/archive/refs/tags/LMDB_{version}.tar.gz',
  },
  {
    name: 'leveldb',
    version: '1.23',
    description:
      'An embedded key-value store based on a log-structured merge tree, keeping keys sorted and supporting snapshots and batched writes.',
    license: 'BSD-3-Clause',
    repository: 'https://github.com/google/leveldb',
    categories: ['database', 'key-value'],
    stars: 38000,
    archive: 'https://github.com/google/leveldb/archive/refs/tags/{version}.tar.gz',
    build: ['cmake'],
    runtime: ['snappy'],
  },
  {
    name: 'rocksdb',
    version: '10.5.1',
    description:
      'An embeddable persistent key-value store tuned for fast storage, descended from LevelDB and extended with column families, transactions, compaction styles and many compression back ends.',
    license: 'GPL-2.0-only OR Apache-2.0',
    homepage: 'https://rocksdb.org',
    repository: 'https://github.com/facebook/rocksdb',
    categories: ['database', 'key-value', 'storage'],
    stars: 30500,
    archive: 'https://github.com/facebook/rocksdb/archive/refs/tags/v{version}.tar.gz',
    build: ['cmake'],
    runtime: ['snappy', 'lz4', 'zstd', 'zlib', 'bzip2'],
    recipe: {
      system: 'cmake',
      options: ['-DWITH_SNAPPY=ON', '-DWITH_LZ4=ON', '-DWITH_ZSTD=ON', '-DWITH_ZLIB=ON', '-DWITH_BZ2=ON', '-DWITH_TESTS=OFF'],
    },
  },
  {
    name: 'snappy',
    version: '1.2.2',
    description:
      'A compression library aiming for very high speed with reasonable ratios rather than maximum compression, widely used inside databases and RPC systems.',
    license: 'BSD-3-Clause',
    repository: 'https://github.com/google/snappy',
    categories: ['compression', 'database'],
    stars: 6500,
    archive: 'https://github.com/google/snappy/archive/refs/tags/{version}.tar.gz',
    build: ['cmake'],
  },

  // ---------------------------------------------------------------- graphics, images and fonts
  {
    name: 'libpng',
    version: '1.6.50',
    description:
      'The reference library for reading and writing PNG images, handling chunk parsing, interlacing, color conversion and the zlib-compressed image data.',
    license: 'libpng-2.0',
    homepage: 'http://www.libpng.org/pub/png/libpng.html',
    repository: 'https://github.com/pnggroup/libpng',
    categories: ['graphics', 'image'],
    stars: 1500,
    archive: 'https://download.sourceforge.net/libpng/libpng-{version}.tar.xz',
    build: ['cmake'],
    runtime: ['zlib'],
    recipe: { system: 'cmake', options: ['-DPNG_TESTS=OFF', '-DPNG_SHARED=ON'] },
  },
  {
    name: 'libjpeg-turbo',
    version: '3.1.2',
    description:
      'A JPEG codec that accelerates baseline compression and decompression with SIMD instructions while staying compatible with the classic libjpeg API.',
    license: 'IJG AND BSD-3-Clause AND Zlib',
    homepage: 'https://libjpeg-turbo.org',
    repository: 'https://github.com/libjpeg-turbo/libjpeg-turbo',
    categories: ['graphics', 'image'],
    stars: 4100,
    archive: 'https://github.com/libjpeg-turbo/libjpeg-turbo/releases/download/{version}/libjpeg-turbo-{version}.tar.gz',
    build: ['cmake'],
  },
  {
    name: 'libwebp',
    version: '1.6.0',
    description:
      'The codec library for the WebP image format, with lossy and lossless modes, alpha and animation, plus command-line converters that read PNG and JPEG input.',
    license: 'BSD-3-Clause',
    homepage: 'https://developers.google.com/speed/webp',
    repository: 'https://github.com/webmproject/libwebp',
    categories: ['graphics', 'image'],
    stars: 2300,
    archive: 'https://storage.googleapis.com/downloads.webmproject.org/releases/webp/libwebp-{version}.tar.gz',
    build: ['cmake'],
    runtime: ['libpng', 'libjpeg-turbo'],
  },
  {
    name: 'freetype',
    version: '2.14.1',
    description:
      'A font rasterizer that loads TrueType, OpenType and other outline and bitmap formats and renders glyphs with hinting and anti-aliasing.',
    license: 'FTL OR GPL-2.0-or-later',
    homepage: 'https://freetype.org',
    repository: 'https://gitlab.freedesktop.org/freetype/freetype',
    categories: ['graphics', 'fonts'],
    stars: 500,
    archive: 'https://download.savannah.gnu.org/releases/freetype/freetype-{version}.tar.xz',
    build: ['cmake'],
    // harfbuzz <-> freetype is a real dependency cycle (each can use the other).
    runtime: ['zlib', 'bzip2', 'libpng', 'brotli', 'harfbuzz'],
  },
  {
    name: 'harfbuzz',
    version: '12.1.0',
    description:
      'A text shaping engine: given Unicode text and a font, it picks and positions the glyphs, handling ligatures, complex scripts and OpenType features.',
    license: 'MIT-Modern-Variant',
    homepage: 'https://harfbuzz.github.io',
    repository: 'https://github.com/harfbuzz/harfbuzz',
    categories: ['graphics', 'fonts', 'text'],
    stars: 4900,
    archive: 'https://github.com/harfbuzz/harfbuzz/releases/download/{version}/harfbuzz-{version}.tar.xz',
    build: ['cmake'],
    runtime: ['freetype'],
  },
  {
    name: 'fontconfig',
    version: '2.17.1',
    description:
      'A library for discovering, configuring and matching the fonts installed on a system, so applications can ask for a family and style and get a usable file.',
    license: 'HPND-sell-variant',
    homepage: 'https://www.freedesktop.org/wiki/Software/fontconfig/',
    repository: 'https://gitlab.freedesktop.org/fontconfig/fontconfig',
    categories: ['graphics', 'fonts'],
    stars: 100,
    archive: 'https://gitlab.freedesktop.org/api/v4/projects/890/packages/generic/fontconfig/{version}/fontconfig-{version}.tar.xz',
    runtime: ['freetype', 'expat'],
  },
  {
    name: 'pixman',
    version: '0.46.4',
    description:
      'A low-level pixel manipulation library providing compositing, rasterization of trapezoids and image transformations with SIMD fast paths.',
    license: 'MIT',
    homepage: 'https://pixman.org',
    repository: 'https://gitlab.freedesktop.org/pixman/pixman',
    categories: ['graphics'],
    stars: 50,
    archive: 'https://www.cairographics.org/releases/pixman-{version}.tar.gz',
  },
  {
    name: 'cairo',
    version: '1.18.4',
    description:
      'A 2D vector graphics library with a device-independent drawing model that renders to images, PDF, SVG and on-screen surfaces.',
    license: 'LGPL-2.1-only OR MPL-1.1',
    homepage: 'https://www.cairographics.org',
    repository: 'https://gitlab.freedesktop.org/cairo/cairo',
    categories: ['graphics', 'vector'],
    stars: 120,
    archive: 'https://www.cairographics.org/releases/cairo-{version}.tar.xz',
    runtime: ['pixman', 'freetype', 'fontconfig', 'libpng', 'zlib'],
  },
  {
    name: 'SDL',
    version: '3.2.24',
    description:
      'Simple DirectMedia Layer: a cross-platform layer over windows, input devices, audio, and GPU access, used by games, emulators and media players.',
    license: 'Zlib',
    homepage: 'https://libsdl.org',
    repository: 'https://github.com/libsdl-org/SDL',
    categories: ['graphics', 'multimedia', 'games'],
    stars: 13500,
    archive: 'https://github.com/libsdl-org/SDL/releases/download/release-{version}/SDL3-{version}.tar.gz',
    build: ['cmake'],
  },

  // ---------------------------------------------------------------- machine learning and numerics
  {
    name: 'ggml',
    version: '0.9.4',
    description:
      'A tensor library for machine-learning inference in plain C and C++, with quantized data types and back ends for CPUs and several GPU APIs; the engine under llama.cpp and whisper.cpp.',
    license: 'MIT',
    repository: 'https://github.com/ggml-org/ggml',
    categories: ['ml', 'tensor'],
    stars: 13500,
    archive: 'https://github.com/ggml-org/ggml/archive/refs/tags/v{version}.tar.gz',
    build: ['cmake'],
    runtime: ['openblas'],
    recipe: { system: 'cmake', options: ['-DGGML_BLAS=ON', '-DGGML_BLAS_VENDOR=OpenBLAS', '-DGGML_NATIVE=OFF'] },
  },
  {
    name: 'llama.cpp',
    version: 'b6800',
    description:
      'Inference of large language models in C/C++ on ordinary hardware, using quantized GGUF model files; it includes a command-line runner and an HTTP server with an OpenAI-style API.',
    license: 'MIT',
    repository: 'https://github.com/ggml-org/llama.cpp',
    categories: ['ml', 'llm'],
    stars: 88000,
    archive: 'https://github.com/ggml-org/llama.cpp/archive/refs/tags/{version}.tar.gz',
    build: ['cmake'],
    runtime: ['ggml', 'curl'],
    recipe: { system: 'cmake', options: ['-DLLAMA_CURL=ON', '-DLLAMA_USE_SYSTEM_GGML=ON', '-DLLAMA_BUILD_TESTS=OFF'] },
    notes: '# llama.cpp\n\nUpstream tags every build (`bNNNN`); the catalog follows them every few weeks.\n\nThe catalog links the shared ggml package instead of the vendored copy.\n',
  },
  {
    name: 'whisper.cpp',
    version: '1.8.2',
    description:
      'A C/C++ port of the Whisper speech-recognition model built on ggml, able to transcribe audio offline on laptops and phones, with an optional live-microphone example.',
    license: 'MIT',
    repository: 'https://github.com/ggml-org/whisper.cpp',
    categories: ['ml', 'speech'],
    stars: 44000,
    archive: 'https://github.com/ggml-org/whisper.cpp/archive/refs/tags/v{version}.tar.gz',
    build: ['cmake'],
    // Spelled in lowercase on purpose: names are case-insensitive, and this resolves to `SDL`.
    runtime: ['ggml', 'sdl'],
  },
  {
    name: 'openblas',
    version: '0.3.30',
    description:
      'An optimized implementation of the BLAS and LAPACK linear-algebra interfaces with hand-tuned kernels for many processor families.',
    license: 'BSD-3-Clause',
    homepage: 'https://www.openblas.net',
    repository: 'https://github.com/OpenMathLib/OpenBLAS',
    categories: ['math', 'ml'],
    stars: 7000,
    archive: 'https://github.com/OpenMathLib/OpenBLAS/releases/download/v{version}/OpenBLAS-{version}.tar.gz',
    build: ['cmake'],
  },
  {
    name: 'eigen',
    version: '3.4.0',
    description:
      'A header-only C++ template library for linear algebra: dense and sparse matrices, vectors, decompositions and solvers, with expression templates that avoid temporaries.',
    license: 'MPL-2.0',
    homepage: 'https://eigen.tuxfamily.org',
    repository: 'https://gitlab.com/libeigen/eigen',
    categories: ['math', 'cpp'],
    stars: 1500,
    archive: 'https://gitlab.com/libeigen/eigen/-/archive/{version}/eigen-{version}.tar.gz',
    build: ['cmake'],
  },
  {
    name: 'onnxruntime',
    version: '1.23.0',
    description:
      'A cross-platform engine for running models in the ONNX format, with graph optimizations and pluggable execution providers for CPUs, GPUs and accelerators.',
    license: 'MIT',
    homepage: 'https://onnxruntime.ai',
    repository: 'https://github.com/microsoft/onnxruntime',
    categories: ['ml', 'inference'],
    stars: 17500,
    archive: 'https://github.com/microsoft/onnxruntime/archive/refs/tags/v{version}.tar.gz',
    build: ['cmake'],
    runtime: ['protobuf', 'abseil-cpp', 're2', 'flatbuffers', 'eigen'],
  },

  // ---------------------------------------------------------------- build tools (they build each other)
  {
    name: 'cmake',
    version: '4.1.2',
    description:
      'A cross-platform build system generator: projects describe themselves in CMakeLists.txt files and CMake produces Makefiles, Ninja files or IDE projects from them.',
    license: 'BSD-3-Clause',
    homepage: 'https://cmake.org',
    repository: 'https://gitlab.kitware.com/cmake/cmake',
    categories: ['build-tools'],
    stars: 7500,
    archive: 'https://github.com/Kitware/CMake/releases/download/v{version}/cmake-{version}.tar.gz',
    build: ['ninja'],
    runtime: ['curl', 'zlib', 'expat', 'libarchive', 'libuv', 'zstd', 'xz', 'bzip2', 'nghttp2'],
    recipe: { system: 'autotools', options: ['--system-libs', '--parallel=8', '--generator=Ninja'] },
  },
  {
    name: 'ninja',
    version: '1.13.1',
    description:
      'A small build executor focused on speed: it reads build graphs generated by tools such as CMake and Meson and runs the minimum work needed, in parallel.',
    license: 'Apache-2.0',
    homepage: 'https://ninja-build.org',
    repository: 'https://github.com/ninja-build/ninja',
    categories: ['build-tools'],
    stars: 12400,
    archive: 'https://github.com/ninja-build/ninja/archive/refs/tags/v{version}.tar.gz',
    build: ['cmake'],
  },

  // ---------------------------------------------------------------- C++ libraries with dotted names
  {
    name: 'boost.asio',
    version: '1.89.0',
    description:
      'The Boost library for asynchronous network and low-level I/O in C++, built around completion handlers, strands and coroutines, with optional TLS streams.',
    license: 'BSL-1.0',
    homepage: 'https://www.boost.org/library/latest/asio/',
    repository: 'https://github.com/boostorg/asio',
    categories: ['networking', 'async', 'cpp'],
    stars: 1500,
    archive: 'https://github.com/boostorg/asio/archive/refs/tags/boost-{version}.tar.gz',
    runtime: ['openssl'],
  },
  {
    name: 'boost.beast',
    version: '1.90.0',
    description:
      'HTTP and WebSocket protocol implementations on top of Boost.Asio, offering low-level message and stream types for building clients and servers.',
    license: 'BSL-1.0',
    homepage: 'https://www.boost.org/library/latest/beast/',
    repository: 'https://github.com/boostorg/beast',
    categories: ['networking', 'http', 'cpp'],
    stars: 4600,
    archive: 'https://github.com/boostorg/beast/archive/refs/tags/boost-{version}.tar.gz',
    runtime: ['boost.asio', 'openssl'],
  },

  // ---------------------------------------------------------------- tools added during the year
  {
    name: 'libgit2',
    version: '1.9.1',
    description:
      'A portable, linkable implementation of git\'s core operations, letting programs read and write repositories without running the git command.',
    license: 'GPL-2.0-only WITH GCC-exception-2.0',
    homepage: 'https://libgit2.org',
    repository: 'https://github.com/libgit2/libgit2',
    categories: ['vcs'],
    stars: 10000,
    archive: 'https://github.com/libgit2/libgit2/archive/refs/tags/v{version}.tar.gz',
    build: ['cmake'],
    runtime: ['openssl', 'zlib', 'libssh2', 'pcre2'],
    recipe: { system: 'cmake', options: ['-DUSE_SSH=libssh2', '-DUSE_HTTPS=OpenSSL', '-DREGEX_BACKEND=pcre2'] },
  },
  {
    name: 'jq',
    version: '1.8.1',
    description:
      'A command-line processor for JSON: a small functional language for slicing, filtering, mapping and reshaping structured data in shell pipelines.',
    license: 'MIT',
    homepage: 'https://jqlang.org',
    repository: 'https://github.com/jqlang/jq',
    categories: ['cli', 'json', 'parsing'],
    stars: 32500,
    archive: 'https://github.com/jqlang/jq/releases/download/jq-{version}/jq-{version}.tar.gz',
    runtime: ['oniguruma'],
  },
  {
    name: 'oniguruma',
    version: '6.9.10',
    description:
      'A regular expression library supporting many character encodings and syntaxes, used by text editors and by jq for its regex functions.',
    license: 'BSD-2-Clause',
    repository: 'https://github.com/kkos/oniguruma',
    categories: ['parsing', 'regex'],
    stars: 2500,
    archive: 'https://github.com/kkos/oniguruma/releases/download/v{version}/onig-{version}.tar.gz',
    build: ['cmake'],
  },
];

export function demoPackage(name: string): DemoPackage {
  const found = DEMO_PACKAGES.find((pkg) => pkg.name === name);
  if (!found) throw new Error(`no demo package named ${name}`);
  return found;
}
