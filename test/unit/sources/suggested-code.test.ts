/**
 * Issue 34 item 3: a message that tells the user what to write must name
 * code the library accepts today. Every suggestion of the form
 * `name({ option: value })` (or `write option: value`) in a string under
 * src/ is evaluated against the real factory it names (for `${owner}`-style
 * names: the middlewares), and the messages users meet at runtime are
 * triggered and checked the same way.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import middy, { middyValidateOptions } from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  claim,
  deadLetter,
  DynamoDBIdempotencyStore,
  dynamoDBStreamsIdempotency,
  eventBridgeIdempotency,
  kafkaIdempotency,
  kinesisIdempotency,
  eachRecord,
  eventBridgeHandler,
  sqsIdempotency,
  transaction,
} from '../../../src/index.js';
import { eventBridgeEvent, lambdaContext, MemoryIdempotencyStore, sqsEvent, sqsRecord } from '../../../src/testing/index.js';
import type { BatchLogLine } from '../../../src/observe/log.js';

const MIDDLEWARES = [
  'sqsIdempotency',
  'eventBridgeIdempotency',
  'kinesisIdempotency',
  'dynamoDBStreamsIdempotency',
  'kafkaIdempotency',
] as const;
// A transactional store (never sent a request here), so that strategy: transaction() is judged on the option alone.
const store = new DynamoDBIdempotencyStore({
  client: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })),
  tableName: 't',
});
const middlewareBase = { store, key: () => 'k' };

type Factory = (options: object) => unknown;
const factories: Record<string, Factory> = {
  sqsIdempotency: sqsIdempotency as Factory,
  eventBridgeIdempotency: eventBridgeIdempotency as Factory,
  kinesisIdempotency: kinesisIdempotency as Factory,
  dynamoDBStreamsIdempotency: dynamoDBStreamsIdempotency as Factory,
  kafkaIdempotency: kafkaIdempotency as Factory,
  claim: claim as Factory,
  transaction: transaction as Factory,
  // A plug-in: the SQS client it needs is the test's, the rest is the suggestion's.
  deadLetter: (options) => deadLetter({ sqs: { send: async () => ({}) }, ...options }),
  middy: (options) => middyValidateOptions(options as Record<string, unknown>),
};

/** The callee of a suggestion that names no middleware (`${owner}(...)`, `write strategy: ...`): any of them. */
const ANY_MIDDLEWARE = '$' + '{owner}';

/** A suggestion: the function it calls (a name, or an interpolation such as `${owner}`) and the options' text. */
interface Suggestion {
  readonly callee: string;
  readonly options: string;
}

function suggestionsIn(text: string): Suggestion[] {
  const calls = [...text.matchAll(/(?<![\w.])([\w$]+|\$\{[\w.]+\})\(\{ ([^{}]*?) \}\)/g)].map((m) => ({
    callee: m[1] ?? '',
    options: m[2] ?? '',
  }));
  const writes = [...text.matchAll(/\bwrite (strategy: [\w]+\([^)]*\))/g)].map((m) => ({ callee: ANY_MIDDLEWARE, options: m[1] ?? '' }));
  return [...calls, ...writes];
}

/** Why `callee({ ...base, options })` is refused, or undefined when it is accepted. */
function refusal(callee: string, options: string): string | undefined {
  const names = callee.startsWith('${') ? [...MIDDLEWARES] : [callee];
  const reasons: string[] = [];
  for (const name of names) {
    const factory = factories[name];
    if (factory === undefined) return `no factory named ${name} to check the suggestion against (add it to this test)`;
    const base = MIDDLEWARES.includes(name as (typeof MIDDLEWARES)[number]) ? middlewareBase : {};
    // Shorthand (`transaction({ commit })`) names options: each is checked as given, undefined (its default).
    const named = /^[\w, ]+$/.test(options) ? `let ${options};` : '';
    try {
      new Function('factory', 'base', 'claim', 'transaction', `${named} return factory({ ...base, ${options} });`)(
        factory,
        base,
        claim,
        transaction,
      );
      return undefined;
    } catch (error) {
      reasons.push(`${name}: ${String(error)}`);
    }
  }
  return reasons.join('; ');
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** Suggestions in string literals of code lines (comments and TSDoc are the docs checks' business). */
function suggestionsInSource(): { where: string; suggestion: Suggestion }[] {
  const root = join(import.meta.dirname, '../../../src');
  return sourceFiles(root).flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) => {
        if (/^\s*(\*|\/\/|\/\*)/.test(line)) return [];
        const strings = line.match(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`/g) ?? [];
        return strings.flatMap((s) => suggestionsIn(s).map((suggestion) => ({ where: `${relative(root, file)}:${i + 1}`, suggestion })));
      }),
  );
}

describe('code that messages suggest', () => {
  it('every name({ option: value }) suggestion in a message string under src/ is accepted by the factory it names', () => {
    const found = suggestionsInSource();
    const refused = found.flatMap(({ where, suggestion }) => {
      const why = refusal(suggestion.callee, suggestion.options);
      return why === undefined ? [] : [`${where} ${suggestion.callee}({ ${suggestion.options} }): ${why}`];
    });
    expect(found.length).toBeGreaterThanOrEqual(4);
    expect(refused).toEqual([]);
  });

  it('the messages of an inTransaction runner without the transaction strategy suggest code that is accepted', async () => {
    const record = sqsRecord({ body: 'a' });
    // No middleware: the record fails, and its line on stderr says why.
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await eachRecord.inTransaction(() => undefined)(sqsEvent([record]), lambdaContext());
    const alone = (JSON.parse(String(errors.mock.calls[0]?.[0])) as { error: { message: string } }).error.message;
    errors.mockRestore();
    // Under claim(): the record fails, and the batch line says why.
    const lines: BatchLogLine[] = [];
    await middy<SQSEvent, SQSBatchResponse>()
      .use(
        sqsIdempotency({ store: new MemoryIdempotencyStore(), key: (r) => r.messageId, strategy: claim(), logger: (l) => lines.push(l) }),
      )
      .handler(eachRecord.inTransaction(() => undefined))(sqsEvent([record]), lambdaContext());
    const claimed = lines[0]?.records[0]?.error?.message ?? '';
    // EventBridge: the handler throws it.
    const event = eventBridgeEvent({ detailType: 'Paid', source: 'shop', detail: {} });
    const thrown = await eventBridgeHandler
      .inTransaction(async () => undefined)(event, lambdaContext())
      .then(
        () => '',
        (error: Error) => error.message,
      );
    const messages = [alone, claimed, thrown];
    expect(messages.every((m) => /\.inTransaction: /.test(m))).toBe(true);
    const checked = messages.map((message) => {
      const suggestions = suggestionsIn(message);
      return { message, suggestions: suggestions.length, refused: suggestions.flatMap((s) => refusal(s.callee, s.options) ?? []) };
    });
    expect(checked.filter((c) => c.suggestions === 0 || c.refused.length > 0)).toEqual([]);
  });
});
