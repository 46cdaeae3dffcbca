/**
 * What ended in the dead-letter queues, read without consuming it (fauxqs
 * inspection), each message matched against the planned poison and given
 * the reason the middleware last logged for it.
 */
import type { FauxqsServer } from 'fauxqs';
import type { LocalQueue } from './queues.js';
import type { PoisonMessage } from './workload.js';

/** One message found in a DLQ. */
export interface DlqEntry {
  readonly messageId: string;
  /** The body, cut to 80 characters. */
  readonly body: string;
  /** The business key in the body (`orderNo` or `notificationId`), when it has one. */
  readonly key: string | undefined;
  /** The planned defect when this is poison; `undefined` means a valid message was dead-lettered. */
  readonly defect: string | undefined;
  /** The last error logged for this message id, or the failure record's error. */
  readonly reason: string;
  readonly receiveCount: number;
  /** Sent by the middleware as a permanent failure (`deadLetter`), not redriven after maxReceiveCount. */
  readonly permanent?: boolean;
  /** For a permanent failure: the id of the source message it copies (`eo-message-id`). */
  readonly sourceMessageId?: string;
  /**
   * For a valid message only: whether its business effect was applied anyway
   * (then this copy is a duplicate that ran out of receives, noise for an
   * operator but no loss) or not (a lost event).
   */
  readonly effectApplied?: boolean;
}

/** The fields of a queued message the report reads (fauxqs does not export its message type). */
export interface QueuedMessage {
  readonly messageId: string;
  readonly body: string;
  readonly approximateReceiveCount: number;
  readonly messageAttributes?: Readonly<Record<string, { readonly StringValue?: string }>>;
}

/** Every message in a queue: ready, delayed, and received-but-not-deleted. */
function queueMessages(server: FauxqsServer, queue: LocalQueue): QueuedMessage[] {
  const state = server.inspectQueue(queue.name);
  if (state === undefined) throw new Error(`Queue ${queue.name} disappeared.`);
  const { ready, delayed, inflight } = state.messages;
  return [...ready, ...delayed, ...inflight.map((i) => i.message)];
}

/** How many messages a queue still holds. */
export function depth(server: FauxqsServer, queue: LocalQueue): number {
  const state = server.inspectQueue(queue.name);
  if (state === undefined) return 0;
  const { ready, delayed, inflight } = state.messages;
  return ready.length + delayed.length + inflight.length;
}

const cut = (text: string): string => (text.length > 80 ? `${text.slice(0, 77)}...` : text);

/** The DLQ of an SQS-consumed queue, each message matched to the poison planned for that queue. */
export function readSqsDlq(
  server: FauxqsServer,
  dlq: LocalQueue,
  poison: readonly PoisonMessage[],
  lastLogged: (messageId: string) => string | undefined,
  applied: (body: string) => boolean,
): DlqEntry[] {
  return queueMessages(server, dlq).map((m) => {
    const defect = poison.find((p) => p.body === m.body)?.defect;
    // A copy the middleware sent is a new message: its reason travels in its attributes, not under its id.
    const name = m.messageAttributes?.['eo-error-name']?.StringValue;
    const permanent =
      name === undefined ? undefined : `sent as permanent: ${name}: ${m.messageAttributes?.['eo-reason']?.StringValue ?? ''}`;
    return {
      messageId: m.messageId,
      body: cut(m.body),
      key: businessKey(m.body),
      defect,
      reason: permanent ?? lastLogged(m.messageId) ?? 'no log line (the handler threw before the middleware logged)',
      receiveCount: m.approximateReceiveCount,
      ...(permanent === undefined ? {} : { permanent: true, sourceMessageId: m.messageAttributes?.['eo-message-id']?.StringValue ?? '' }),
      ...(defect === undefined ? { effectApplied: applied(m.body) } : {}),
    };
  });
}

/** A field of a JSON body, or undefined when the body is not a JSON object. */
export function bodyField(body: string, name: string): unknown {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
  } catch {
    return undefined;
  }
}

function businessKey(body: string): string | undefined {
  const key = bodyField(body, 'notificationId') ?? bodyField(body, 'orderNo');
  return typeof key === 'string' ? key : undefined;
}

interface FailureRecordShape {
  readonly requestPayload?: { readonly detail?: { readonly orderNo?: unknown } };
  readonly requestContext?: { readonly condition?: unknown; readonly approximateInvokeCount?: unknown };
  readonly responsePayload?: { readonly errorType?: unknown; readonly errorMessage?: unknown };
}

/** The async on-failure destination: Lambda invocation records; none of them is planned poison. */
export function readFailureDestination(server: FauxqsServer, queue: LocalQueue): DlqEntry[] {
  return queueMessages(server, queue).map((m) => {
    const record = JSON.parse(m.body) as FailureRecordShape;
    const error = record.responsePayload;
    const orderNo = record.requestPayload?.detail?.orderNo;
    return {
      messageId: m.messageId,
      body: cut(`OrderPaid ${String(orderNo)}`),
      key: typeof orderNo === 'string' ? orderNo : undefined,
      defect: undefined,
      reason: `${String(record.requestContext?.condition)} after ${String(record.requestContext?.approximateInvokeCount)} attempts: ${String(error?.errorType)}: ${String(error?.errorMessage)}`,
      receiveCount: Number(record.requestContext?.approximateInvokeCount ?? 0),
    };
  });
}
