/**
 * Issue 12: a claim-only handler bundles no transaction builder, state
 * machine or stale-claims query. The README's SQS claim handler, importing
 * from `effectively-once/claim`, is bundled with esbuild (as the cold-start
 * bench does) and its metafile's inputs are checked: a structural assertion,
 * independent of sizes. The same handler on the main entry is the control
 * (it does reach those files, so the check can fail). A third case holds
 * the store split: the main entry's handler on `DynamoDBClaimStore` carries
 * no store commit path.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { BUNDLE_OPTIONS } from '../../bench/cold-start.js';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/** The README's claim handler (on `DynamoDBClaimStore`, which both entries export); the controls pass `DynamoDBIdempotencyStore`. */
const handlerFrom = (entry: string, store = 'DynamoDBClaimStore', middleware = 'sqsIdempotency') => `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import { ${store}, eachRecord, jsonBody, ${middleware} } from '${entry}';
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const store = new ${store}({ client, tableName: 'idempotency' });
export const handler = middy()
  .use(${middleware}({ store, consumer: 'orders', key: (record) => jsonBody(record).orderNo }))
  .handler(eachRecord(async (record) => { console.log('paid', jsonBody(record).orderNo); }));
`;

/** The bundle's one output, from its metafile, with its text. */
async function bundle(entry: string, store?: string, middleware?: string) {
  const result = await build({
    stdin: { contents: handlerFrom(entry, store, middleware), resolveDir: root, sourcefile: 'handler.ts', loader: 'ts' },
    ...BUNDLE_OPTIONS,
    write: false,
    absWorkingDir: root,
  });
  const [output] = Object.values(result.metafile.outputs);
  const [file] = result.outputFiles;
  if (output === undefined || file === undefined) throw new Error('esbuild wrote no output');
  return Object.assign(output, { sources: result.metafile.inputs, text: file.text });
}

/** Our source files in the bundle (those that put at least one byte in it). */
async function bundledSources(entry: string, store?: string): Promise<string[]> {
  const output = await bundle(entry, store);
  return Object.entries(output.inputs)
    .filter(([path, { bytesInOutput }]) => path.startsWith('src/') && bytesInOutput > 0)
    .map(([path]) => path);
}

/** What a claim-only handler must not carry: the three, and the other parts the claim entry leaves out. */
const leftOut = [
  // the transaction builder and the transaction strategy
  'src/strategies/transaction/builder.ts',
  'src/strategies/transaction/transaction.ts',
  'src/strategies/transaction/options.ts',
  'src/strategies/transaction/commit-step.ts',
  'src/strategies/transaction/group-commit/queue.ts',
  'src/stores/dynamodb/commit.ts',
  'src/stores/dynamodb/group-commit.ts',
  'src/stores/dynamodb/group-plan.ts',
  // the state machine
  'src/strategies/transaction/state.ts',
  'src/strategies/transaction/state-expressions.ts',
  'src/strategies/transaction/transition.ts',
  // the stale-claims query
  'src/stores/dynamodb/stale.ts',
  // metrics, DLQ and backoff, stream sources
  'src/observe/emf.ts',
  'src/observe/metrics.ts',
  'src/sources/sqs/after-settle.ts',
  'src/sources/sqs/dlq.ts',
  'src/sources/sqs/backoff.ts',
  'src/sources/streams/adapter.ts',
  'src/sources/streams/middleware.ts',
];

describe('the claim-only entry’s bundle', () => {
  it('carries none of the transaction builder, the state machine, the stale-claims query or the other left-out parts', async () => {
    const sources = await bundledSources('./src/claim/index.ts', 'DynamoDBClaimStore');
    expect(sources).toContain('src/batch/middleware.ts'); // the bundle is the handler's, not empty
    expect(sources).toContain('src/stores/dynamodb/claim-store.ts');
    expect(sources.filter((s) => leftOut.includes(s))).toEqual([]);
  }, 60_000);

  it('from the main entry with DynamoDBClaimStore: no store commit path, group commit or stale-claims query', async () => {
    // The store split: the commit path is reached from DynamoDBIdempotencyStore only, so a claim-only
    // handler that constructs the claim store does not carry it (nor the transaction strategy's steps,
    // which only transaction() brings in: test/unit/batch/strategy-imports.test.ts).
    const sources = await bundledSources('./src/index.ts', 'DynamoDBClaimStore');
    expect(sources).toContain('src/stores/dynamodb/claim-store.ts');
    const commitPath = [
      'src/stores/dynamodb/store.ts',
      'src/stores/dynamodb/stale.ts',
      'src/stores/dynamodb/commit.ts',
      'src/stores/dynamodb/commit-limits.ts',
      'src/stores/dynamodb/group-commit.ts',
      'src/stores/dynamodb/group-plan.ts',
      'src/stores/dynamodb/outbox-keys.ts',
    ];
    expect(sources.filter((s) => commitPath.includes(s))).toEqual([]);
    // No folder of the other strategies or stores either (the plain eachRecord's stream and Kafka readers stay: it finds the source at run time).
    const otherFolders = [
      'src/strategies/transaction/',
      'src/stores/redis/',
      'src/cli/',
      'src/sources/eventbridge/',
      'src/sources/call/',
      'src/testing/',
    ];
    expect(sources.filter((s) => otherFolders.some((folder) => s.startsWith(folder)))).toEqual([]);
    // control: DynamoDBIdempotencyStore on the same entry carries it
    const full = await bundledSources('./src/index.ts', 'DynamoDBIdempotencyStore');
    expect(commitPath.filter((s) => !full.includes(s))).toEqual([]);
  }, 60_000);

  it('from the main entry: a plain eachRecord’s stream and Kafka readers, without their record checks', async () => {
    // eachRecord finds the source of an event at run time, so it carries each source's plain reader (records,
    // id, lane, response); the checks that make a record unreadable come with the source's middleware only.
    const readme = await bundle('./src/index.ts');
    const sources = Object.entries(readme.inputs)
      .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
      .map(([path]) => path);
    expect(sources).toContain('src/sources/event-sources.ts');
    expect(sources.filter((s) => ['src/sources/streams/data.ts', 'src/sources/streams/middleware.ts'].includes(s))).toEqual([]);
    const { text } = readme;
    expect(text).toContain('not a Kafka event'); // the plain reader's refusal is there, so the checks below can fail
    for (const check of ['is not base64', 'has no kinesis payload', 'has no dynamodb change']) expect(text).not.toContain(check);
    // control: a Kinesis handler carries the checks
    const kinesis = await bundle('./src/index.ts', undefined, 'kinesisIdempotency');
    expect(kinesis.text).toContain('has no kinesis payload');
  }, 60_000);

  it('from the main entry: loads @aws-sdk/client-sqs only when the DLQ or backoff sends (a dynamic import, not hoisted)', async () => {
    // An external static import is hoisted to the top of an ESM bundle: every cold start would load the SQS client.
    const sqsImports = (await bundle('./src/index.ts')).imports.filter((i) => i.path === '@aws-sdk/client-sqs');
    expect(sqsImports.length).toBeGreaterThan(0); // the DLQ and backoff are in the bundle, so the check can fail
    expect(sqsImports.filter((i) => i.kind !== 'dynamic-import')).toEqual([]);
  }, 60_000);

  it('from the main entry: none of our modules imports another of ours dynamically', async () => {
    // A bundler inlines such an import and wraps that module and all it imports in lazy initialisers
    // (after-settle.ts did so for dlq.ts and backoff.ts: 1.3 kB in every main-entry bundle).
    const { sources } = await bundle('./src/index.ts');
    const dynamic = Object.entries(sources).flatMap(([from, { imports }]) =>
      imports.filter((i) => i.kind === 'dynamic-import' && i.external !== true).map((i) => `${from} -> ${i.path}`),
    );
    expect(Object.keys(sources)).toContain('src/sources/sqs/after-settle.ts'); // the SQS step is bundled, so the check can fail
    expect(dynamic).toEqual([]);
  }, 60_000);

  it('control: the same handler on the main entry carries them', async () => {
    // (Not the transaction builder or strategy any more: since the strategy option takes no names, a
    // main-entry handler that names no strategy bundles neither. The store's commit path stays.)
    const sources = await bundledSources('./src/index.ts', 'DynamoDBIdempotencyStore');
    for (const file of [
      'src/stores/dynamodb/commit.ts',
      'src/stores/dynamodb/group-commit.ts',
      'src/stores/dynamodb/stale.ts',
      'src/observe/metrics.ts',
    ]) {
      expect(sources).toContain(file);
    }
  }, 60_000);
});
