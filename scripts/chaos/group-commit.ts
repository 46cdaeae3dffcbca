/**
 * The chaos run's group-commit consumer. The reference service has no SQS
 * consumer with `strategy: transaction()` (points is EventBridge: one event
 * per invocation, nothing to group), so this seeded scenario puts one under
 * the same faults: a standard queue (the simulator, scripts/sim/) drained by
 * racing pollers, producer re-sends, DynamoDB faults (TransactionConflict,
 * throttling, network errors before and after the write) and crashes around
 * the group commit, against the run's DynamoDB Local. Records share balance
 * items, so groups are also split by overlapping items.
 */
import { randomUUID } from 'node:crypto';
import middy from '@middy/core';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../infra/dynamodb-local.js';
import { createTable, tableDefinitions } from '../../infra/tables.js';
import { DynamoDBIdempotencyStore, eachRecord, jsonBody, sqsIdempotency, transaction } from '../../src/index.js';
import { crashingStore, injectDynamoDBFaults, ManualClock } from '../../src/testing/index.js';
import { drain, SqsQueueSimulator } from '../sim/index.js';
import { strategyRow, type StrategyRow } from './invariants.js';
import type { ChaosRates } from './plan.js';

/** What the group-commit scenario saw, besides its invariants. */
export interface GroupCommitFaults {
  /** Requests that held several records' idempotency Puts. */
  readonly groups: number;
  /** Of those, cancelled by one record's failed condition (a duplicate or a business condition) and read per record. */
  readonly cancelledByCondition: number;
  /** TransactionConflicts injected into `TransactWriteItems`. */
  readonly conflicts: number;
  /** Duplicate probes sent (`BatchGetItem` of the batch's idempotency records; `probeDuplicates: 'auto'`). */
  readonly probes: number;
  readonly crashes: number;
}

/** One seed of the scenario: its row in the verdict and its faults. */
export interface GroupCommitResult {
  readonly row: StrategyRow;
  readonly faults: GroupCommitFaults;
}

const CUSTOMERS = 7;
const businessTable = {
  AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' as const }],
  KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' as const }],
  BillingMode: 'PAY_PER_REQUEST' as const,
};

/** Counts group commits, and those cancelled by one record's condition, on the client's stack. */
function watchGroups(doc: DynamoDBDocumentClient, idempotencyTable: string) {
  const seen = { groups: 0, cancelledByCondition: 0, probes: 0 };
  doc.middlewareStack.add(
    (next) => async (args) => {
      if ((args.input as { RequestItems?: Record<string, unknown> }).RequestItems?.[idempotencyTable] !== undefined) seen.probes += 1;
      const items = (args.input as { TransactItems?: Array<{ Put?: { TableName?: string } }> }).TransactItems ?? [];
      const records = items.filter((a) => a.Put?.TableName === idempotencyTable).length;
      if (records > 1) seen.groups += 1;
      try {
        return await next(args);
      } catch (err) {
        const reasons = (err as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? [];
        if (records > 1 && reasons.some((r) => r.Code === 'ConditionalCheckFailed')) seen.cancelledByCondition += 1;
        throw err;
      }
    },
    { step: 'initialize', name: 'chaosWatchGroups' },
  );
  return seen;
}

function clients(endpoint: string) {
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  return { client, doc: DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }) };
}

function handlerFor(store: DynamoDBIdempotencyStore | ReturnType<typeof crashingStore>, business: string) {
  return middy<SQSEvent, SQSBatchResponse>()
    .use(
      sqsIdempotency({
        store,
        consumer: 'ledger',
        strategy: transaction(),
        key: (r) => jsonBody<{ orderNo?: string }>(r).orderNo,
        logger: false,
      }),
    )
    .handler(
      eachRecord.inTransaction(async (record, { key, tx }) => {
        const { customer, amount } = jsonBody<{ customer: string; amount: number }>(record);
        tx.put({ TableName: business, Item: { pk: `ledger#${key}`, customer, amount }, ConditionExpression: 'attribute_not_exists(pk)' });
        tx.update({
          TableName: business,
          Key: { pk: `balance#${customer}` },
          UpdateExpression: 'ADD amount :a',
          ExpressionAttributeValues: { ':a': amount },
        });
      }),
    );
}

/**
 * Runs one seed of the scenario: `orders` orders (every fourth re-sent by the
 * producer), and reads the verdict from the end state.
 *
 * @example
 * ```ts no-check
 * const { row, faults } = await runGroupCommitChaos({ seed: 1, orders: 300, endpoint, rates: defaultRates });
 * ```
 */
export async function runGroupCommitChaos(options: {
  readonly seed: number;
  readonly orders: number;
  readonly endpoint: string;
  readonly rates: ChaosRates;
  readonly pollers?: number;
}): Promise<GroupCommitResult> {
  const { seed, orders, rates } = options;
  const { client, doc } = clients(options.endpoint);
  const suffix = `${seed}-${randomUUID().slice(0, 8)}`;
  const table = `chaos-gc-idem-${suffix}`;
  const business = `chaos-gc-biz-${suffix}`;
  await createTable(client, table, tableDefinitions.idempotency);
  await createTable(client, business, businessTable);
  const clock = new ManualClock(Date.now());
  const seen = watchGroups(doc, table);
  const injector = injectDynamoDBFaults(doc, {
    seed,
    rules: [
      { fault: 'transaction-conflict', probability: rates.transactionConflict, commands: ['TransactWriteItems'] },
      // Which records share a group commit depends on scheduling, and the seeded decisions above hang on the
      // group's items, so a fast run could see no conflict at all: the second commit attempt always gets one.
      ...(rates.transactionConflict > 0 ? [{ fault: 'transaction-conflict' as const, calls: [2], commands: ['TransactWriteItems'] }] : []),
      { fault: 'throttle', probability: rates.throttle },
      { fault: 'network-before', probability: rates.networkBefore, commands: ['TransactWriteItems'] },
      { fault: 'network-after', probability: rates.networkAfter, commands: ['TransactWriteItems'] },
    ],
  });
  const base = new DynamoDBIdempotencyStore({ client: doc, tableName: table, clock, cache: false });
  const store = crashingStore(base, {
    seed,
    probability: { 'before-complete': rates.crashBeforeComplete, 'after-complete': rates.crashAfterComplete },
  });
  const dlq = new SqsQueueSimulator({ name: 'ledger-dlq', clock });
  const queue = new SqsQueueSimulator({ name: 'ledger', clock, visibilityTimeoutMs: 60_000, maxReceiveCount: 5, deadLetterQueue: dlq });
  const keyOf = new Map<string, string>();
  const customerOf = (i: number) => `c${i % CUSTOMERS}`;
  for (let i = 0; i < orders; i++) {
    const body = JSON.stringify({ orderNo: `o-${i}`, customer: customerOf(i), amount: i + 1 });
    keyOf.set(queue.send(body).messageId, `o-${i}`);
    if (i % 4 === 0) keyOf.set(queue.send(body).messageId, `o-${i}`);
  }
  const get = async (pk: string) =>
    (await doc.send(new GetCommand({ TableName: business, Key: { pk }, ConsistentRead: true }))).Item as
      | Record<string, unknown>
      | undefined;
  const acked = new Set<string>();
  const earlyAcks: Array<Promise<string | undefined>> = [];
  let wholeBatchFailures = 0;
  const report = await drain({
    queue,
    handler: handlerFor(store, business),
    clock,
    batchSize: 10,
    timeoutMs: 20_000,
    concurrency: options.pollers ?? 2,
    maxPolls: orders * 20,
    onPoll: (poll) => {
      if (poll.outcome === 'threw' || poll.outcome === 'invalid-response') wholeBatchFailures += 1;
      for (const id of poll.deleted) {
        const key = keyOf.get(id);
        if (key === undefined) continue;
        acked.add(key);
        // Read when the delete happens: the order must already have its ledger line.
        earlyAcks.push(get(`ledger#${key}`).then((item) => (item === undefined ? key : undefined)));
      }
    },
  });
  injector.remove();
  const ackedEarly = (await Promise.all(earlyAcks)).filter((k): k is string => k !== undefined);
  const missing: string[] = [];
  const expected = new Map<string, number>();
  for (let i = 0; i < orders; i++) {
    if ((await get(`ledger#o-${i}`)) === undefined) missing.push(`o-${i}`);
    else expected.set(customerOf(i), (expected.get(customerOf(i)) ?? 0) + i + 1);
  }
  const wrong: string[] = [];
  for (const [customer, sum] of expected) if ((await get(`balance#${customer}`))?.['amount'] !== sum) wrong.push(customer);
  const dead = dlq.messages().map((m) => ({
    messageId: m.messageId,
    body: m.body.slice(0, 80),
    key: keyOf.get(m.messageId),
    defect: undefined,
    reason: `ran out of receives (${m.receiveCount})`,
    receiveCount: m.receiveCount,
  }));
  const row = strategyRow({
    strategy: 'transaction, group commit',
    consumer: 'ledger (SQS standard, ledger + shared balance per record, group commit)',
    events: orders,
    missing,
    dlq: dead,
    doubles: wrong.length,
    doublesInWindow: 0,
    doubleDetail: wrong.length === 0 ? '' : ` (balances off: ${wrong.join(', ')})`,
    acked,
    wholeBatchFailures,
    leftOver: report.drained ? 0 : report.depth + report.inFlight,
  });
  // Stricter than the end state: a key deleted before its ledger line existed was acknowledged without its effect, even if a later copy applied it.
  const invariants = row.invariants.map((inv) =>
    inv.name !== 'no ack while the effect is missing' || ackedEarly.length === 0
      ? inv
      : { ...inv, ok: false, detail: `${inv.detail}; deleted before the ledger line existed: ${ackedEarly.slice(0, 4).join(', ')}` },
  );
  const fixedRow = { ...row, invariants, ok: invariants.every((i) => i.ok) };
  const faults = {
    groups: seen.groups,
    cancelledByCondition: seen.cancelledByCondition,
    conflicts: injector.injected()['transaction-conflict'],
    probes: seen.probes,
    crashes: store.crashes.length,
  };
  return { row: fixedRow, faults };
}
