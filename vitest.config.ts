import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Compiles the site's pages once, before the builds of the test files need them.
    globalSetup: ['tests/global-setup.ts'],
    // Fixture catalogs are real git repositories and builds spawn git: give them room.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
