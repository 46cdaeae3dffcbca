/**
 * The batch middleware picks its strategy's steps once, when built, from
 * what its entry hands it; it imports no strategy itself. So the middleware
 * and `eachRecord`, bundled alone, carry none of the transaction strategy
 * (its steps, the commit step, group commit, the duplicate probe) and none
 * of the claim strategy's steps either: `claim()` and `transaction()` carry
 * theirs. A structural check on esbuild's
 * metafile, as test/unit/claim-bundle.test.ts does for the claim entry; the
 * control bundles the transaction steps, so the check can fail.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { BUNDLE_OPTIONS } from '../../../bench/cold-start.js';
import { claim } from '../../../src/strategies/claim/claim.js';
import { transaction } from '../../../src/strategies/transaction/transaction.js';
import { isStrategy } from '../../../src/strategies/types.js';
import { MemoryIdempotencyStore } from '../../../src/stores/memory.js';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');

/** Our source files that put at least one byte in the bundle of `contents`. */
async function bundledSources(contents: string): Promise<string[]> {
  const result = await build({
    stdin: { contents, resolveDir: root, sourcefile: 'entry.ts', loader: 'ts' },
    ...BUNDLE_OPTIONS,
    write: false,
    absWorkingDir: root,
  });
  const [output] = Object.values(result.metafile.outputs);
  if (output === undefined) throw new Error('esbuild wrote no output');
  return Object.entries(output.inputs)
    .filter(([path, { bytesInOutput }]) => path.startsWith('src/') && bytesInOutput > 0)
    .map(([path]) => path);
}

const transactionSteps = [
  'src/strategies/transaction/steps.ts',
  'src/strategies/transaction/commit-step.ts',
  'src/strategies/transaction/group-commit/queue.ts',
  'src/strategies/transaction/group-commit/duplicate-probe.ts',
];

describe('the batch middleware imports no strategy', () => {
  it('bundled alone with eachRecord, it carries no strategy steps', async () => {
    const sources = await bundledSources(`
      import { batchIdempotency } from './src/batch/middleware.js';
      import { eachRecord } from './src/sources/each-record.js';
      export const parts = [batchIdempotency, eachRecord];
    `);
    expect(sources).toContain('src/batch/invocation.ts'); // the bundle is the middleware's, not empty
    expect(sources.filter((s) => /^src\/strategies\/(claim|transaction)\//.test(s) || transactionSteps.includes(s))).toEqual([]);
  }, 60_000);

  it('the SQS middleware of the main entry, claim-only, carries no transaction steps (either DynamoDB store)', async () => {
    for (const store of ['DynamoDBClaimStore', 'DynamoDBIdempotencyStore']) {
      const sources = await bundledSources(`
        import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
        import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
        import { ${store}, eachRecord, sqsIdempotency } from './src/index.js';
        const store = new ${store}({ client: DynamoDBDocumentClient.from(new DynamoDBClient({})), tableName: 't' });
        export const m = sqsIdempotency({ store, key: (r) => r.messageId });
        export const h = eachRecord(async () => {});
      `);
      expect(sources).toContain('src/strategies/claim/steps.ts'); // the default claim steps run it
      expect(sources).not.toContain('src/strategies/claim/pipelined.ts');
      // The duplicate probe's verdict is also the store's commit path (DynamoDBIdempotencyStore's commit reads it).
      const steps = store === 'DynamoDBClaimStore' ? transactionSteps : transactionSteps.filter((s) => !s.endsWith('duplicate-probe.ts'));
      const strategyFiles = [...steps, 'src/strategies/transaction/transaction.ts'];
      expect(sources.filter((s) => strategyFiles.includes(s))).toEqual([]);
    }
  }, 60_000);

  it('the Kinesis middleware, claim-only, carries no pipelined steps', async () => {
    const sources = await bundledSources(`
      import { MemoryIdempotencyStore } from './src/testing/index.js';
      import { eachRecord, kinesisIdempotency } from './src/index.js';
      export const m = kinesisIdempotency({ store: new MemoryIdempotencyStore(), key: (r) => r.kinesis.sequenceNumber });
      export const h = eachRecord(async () => {});
    `);
    expect(sources).toContain('src/strategies/claim/steps.ts'); // the default claim steps run it
    expect(sources).not.toContain('src/strategies/claim/pipelined.ts');
  }, 60_000);

  it('control: the same handler naming transaction() carries the transaction steps', async () => {
    const sources = await bundledSources(`
      import { MemoryIdempotencyStore } from './src/testing/index.js';
      import { eachRecord, sqsIdempotency, transaction } from './src/index.js';
      export const m = sqsIdempotency({ store: new MemoryIdempotencyStore(), key: (r) => r.messageId, strategy: transaction() });
      export const h = eachRecord(async () => {});
    `);
    for (const file of transactionSteps) expect(sources).toContain(file);
  }, 60_000);

  it('control: the transaction steps, bundled, carry the commit step and group commit', async () => {
    const sources = await bundledSources(`
      import { transactionBatchStrategy } from './src/strategies/transaction/steps.js';
      export const steps = transactionBatchStrategy;
    `);
    for (const file of transactionSteps) expect(sources).toContain(file);
  }, 60_000);
});

describe('the strategy objects carry their steps', () => {
  it('claim() and transaction() carry their steps on their prototype, out of sight of their settings', () => {
    expect(Object.getPrototypeOf(claim()).batch).toBeTypeOf('function');
    expect(Object.getPrototypeOf(claim({ heartbeat: true }))).toBe(Object.getPrototypeOf(claim()));
    expect(Object.getPrototypeOf(claim({ pipelined: true }))).not.toBe(Object.getPrototypeOf(claim()));
    expect(Object.getPrototypeOf(transaction({ commit: 'record' }))).toBe(Object.getPrototypeOf(transaction()));
    // Each object's steps build that strategy's batch steps, named as the log line names them.
    const settings = { store: new MemoryIdempotencyStore(), storeResult: false, lease: { marginMs: 0, floorMs: 1, capMs: 1 }, owner: 'o' };
    expect(claim().batch(settings).name).toBe('claim');
    expect(claim({ pipelined: true }).batch(settings).name).toBe('claim');
    expect(transaction().batch(settings).name).toBe('transaction');
    // The settings are what the factory set: equality, JSON and the option checks see nothing else.
    expect(transaction({ commit: 'record' })).toStrictEqual({
      kind: 'transaction',
      onConflict: 'fail',
      commit: 'record',
      probeDuplicates: 'auto',
    });
    expect(JSON.stringify(claim())).toBe('{"kind":"claim","pipelined":false,"heartbeat":false}');
    expect(Object.isFrozen(transaction())).toBe(true);
  });

  it('a string, or a strategy written by hand, is no strategy object (the middlewares refuse both)', () => {
    expect(isStrategy('transaction')).toBe(false);
    expect(isStrategy({ kind: 'transaction', onConflict: 'fail' })).toBe(false);
    expect(isStrategy(undefined)).toBe(false);
    expect(isStrategy(claim())).toBe(true);
    expect(isStrategy(transaction())).toBe(true);
  });
});
