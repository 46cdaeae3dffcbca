/**
 * The cutover from Powertools lives in its own entry (`effectively-once/powertools`): the README's SQS claim handler
 * and an EventBridge handler, bundled with esbuild as the cold-start bench bundles them, carry none of it (not
 * `powertoolsRecords`, Powertools' key, nor the routine that adopts a previous record). The controls are the same
 * handlers given `previous: powertoolsRecords(...)`, so each check can fail.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { BUNDLE_OPTIONS } from '../../bench/cold-start.js';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

const PREVIOUS = {
  imports: "import { powertoolsRecords } from './src/powertools/index.ts';",
  option: ", previous: powertoolsRecords({ client, tableName: 'powertools', key: orderNo, until: new Date('2030-01-01') })",
};

const handlers = {
  sqs: (previous?: typeof PREVIOUS) => `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import { DynamoDBClaimStore, eachRecord, jsonBody, sqsIdempotency } from './src/index.ts';
${previous?.imports ?? ''}
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const store = new DynamoDBClaimStore({ client, tableName: 'idempotency' });
const orderNo = (record) => jsonBody(record).orderNo;
export const handler = middy()
  .use(sqsIdempotency({ store, consumer: 'orders', key: orderNo${previous?.option ?? ''} }))
  .handler(eachRecord(async (record) => { console.log('paid', orderNo(record)); }));
`,
  eventbridge: (previous?: typeof PREVIOUS) => `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import { DynamoDBIdempotencyStore, eventBridgeIdempotency } from './src/index.ts';
${previous?.imports ?? ''}
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const store = new DynamoDBIdempotencyStore({ client, tableName: 'idempotency' });
const orderNo = (event) => event.detail.orderNo;
export const handler = middy()
  .use(eventBridgeIdempotency({ store, consumer: 'mailer', key: orderNo${previous?.option ?? ''} }))
  .handler(async (event) => ({ sent: orderNo(event) }));
`,
};

/** Our source files that put bytes in the bundle, and its text. */
async function bundle(contents: string): Promise<{ sources: string[]; text: string }> {
  const result = await build({
    stdin: { contents, resolveDir: root, sourcefile: 'handler.ts', loader: 'ts' },
    ...BUNDLE_OPTIONS,
    write: false,
    absWorkingDir: root,
  });
  const [output] = Object.values(result.metafile.outputs);
  const [file] = result.outputFiles;
  if (output === undefined || file === undefined) throw new Error('esbuild wrote no output');
  const sources = Object.entries(output.inputs)
    .filter(([path, { bytesInOutput }]) => path.startsWith('src/') && bytesInOutput > 0)
    .map(([path]) => path);
  return { sources, text: file.text };
}

/** The cutover's own files, and words only its code holds. */
const CUTOVER_FILES = ['src/stores/powertools/records.ts', 'src/stores/powertools/key.ts', 'src/engine/previous.ts'];
const CUTOVER_TEXT = ['in_progress_expiration', 'idempotency#', 'recorded this key with a different payload'];

describe('the cutover from Powertools is bundled only by a handler that imports it', () => {
  for (const [source, handler] of Object.entries(handlers)) {
    it(`${source}: none of it without the previous option; all of it with powertoolsRecords()`, async () => {
      const plain = await bundle(handler());
      expect(plain.sources).toContain('src/engine/claim-decide.ts'); // the bundle is the handler's, not empty
      expect(plain.sources.filter((s) => CUTOVER_FILES.includes(s))).toEqual([]);
      expect(CUTOVER_TEXT.filter((t) => plain.text.includes(t))).toEqual([]);
      const withPrevious = await bundle(handler(PREVIOUS));
      expect(CUTOVER_FILES.filter((s) => !withPrevious.sources.includes(s))).toEqual([]);
      expect(CUTOVER_TEXT.filter((t) => !withPrevious.text.includes(t))).toEqual([]);
    }, 60_000);
  }
});
