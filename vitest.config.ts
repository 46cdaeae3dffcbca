import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Three projects. `unit` needs no Java and no Redis: pure logic, simulators,
 * types, and the property tests on pure functions (`npm run test:unit`, in
 * seconds). `checks` type-checks the project (tsc), compiles every documented
 * example, and checks the API report and the documentation's links (no servers
 * either, but a whole TypeScript program each: tens of seconds).
 * `integration` gets DynamoDB Local and redis-server from the global setup.
 * `npm test` runs all three.
 * test/unit/test-projects.test.ts checks that every test file is in one.
 */
export const unitDirs = ['test/unit', 'test/types', 'test/property'] as const;
export const checkDirs = ['test/checks'] as const;
export const integrationDirs = ['test/integration', 'test/chaos'] as const;
/** Property tests that drive the real store: integration, though they live with the other property tests. */
export const propertyTestsOnDynamoDB = [
  'test/property/batch-model.test.ts',
  'test/property/claim-dynamodb.test.ts',
  'test/property/fifo-batch.test.ts',
] as const;

/**
 * The files that take far longer than the rest (the chaos run is a minute on its own; the two checks run a
 * whole TypeScript program each). On a clean clone vitest
 * has no timings yet and starts larger files first, which put the chaos run in the last third and left one
 * worker running it alone at the end; started first, it overlaps with everything else.
 */
export const slowFiles = [
  'test/integration/chaos-run.test.ts',
  'test/checks/typecheck.test.ts',
  'test/checks/docs-examples.test.ts',
  // Packs the package (shared with the kit tests below), then compiles the CHANGELOG's after snippets against it.
  'test/checks/changelog-snippets.test.ts',
  'test/integration/local-run.test.ts',
  // Builds and packs the package, then runs tsc and vitest in a fresh project: about 40 s on its own.
  'test/integration/testing/docs-local-kit.test.ts',
  // The same, for the tables of a serverless.yml: tsc and vitest in a fresh project, on a DynamoDB Local of its own.
  'test/integration/testing/docs-template-kit.test.ts',
  'test/integration/red-team/claim-put-batches-red.test.ts',
  'test/chaos/sqs-group-commit-chaos.test.ts',
  'test/integration/lease/heartbeat-sqs.test.ts',
] as const;

class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification): number => {
      const at = slowFiles.findIndex((file) => spec.moduleId.endsWith(file));
      return at === -1 ? slowFiles.length : at;
    };
    // The slow files first, whatever their project (sort is stable: the rest keep vitest's order).
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

const tests = (dirs: readonly string[]): string[] => dirs.map((d) => `${d}/**/*.test.ts`);

const source = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    // The package by its name, resolved to the source, as tsconfig.json's `paths` does for tsc, tsx and esbuild.
    alias: [
      { find: /^effectively-once$/, replacement: source('./src/index.ts') },
      { find: /^effectively-once\/testing$/, replacement: source('./src/testing/index.ts') },
      { find: /^effectively-once\/tracing$/, replacement: source('./src/tracing/index.ts') },
      { find: /^effectively-once\/powertools$/, replacement: source('./src/powertools/index.ts') },
    ],
  },
  test: {
    testTimeout: 30_000,
    sequence: { sequencer: SlowFirstSequencer },
    hookTimeout: 60_000,
    // DynamoDB Local is one JVM on a 2-core machine: keep worker count modest.
    maxWorkers: 2,
    // Console output only from failing tests: the middlewares log a line and an EMF document per batch by default.
    silent: 'passed-only',
    // ... which misses what is written to process.stdout itself: the default EMF writer's documents (see the file).
    setupFiles: ['test/support/quiet-stdout.ts'],
    // One line per file: the reporter lists a test of its own only past this (default 300 ms, which listed ~60 of them).
    slowTestThreshold: 10_000,
    projects: [
      // Unit files share one module graph (isolate: false): importing the SDK and src once is what makes this project take seconds.
      { extends: true, test: { name: 'unit', include: tests(unitDirs), exclude: [...propertyTestsOnDynamoDB], isolate: false } },
      // Each check compiles a whole TypeScript program in its setup: slow on a loaded 2-core machine.
      { extends: true, test: { name: 'checks', include: tests(checkDirs), hookTimeout: 240_000 } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: [...tests(integrationDirs), ...propertyTestsOnDynamoDB],
          globalSetup: ['test/support/global-setup.ts'],
          // One module graph per worker here too: re-importing the AWS SDK and src for each of 80+ files was
          // 250 s of import time against 23 s (measured with `--project integration`). The files keep no state
          // in modules (no vi.mock, no fake timers, no module-level registries), so sharing them is safe.
          isolate: false,
        },
      },
    ],
  },
});
