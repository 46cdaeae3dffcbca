/**
 * Issues 12 and 32: a claim-only handler bundles no transaction builder,
 * state machine, stale-claims query, metrics, DLQ, backoff or tracing (nor
 * `@opentelemetry/api`). The README's
 * SQS claim handler (main entry, `DynamoDBClaimStore`, no plug-ins) is
 * bundled with esbuild (as the cold-start bench does) and its metafile's
 * inputs are checked: a structural assertion, independent of sizes. The
 * controls are the same handler on `DynamoDBIdempotencyStore` (the store's
 * commit path) and with the plug-ins `deadLetter`, `backoff`,
 * `emfMetrics` and `openTelemetry` passed (their code), so each check can fail.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { BUNDLE_OPTIONS } from '../../bench/cold-start.js';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/** The plug-ins' imports and options, for the controls that pass them. */
const PLUGINS = {
  imports: ', backoff, deadLetter, emfMetrics',
  options: ', deadLetter: deadLetter({ sqs }), backoff: backoff({ sqs }), metrics: emfMetrics()',
};

/** A handler's plug-ins: names imported from the main entry, options passed, and (`header`) imports of their own. */
interface Plugins {
  readonly imports: string;
  readonly options: string;
  readonly header?: string;
}

/** The README's claim handler (on `DynamoDBClaimStore`); the controls pass `DynamoDBIdempotencyStore`, or the plug-ins. */
const handlerFrom = (store = 'DynamoDBClaimStore', middleware = 'sqsIdempotency', plugins: Plugins = { imports: '', options: '' }) => `
${plugins.header ?? ''}
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import { ${store}, eachRecord, jsonBody, ${middleware}${plugins.imports} } from './src/index.ts';
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const store = new ${store}({ client, tableName: 'idempotency' });
const sqs = { send: async () => ({}) };
export const handler = middy()
  .use(${middleware}({ store, consumer: 'orders', key: (record) => jsonBody(record).orderNo${plugins.options} }))
  .handler(eachRecord(async (record) => { console.log('paid', jsonBody(record).orderNo, sqs); }));
`;

/** The bundle's one output, from its metafile, with its text. */
async function bundle(store?: string, middleware?: string, plugins?: Plugins) {
  const result = await build({
    stdin: { contents: handlerFrom(store, middleware, plugins), resolveDir: root, sourcefile: 'handler.ts', loader: 'ts' },
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
async function bundledSources(store?: string, plugins?: Plugins): Promise<string[]> {
  const output = await bundle(store, undefined, plugins);
  return Object.entries(output.inputs)
    .filter(([path, { bytesInOutput }]) => path.startsWith('src/') && bytesInOutput > 0)
    .map(([path]) => path);
}

/** What a claim-only handler must not carry: the other strategies, the stale-claims query, the plug-ins, the stream middlewares. */
/** The plug-ins' own files. */
const PLUGIN_FILES = [
  'src/observe/emf.ts',
  'src/observe/metrics.ts',
  'src/sources/sqs/dead-letter.ts',
  'src/sources/sqs/dlq.ts',
  'src/sources/sqs/dlq-message.ts',
  'src/sources/sqs/permanent.ts',
  'src/sources/sqs/backoff.ts',
  'src/sources/sqs/backoff-schedule.ts',
];

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
  // the plug-ins: metrics, DLQ and backoff; stream sources
  ...PLUGIN_FILES,
  // (not streams/adapter.ts: the plain eachRecord carries each source's plain reader, see below)
  'src/sources/streams/middleware.ts',
];

describe('the README claim handler’s bundle', () => {
  it('carries none of the transaction builder, the state machine, the stale-claims query, the plug-ins or the stream middlewares', async () => {
    const sources = await bundledSources('DynamoDBClaimStore');
    expect(sources).toContain('src/batch/middleware.ts'); // the bundle is the handler's, not empty
    expect(sources).toContain('src/stores/dynamodb/claim-store.ts');
    expect(sources.filter((s) => leftOut.includes(s))).toEqual([]);
  }, 60_000);

  it('from the main entry with DynamoDBClaimStore: no store commit path, group commit or stale-claims query', async () => {
    // The store split: the commit path is reached from DynamoDBIdempotencyStore only, so a claim-only
    // handler that constructs the claim store does not carry it (nor the transaction strategy's steps,
    // which only transaction() brings in: test/unit/batch/strategy-imports.test.ts).
    const sources = await bundledSources('DynamoDBClaimStore');
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
      'src/sources/eventbridge/',
      'src/sources/call/',
      'src/testing/',
    ];
    expect(sources.filter((s) => otherFolders.some((folder) => s.startsWith(folder)))).toEqual([]);
    // control: DynamoDBIdempotencyStore on the same entry carries it
    const full = await bundledSources('DynamoDBIdempotencyStore');
    expect(commitPath.filter((s) => !full.includes(s))).toEqual([]);
  }, 60_000);

  it('without claim({ heartbeat }): no lease heartbeat, and never the owner wait (a batch does not wait)', async () => {
    const readme = await bundle();
    const paths = Object.entries(readme.inputs)
      .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
      .map(([path]) => path);
    expect(paths).toContain('src/engine/claim-decide.ts'); // the claim routine is there, so the checks below can fail
    expect(paths).not.toContain('src/engine/wait.ts');
    // nor the batch that keeps the claims' leases (its keepers' `lost`, read nowhere else)
    expect(paths).not.toContain('src/strategies/claim/heartbeat-batch.ts');
    expect(readme.text).not.toContain('.lost');
    expect(readme.text).not.toContain('renewal refused');
    // nor claim()'s check that the store can renew (the default strategy's steps check nothing)
    const renewCheck = 'but the store has no renew method';
    expect(readme.text).not.toContain(renewCheck);
    // control: claim({ heartbeat }) brings the heartbeat and its check
    const heartbeat = await bundle(undefined, undefined, { imports: ', claim', options: ', strategy: claim({ heartbeat: true })' });
    expect(heartbeat.text).toContain('renewal refused');
    expect(heartbeat.text).toContain(renewCheck);
    expect(Object.keys(heartbeat.inputs)).toContain('src/strategies/claim/heartbeat-batch.ts');
    expect(heartbeat.text).toContain('.lost');
  }, 60_000);

  it('claims a batch’s records without the single-event claim loop (its owner wait and durable resume)', async () => {
    // A batch never waits for an owner nor resumes a durable execution's claim: admit.ts decides a refused claim with
    // decideRefused alone, so claimAndDecide (the loop of the event paths) stays out.
    const loop = '.wait.poll(';
    const readme = await bundle();
    expect(readme.text).toContain('is being processed by another'); // the refused-claim decision is there, so the check can fail
    expect(readme.text).not.toContain(loop);
    // control: an EventBridge handler carries the loop
    expect((await bundle(undefined, 'eventBridgeIdempotency')).text).toContain(loop);
  }, 60_000);

  it('from the main entry: a plain eachRecord’s stream and Kafka readers, without their record checks', async () => {
    // eachRecord finds the source of an event at run time, so it carries each source's plain reader (records,
    // id, lane, response); the checks that make a record unreadable come with the source's middleware only.
    const readme = await bundle();
    const sources = Object.entries(readme.inputs)
      .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
      .map(([path]) => path);
    expect(sources).toContain('src/sources/event-sources.ts');
    expect(sources.filter((s) => ['src/sources/streams/data.ts', 'src/sources/streams/middleware.ts'].includes(s))).toEqual([]);
    const { text } = readme;
    expect(text).toContain('not a Kafka event'); // the plain reader's refusal is there, so the checks below can fail
    for (const check of ['is not base64', 'has no kinesis payload', 'has no dynamodb change']) expect(text).not.toContain(check);
    // control: a Kinesis handler carries the checks
    const kinesis = await bundle(undefined, 'kinesisIdempotency');
    expect(kinesis.text).toContain('has no kinesis payload');
  }, 60_000);

  it('without claim({ pipelined: true }): not the pipelined claims', async () => {
    const pipelinedFile = 'src/strategies/claim/pipelined.ts';
    expect(Object.keys((await bundle()).inputs)).not.toContain(pipelinedFile);
    // control: claim({ pipelined: true }) brings them
    const pipelined = await bundle(undefined, undefined, { imports: ', claim', options: ', strategy: claim({ pipelined: true })' });
    expect(Object.keys(pipelined.inputs)).toContain(pipelinedFile);
  }, 60_000);

  it('without plug-ins: not the chain of their after-settle steps (each plug-in carries it)', async () => {
    const chain = '.notes?.warn';
    const readme = await bundle();
    expect(Object.keys(readme.inputs)).toContain('src/sources/sqs/plugins.ts'); // the plug-in rules are there, so the check can fail
    expect(readme.text).not.toContain(chain);
    // control: the handler given the plug-ins carries it
    expect((await bundle(undefined, undefined, PLUGINS)).text).toContain(chain);
  }, 60_000);

  it('with the plug-ins: loads @aws-sdk/client-sqs only when the DLQ or backoff sends (a dynamic import, not hoisted)', async () => {
    // An external static import is hoisted to the top of an ESM bundle: every cold start would load the SQS client.
    expect((await bundle()).imports.filter((i) => i.path === '@aws-sdk/client-sqs')).toEqual([]);
    const sqsImports = (await bundle(undefined, undefined, PLUGINS)).imports.filter((i) => i.path === '@aws-sdk/client-sqs');
    expect(sqsImports.length).toBeGreaterThan(0); // the DLQ and backoff are in the bundle, so the check can fail
    expect(sqsImports.filter((i) => i.kind !== 'dynamic-import')).toEqual([]);
  }, 60_000);

  it('with the plug-ins: none of our modules imports another of ours dynamically', async () => {
    // A bundler inlines such an import and wraps that module and all it imports in lazy initialisers
    // (after-settle.ts did so for dlq.ts and backoff.ts: 1.3 kB in every main-entry bundle).
    const { sources } = await bundle(undefined, undefined, PLUGINS);
    const dynamic = Object.entries(sources).flatMap(([from, { imports }]) =>
      imports.filter((i) => i.kind === 'dynamic-import' && i.external !== true).map((i) => `${from} -> ${i.path}`),
    );
    expect(Object.keys(sources)).toContain('src/sources/sqs/dead-letter.ts'); // the SQS steps are bundled, so the check can fail
    expect(dynamic).toEqual([]);
  }, 60_000);

  it('without tracing: no tracing code and no @opentelemetry/api (the plug-in and the OTel API come with tracing: openTelemetry() only)', async () => {
    const isTracing = (path: string) => path.startsWith('src/observe/tracing/') || path.includes('node_modules/@opentelemetry/');
    const readme = await bundle();
    expect(Object.keys(readme.inputs)).toContain('src/batch/middleware.ts'); // the lifecycle that calls the hooks is there
    expect(Object.keys(readme.inputs).filter(isTracing)).toEqual([]);
    expect(readme.imports.filter((i) => i.path.startsWith('@opentelemetry/'))).toEqual([]);
    for (const text of ['effectively-once claim', 'AWSTraceHeader', 'traceparent', 'effectively_once.'])
      expect(readme.text).not.toContain(text);
    // control: the same handler given tracing: openTelemetry() carries the plug-in and the OTel API
    const traced = await bundle(undefined, undefined, {
      header: "import { openTelemetry } from './src/tracing/index.ts';",
      imports: '',
      options: ', tracing: openTelemetry()',
    });
    const inputs = Object.keys(traced.inputs).filter(isTracing);
    expect(inputs).toContain('src/observe/tracing/invocation-trace.ts');
    expect(inputs.some((path) => path.includes('node_modules/@opentelemetry/api/'))).toBe(true);
    for (const text of ['effectively-once ', 'AWSTraceHeader', 'traceparent', 'effectively_once.']) expect(traced.text).toContain(text);
  }, 60_000);

  it('control: the same handler with the plug-ins passed carries their code', async () => {
    const sources = await bundledSources('DynamoDBClaimStore', PLUGINS);
    expect(PLUGIN_FILES.filter((file) => !sources.includes(file))).toEqual([]);
  }, 60_000);
});
