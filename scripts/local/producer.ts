/**
 * The producers of the local run: send the planned messages to the local
 * queues (SendMessageBatch, ten at a time) and remember which message id
 * carries what, so the report can tell what ended in a DLQ.
 */
import { SendMessageBatchCommand, type SendMessageBatchRequestEntry, type SQSClient } from '@aws-sdk/client-sqs';
import type { LocalQueues } from './queues.js';
import type { PlannedSend, SendKind } from './workload.js';

/** What the producers did. */
export interface SendStats {
  /** Send requests accepted, per queue and kind (including ones FIFO then dropped). */
  readonly sent: Record<'payments' | 'notifications', Record<SendKind, number>>;
  /** Sends FIFO deduplication dropped (same dedup id within 5 minutes): accepted, never delivered. */
  fifoDropped: number;
}

export function newSendStats(): SendStats {
  const zero = (): Record<SendKind, number> => ({ original: 0, resend: 0, 'fifo-dedup-resend': 0, poison: 0 });
  return { sent: { payments: zero(), notifications: zero() }, fifoDropped: 0 };
}

function entry(send: PlannedSend, id: number): SendMessageBatchRequestEntry {
  return {
    Id: String(id),
    MessageBody: send.body,
    ...(send.groupId === undefined ? {} : { MessageGroupId: send.groupId }),
    ...(send.dedupId === undefined ? {} : { MessageDeduplicationId: send.dedupId }),
  };
}

async function sendBatch(
  client: SQSClient,
  queueUrl: string,
  batch: readonly PlannedSend[],
  stats: SendStats,
  byMessageId: Map<string, PlannedSend>,
): Promise<void> {
  const out = await client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: batch.map((s, i) => entry(s, i)) }));
  if ((out.Failed?.length ?? 0) > 0) {
    const first = out.Failed?.[0];
    throw new Error(`SendMessageBatch to ${queueUrl} failed for ${out.Failed?.length} entries: ${first?.Code} ${first?.Message}`);
  }
  for (const ok of out.Successful ?? []) {
    const send = batch[Number(ok.Id)];
    if (send === undefined || ok.MessageId === undefined) continue;
    stats.sent[send.queue][send.kind] += 1;
    // FIFO answers a deduplicated send with the first message's id.
    if (byMessageId.has(ok.MessageId)) stats.fifoDropped += 1;
    else byMessageId.set(ok.MessageId, send);
  }
}

/**
 * Sends every planned message in order: consecutive sends to the same queue
 * go ten per request; `concurrency` requests are in flight at once.
 */
export async function sendAll(
  client: SQSClient,
  queues: LocalQueues,
  sends: readonly PlannedSend[],
  stats: SendStats,
  byMessageId: Map<string, PlannedSend>,
  concurrency = 4,
): Promise<void> {
  const batches: PlannedSend[][] = [];
  for (const send of sends) {
    const last = batches.at(-1);
    if (last !== undefined && last.length < 10 && last[0]?.queue === send.queue) last.push(send);
    else batches.push([send]);
  }
  const urlOf = (batch: PlannedSend[]) => queues[batch[0]?.queue ?? 'payments'].url;
  const workers = Array.from({ length: concurrency }, async () => {
    for (let batch = batches.shift(); batch !== undefined; batch = batches.shift()) {
      await sendBatch(client, urlOf(batch), batch, stats, byMessageId);
    }
  });
  await Promise.all(workers);
}
