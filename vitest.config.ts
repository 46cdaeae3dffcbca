import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * Two projects. `unit` needs no Java: pure logic, simulators, docs, types, and
 * the property tests on pure functions (`npm run test:unit`). `integration`
 * gets DynamoDB Local from the global setup. `npm test` runs both.
 * test/unit/test-projects.test.ts checks that every test file is in one.
 */
export const unitDirs = ['test/unit', 'test/types', 'test/property'] as const;
export const integrationDirs = ['test/integration', 'test/chaos'] as const;
/** Property tests that drive the real store: integration, though they live with the other property tests. */
export const propertyTestsOnDynamoDB = [
  'test/property/batch-model.test.ts',
  'test/property/claim-dynamodb.test.ts',
  'test/property/fifo-batch.test.ts',
] as const;

const tests = (dirs: readonly string[]): string[] => dirs.map((d) => `${d}/**/*.test.ts`);

const source = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    // The package by its name, resolved to the source, as tsconfig.json's `paths` does for tsc, tsx and esbuild.
    alias: [
      { find: /^effectively-once$/, replacement: source('./src/index.ts') },
      { find: /^effectively-once\/testing$/, replacement: source('./src/testing/index.ts') },
    ],
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // DynamoDB Local is one JVM on a 2-core machine: keep worker count modest.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'unit', include: tests(unitDirs), exclude: [...propertyTestsOnDynamoDB] } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: [...tests(integrationDirs), ...propertyTestsOnDynamoDB],
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
    ],
  },
});
