import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Fixture catalogs are real git repositories and builds spawn git: give them room.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
