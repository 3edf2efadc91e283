/**
 * The build's fixture story: a platform team curates a small catalog. Each commit exercises a
 * rule of CATALOG-FORMAT.md or DECISIONS.md; tests/build/*.test.ts check what the build made of it.
 */
import type { CatalogCommit } from '../../demo/catalog-writer.ts';
import { advisory, hoursLater, manifest } from '../helpers/catalog.ts';

export const STORY: CatalogCommit[] = [
  {
    message: 'Import zlib, openssl, curl, cmake and llama.cpp',
    time: hoursLater(0),
    files: {
      'packages/zlib/manifest.json': manifest('zlib', { version: '1.2.13', license: 'Zlib', categories: ['compression'] }),
      'packages/openssl/manifest.json': manifest('openssl', { version: '3.0.0', license: 'Apache-2.0', dependencies: { runtime: ['zlib'] } }),
      'packages/curl/manifest.json': manifest('curl', {
        version: '8.0.0', license: 'curl', categories: ['networking'], stars: 30000,
        dependencies: { runtime: ['openssl', 'zlib'], build: ['cmake'] },
      }),
      'packages/curl/build.sh': '#!/bin/sh\ncmake -B build\ncmake --build build\n',
      'packages/cmake/manifest.json': manifest('cmake', { version: '3.28.0', license: 'BSD-3-Clause', dependencies: { build: ['cmake'] } }),
      'packages/llama.cpp/manifest.json': manifest('llama.cpp', { version: 'b100', categories: ['ml'], dependencies: { build: ['cmake'] } }),
      'README.md': 'Not part of the catalog: ignored.\n',
    },
  },
  {
    message: 'Advisory ADV-1: zlib inflate overflow',
    time: hoursLater(1),
    files: { 'advisories/ADV-1.json': advisory('ADV-1', { package: 'zlib', fixed: '1.3.0', severity: 'HIGH' }) },
  },
  {
    message: 'Add jq (its oniguruma dependency is not in the catalog yet)',
    time: hoursLater(2),
    files: { 'packages/jq/manifest.json': manifest('jq', { version: '1.7.1', dependencies: { runtime: ['oniguruma'] } }) },
  },
  {
    message: 'Upgrade sqlite (broken manifest)',
    time: hoursLater(3),
    files: { 'packages/sqlite/manifest.json': '{"name": "sqlite", "version": \n' },
  },
  {
    message: 'Upgrade zlib to 1.3.0, fixing ADV-1',
    time: hoursLater(4),
    files: {
      'packages/zlib/manifest.json': manifest('zlib', { version: '1.3.0', license: 'Zlib', categories: ['compression'] }),
      'packages/zlib/notes.md': '# zlib\nUpgraded for ADV-1.\n',
    },
  },
  {
    message: 'Add a package whose name is a fixed route',
    time: hoursLater(5),
    files: { 'packages/openapi/manifest.json': manifest('openapi', { version: '0.1.0' }) },
  },
  {
    message: 'Remove llama.cpp',
    time: hoursLater(6),
    files: { 'packages/llama.cpp/manifest.json': null },
  },
  {
    message: 'Add oniguruma; fix sqlite',
    time: hoursLater(7),
    files: {
      'packages/oniguruma/manifest.json': manifest('oniguruma', { version: '6.9.9', license: 'BSD-2-Clause' }),
      'packages/sqlite/manifest.json': manifest('sqlite', { version: '3.51.0', license: 'blessing' }),
    },
  },
];
