/**
 * Issue 34 item 4: the relay's own failures (a malformed outbox item, a mark
 * that UpdateItem refuses) are retried as before, but no longer silently:
 * each is logged with its outbox id and the error's name and message (never
 * the payload) and counted in the relay's metrics. Against DynamoDB Local's
 * real stream and real refusals.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { emfMetrics, outboxRelay } from '../../../src/index.js';
import type { OutboxRelayLogLine } from '../../../src/strategies/transaction/outbox/relay.js';
import type { EmfDocument } from '../../../src/observe/emf.js';
import { readStream } from '../../../scripts/local/dynamodb-stream.js';
import { freshTable, testDynamo } from '../../support/dynamodb.js';
import { fakeEventBridge, keys, outboxRecordIndex, sequenceNumbers, setup, streamTable } from './relay-support.js';

/** The relay's log lines and metric documents, kept. */
function observed() {
  const lines: OutboxRelayLogLine[] = [];
  const documents: EmfDocument[] = [];
  return {
    lines,
    documents,
    logger: (line: OutboxRelayLogLine) => lines.push(line),
    metrics: emfMetrics({ emit: (d: EmfDocument) => documents.push(d) }),
  };
}

describe('outboxRelay(): failures of its own are logged and counted, and still retried', () => {
  it('a malformed outbox item: one ERROR line (outbox id, error name and message, no payload), OutboxMalformed counted, record reported', async () => {
    const { client, doc } = testDynamo();
    const table = await freshTable(client, streamTable, 'outbox');
    // No detailType: it cannot be published. Its detail holds what must never reach a log.
    await doc.send(
      new PutCommand({ TableName: table, Item: { pk: 'a', outboxId: 'outbox-a', source: 'shop', detail: '{"card":"4111-secret"}' } }),
    );
    const event = await readStream(client, table);
    const seen = observed();
    const response = await outboxRelay({ eventBridge: fakeEventBridge().client, client: doc, logger: seen.logger, metrics: seen.metrics })(
      event,
    );
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(sequenceNumbers(event));
    expect(seen.lines).toEqual([
      {
        level: 'ERROR',
        message: 'outbox item malformed',
        outboxId: 'outbox-a',
        table,
        sequenceNumber: sequenceNumbers(event)[0],
        error: { name: 'TypeError', message: expect.stringContaining('detailType') },
      },
    ]);
    expect(JSON.stringify(seen.lines)).not.toContain('4111-secret');
    expect(seen.documents.map((d) => [d['OutboxMalformed'], d['OutboxPublished']])).toEqual([[1, 0]]);
  });

  it('a mark UpdateItem refuses (a table that does not exist): one ERROR line per item with ResourceNotFoundException, OutboxMarkFailed counted, the retry publishes again', async () => {
    const { doc, event } = await setup(keys(2));
    const bus = fakeEventBridge();
    const seen = observed();
    const relay = outboxRelay({
      eventBridge: bus.client,
      client: doc,
      tableName: 'no-such-table',
      logger: seen.logger,
      metrics: seen.metrics,
    });
    const first = await relay(event);
    const firstOutboxRecord = Math.min(outboxRecordIndex(event, 'k0'), outboxRecordIndex(event, 'k1'));
    expect(first.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(sequenceNumbers(event).slice(firstOutboxRecord));
    expect(seen.lines.map((l) => [l.level, l.message, l.table, l.error])).toEqual([
      ['ERROR', 'outbox item not marked', 'no-such-table', { name: 'ResourceNotFoundException', message: expect.any(String) }],
      ['ERROR', 'outbox item not marked', 'no-such-table', { name: 'ResourceNotFoundException', message: expect.any(String) }],
    ]);
    expect(new Set(seen.lines.map((l) => l.outboxId)).size).toBe(2);
    expect(seen.documents.map((d) => [d['OutboxPublished'], d['OutboxMarkFailed']])).toEqual([[2, 2]]);
    // The retry behaviour is kept: the stream redelivers, the relay publishes again (same outboxId) and fails again.
    await relay(event);
    expect(bus.published).toHaveLength(4);
  });
});
