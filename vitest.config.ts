import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // DynamoDB Local is one JVM on a 2-core machine: keep worker count modest.
    maxWorkers: 2,
  },
});
