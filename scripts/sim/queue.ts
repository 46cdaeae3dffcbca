/**
 * An in-memory SQS queue with the semantics idempotency depends on: messages
 * are redelivered after the visibility timeout unless deleted, receive counts
 * grow, poison messages move to a DLQ, FIFO groups are delivered in order and
 * locked while in flight, and FIFO deduplicates sends for 5 minutes. Time
 * comes from an injectable clock, so tests move it instead of sleeping.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import type { Clock } from '../../src/engine/clock.js';
import { systemClock } from '../../src/engine/clock.js';
import { simDefaults } from './defaults.js';
import { newReceiptHandle, nextSequenceNumber, sqsRecord } from '../../src/testing/events.js';
import { checkOptions, is } from '../../src/engine/options.js';
import type { OptionRules } from '../../src/engine/options.js';
import { clockRule, intIn } from '../../src/testing/rules.js';

/** Options of {@link SqsQueueSimulator}. */
export interface SqsQueueOptions {
  /** Queue name (default `test-queue`, or `test-queue.fifo` when `fifo`). FIFO names end in `.fifo`. */
  readonly name?: string;
  /** FIFO queue (default: true when the name ends in `.fifo`). */
  readonly fifo?: boolean;
  /** Visibility timeout in ms (default 30 000, SQS's default). */
  readonly visibilityTimeoutMs?: number;
  /** Receives after which a message moves to `deadLetterQueue` (redrive policy); needs `deadLetterQueue`. */
  readonly maxReceiveCount?: number;
  /** The DLQ; same type (standard/FIFO) as this queue, as SQS requires. Needs `maxReceiveCount`. */
  readonly deadLetterQueue?: SqsQueueSimulator;
  /** FIFO only: deduplicate by SHA-256 of the body when no deduplication id is given. */
  readonly contentBasedDeduplication?: boolean;
  readonly clock?: Clock;
  readonly region?: string;
  readonly accountId?: string;
}

/** Options of {@link SqsQueueSimulator.send}. */
export interface SendOptions {
  /** Message group; required on FIFO queues. */
  readonly groupId?: string;
  /** FIFO deduplication id; required on FIFO unless content-based deduplication is on. */
  readonly deduplicationId?: string;
  readonly messageAttributes?: SQSMessageAttributes;
}

/** What {@link SqsQueueSimulator.send} accepted. */
export interface SendResult {
  /** Id of the message; for a deduplicated send, the id of the message it duplicates (as SQS answers). */
  readonly messageId: string;
  /** FIFO sequence number of the stored message. */
  readonly sequenceNumber: string | undefined;
  /** True when a FIFO send fell in the deduplication window and was dropped. */
  readonly deduplicated: boolean;
}

/** Counters since the queue was created. */
export interface QueueStats {
  /** Messages accepted and enqueued (deduplicated sends not included). */
  readonly sent: number;
  /** FIFO sends dropped by the deduplication window. */
  readonly deduplicated: number;
  /** Deliveries (a message received three times counts three). */
  readonly received: number;
  readonly deleted: number;
  /** Messages moved to the DLQ. */
  readonly redriven: number;
}

/** A read-only view of a stored message, for assertions. */
export interface QueuedMessage {
  readonly messageId: string;
  readonly body: string;
  readonly groupId: string | undefined;
  readonly receiveCount: number;
  readonly inFlight: boolean;
  /** ARN of the queue it was redriven from, for messages in a DLQ. */
  readonly deadLetterSourceArn: string | undefined;
}

interface StoredMessage {
  readonly messageId: string;
  readonly body: string;
  readonly groupId: string | undefined;
  readonly deduplicationId: string | undefined;
  readonly sequenceNumber: string | undefined;
  readonly sentAt: number;
  readonly messageAttributes: SQSMessageAttributes;
  readonly deadLetterSourceArn: string | undefined;
  receiveCount: number;
  firstReceivedAt: number | undefined;
  visibleAt: number;
  receiptHandle: string | undefined;
}

const owner = 'SqsQueueSimulator';

const queueRules: OptionRules = {
  name: is.nonEmptyString,
  fifo: is.boolean,
  visibilityTimeoutMs: intIn(0, 12 * 3_600_000),
  maxReceiveCount: intIn(1, 1000),
  // Checked lazily: the class is defined below.
  deadLetterQueue: { expected: 'an SqsQueueSimulator', check: (v: unknown) => v instanceof SqsQueueSimulator },
  contentBasedDeduplication: is.boolean,
  clock: clockRule,
  region: is.nonEmptyString,
  accountId: is.nonEmptyString,
};

const sendRules: OptionRules = {
  groupId: is.nonEmptyString,
  deduplicationId: is.nonEmptyString,
  messageAttributes: is.object,
};

const receiveRules: OptionRules = { maxMessages: intIn(1, 10) };

/** Cross-option checks; each option's own type and range are checked by `queueRules`. */
function checkRedrive(options: SqsQueueOptions, fifo: boolean): void {
  const { deadLetterQueue, maxReceiveCount } = options;
  if ((deadLetterQueue === undefined) !== (maxReceiveCount === undefined)) {
    const missing = deadLetterQueue === undefined ? 'deadLetterQueue' : 'maxReceiveCount';
    throw new TypeError(
      `${owner}: option "${missing}" is required when a redrive policy is set (both "deadLetterQueue" and "maxReceiveCount").`,
    );
  }
  if (deadLetterQueue !== undefined && deadLetterQueue.fifo !== fifo) {
    throw new TypeError(`${owner}: option "deadLetterQueue" must be a ${fifo ? 'FIFO' : 'standard'} queue like the source queue.`);
  }
}

function resolveName(options: SqsQueueOptions): { name: string; fifo: boolean } {
  const fifo = options.fifo ?? options.name?.endsWith('.fifo') ?? false;
  const name = options.name ?? `${simDefaults.queueName}${fifo ? '.fifo' : ''}`;
  if (fifo !== name.endsWith('.fifo'))
    throw new TypeError(`${owner}: option "name" must end in ".fifo" exactly when the queue is FIFO (got "${name}").`);
  return { name, fifo };
}

/**
 * An in-memory SQS queue (standard or FIFO).
 *
 * @example
 * ```ts
 * import { ManualClock } from 'effectively-once/testing';
 * import { SqsQueueSimulator } from './index.js';
 * const clock = new ManualClock();
 * const dlq = new SqsQueueSimulator({ name: 'payments-dlq.fifo', clock });
 * const queue = new SqsQueueSimulator({ name: 'payments.fifo', clock, maxReceiveCount: 3, deadLetterQueue: dlq });
 * queue.send(JSON.stringify({ orderNo: 'o-1' }), { groupId: 'o-1', deduplicationId: 'o-1' });
 * const [record] = queue.receive(10);
 * if (record !== undefined) queue.delete(record.receiptHandle);
 * ```
 */
export class SqsQueueSimulator {
  readonly name: string;
  readonly arn: string;
  readonly fifo: boolean;
  readonly visibilityTimeoutMs: number;
  readonly maxReceiveCount: number | undefined;
  readonly deadLetterQueue: SqsQueueSimulator | undefined;
  readonly clock: Clock;
  readonly #contentBasedDeduplication: boolean;
  // Insertion-ordered: iteration order is send order, which FIFO delivery relies on.
  readonly #messages = new Map<string, StoredMessage>();
  readonly #handles = new Map<string, string>();
  readonly #dedup = new Map<string, { readonly messageId: string; readonly sequenceNumber: string | undefined; readonly until: number }>();
  readonly #stats = { sent: 0, deduplicated: 0, received: 0, deleted: 0, redriven: 0 };

  constructor(options: SqsQueueOptions = {}) {
    checkOptions(owner, options, queueRules);
    const { name, fifo } = resolveName(options);
    checkRedrive(options, fifo);
    if (options.contentBasedDeduplication === true && !fifo)
      throw new TypeError(`${owner}: option "contentBasedDeduplication" is only valid for FIFO queues.`);
    this.name = name;
    this.fifo = fifo;
    this.arn = `arn:aws:sqs:${options.region ?? simDefaults.region}:${options.accountId ?? simDefaults.accountId}:${name}`;
    this.visibilityTimeoutMs = options.visibilityTimeoutMs ?? simDefaults.visibilityTimeoutMs;
    this.maxReceiveCount = options.maxReceiveCount;
    this.deadLetterQueue = options.deadLetterQueue;
    this.clock = options.clock ?? systemClock;
    this.#contentBasedDeduplication = options.contentBasedDeduplication ?? false;
  }

  /** Sends a message. Every accepted send gets a new message id; a FIFO duplicate within 5 minutes is dropped. */
  send(body: unknown, options: SendOptions = {}): SendResult {
    checkOptions(`${owner}.send`, options, sendRules);
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    if (text === undefined) throw new TypeError(`${owner}.send: "body" cannot be JSON-encoded.`);
    const deduplicationId = this.#deduplicationId(text, options);
    const now = this.clock.now();
    const previous = deduplicationId === undefined ? undefined : this.#dedup.get(deduplicationId);
    if (previous !== undefined && previous.until > now) {
      this.#stats.deduplicated += 1;
      return { messageId: previous.messageId, sequenceNumber: previous.sequenceNumber, deduplicated: true };
    }
    const message = this.#store({
      body: text,
      groupId: options.groupId,
      deduplicationId,
      messageAttributes: options.messageAttributes ?? {},
      sentAt: now,
      deadLetterSourceArn: undefined,
    });
    if (deduplicationId !== undefined) {
      this.#dedup.set(deduplicationId, {
        messageId: message.messageId,
        sequenceNumber: message.sequenceNumber,
        until: now + simDefaults.deduplicationWindowMs,
      });
    }
    this.#stats.sent += 1;
    return { messageId: message.messageId, sequenceNumber: message.sequenceNumber, deduplicated: false };
  }

  /**
   * Receives up to `maxMessages` (1..10) visible messages and hides them for
   * the visibility timeout. FIFO: in order within a group, skipping groups
   * with a message in flight. Messages past `maxReceiveCount` move to the DLQ instead.
   */
  receive(maxMessages = 10): SQSRecord[] {
    checkOptions(`${owner}.receive`, { maxMessages }, receiveRules);
    const now = this.clock.now();
    const locked = this.fifo ? this.#lockedGroups(now) : new Set<string>();
    const batch: SQSRecord[] = [];
    for (const message of [...this.#messages.values()]) {
      if (batch.length >= maxMessages) break;
      if (message.visibleAt > now || (message.groupId !== undefined && locked.has(message.groupId))) continue;
      if (this.maxReceiveCount !== undefined && message.receiveCount >= this.maxReceiveCount) {
        this.#redrive(message);
        continue;
      }
      batch.push(this.#deliver(message, now));
    }
    return batch;
  }

  /**
   * Deletes the message received with `receiptHandle`. Returns false, as SQS
   * silently does, when the handle is not the message's latest one, when the
   * message is already gone, or (FIFO) when its visibility timeout has expired.
   */
  delete(receiptHandle: string): boolean {
    const messageId = this.#handles.get(receiptHandle);
    const message = messageId === undefined ? undefined : this.#messages.get(messageId);
    if (message === undefined || messageId === undefined) return false;
    if (this.fifo && message.visibleAt <= this.clock.now()) return false;
    this.#messages.delete(messageId);
    this.#handles.delete(receiptHandle);
    this.#stats.deleted += 1;
    return true;
  }

  /** Messages waiting to be received (not in flight). */
  depth(): number {
    const now = this.clock.now();
    return [...this.#messages.values()].filter((m) => m.visibleAt <= now).length;
  }

  /** Messages received and still hidden by their visibility timeout. */
  inFlight(): number {
    return this.size() - this.depth();
  }

  /** All messages stored (waiting + in flight). */
  size(): number {
    return this.#messages.size;
  }

  /** Earliest time an in-flight message becomes visible again, or undefined when none is in flight. */
  nextVisibleAt(): number | undefined {
    const now = this.clock.now();
    const times = [...this.#messages.values()].map((m) => m.visibleAt).filter((t) => t > now);
    return times.length === 0 ? undefined : Math.min(...times);
  }

  /** A snapshot of the stored messages in queue order. */
  messages(): QueuedMessage[] {
    const now = this.clock.now();
    return [...this.#messages.values()].map((m) => ({
      messageId: m.messageId,
      body: m.body,
      groupId: m.groupId,
      receiveCount: m.receiveCount,
      inFlight: m.visibleAt > now,
      deadLetterSourceArn: m.deadLetterSourceArn,
    }));
  }

  /** Counters since creation. */
  stats(): QueueStats {
    return { ...this.#stats };
  }

  #deduplicationId(body: string, options: SendOptions): string | undefined {
    if (!this.fifo) {
      if (options.deduplicationId !== undefined)
        throw new TypeError(`${owner}.send: option "deduplicationId" is only valid for FIFO queues.`);
      return undefined;
    }
    if (options.groupId === undefined) throw new TypeError(`${owner}.send: option "groupId" is required on a FIFO queue.`);
    if (options.deduplicationId !== undefined) return options.deduplicationId;
    if (this.#contentBasedDeduplication) return createHash('sha256').update(body).digest('hex');
    throw new TypeError(`${owner}.send: option "deduplicationId" is required on a FIFO queue without content-based deduplication.`);
  }

  #store(
    fields: Pick<StoredMessage, 'body' | 'groupId' | 'deduplicationId' | 'messageAttributes' | 'sentAt' | 'deadLetterSourceArn'> & {
      readonly messageId?: string;
      readonly receiveCount?: number;
    },
  ): StoredMessage {
    const message: StoredMessage = {
      ...fields,
      messageId: fields.messageId ?? randomUUID(),
      sequenceNumber: this.fifo ? nextSequenceNumber() : undefined,
      receiveCount: fields.receiveCount ?? 0,
      firstReceivedAt: undefined,
      visibleAt: fields.sentAt,
      receiptHandle: undefined,
    };
    this.#messages.set(message.messageId, message);
    return message;
  }

  #lockedGroups(now: number): Set<string> {
    const locked = new Set<string>();
    for (const m of this.#messages.values()) if (m.groupId !== undefined && m.visibleAt > now) locked.add(m.groupId);
    return locked;
  }

  #deliver(message: StoredMessage, now: number): SQSRecord {
    if (message.receiptHandle !== undefined) this.#handles.delete(message.receiptHandle);
    message.receiveCount += 1;
    message.firstReceivedAt ??= now;
    message.visibleAt = now + this.visibilityTimeoutMs;
    message.receiptHandle = newReceiptHandle();
    this.#handles.set(message.receiptHandle, message.messageId);
    this.#stats.received += 1;
    return sqsRecord({
      body: message.body,
      messageId: message.messageId,
      receiptHandle: message.receiptHandle,
      queueArn: this.arn,
      ...(message.groupId === undefined ? {} : { groupId: message.groupId }),
      ...(message.deduplicationId === undefined ? {} : { deduplicationId: message.deduplicationId }),
      ...(message.sequenceNumber === undefined ? {} : { sequenceNumber: message.sequenceNumber }),
      receiveCount: message.receiveCount,
      sentAt: message.sentAt,
      firstReceivedAt: message.firstReceivedAt,
      messageAttributes: message.messageAttributes,
      ...(message.deadLetterSourceArn === undefined ? {} : { attributes: { DeadLetterQueueSourceArn: message.deadLetterSourceArn } }),
    });
  }

  #redrive(message: StoredMessage): void {
    const dlq = this.deadLetterQueue;
    if (dlq === undefined) return;
    this.#messages.delete(message.messageId);
    if (message.receiptHandle !== undefined) this.#handles.delete(message.receiptHandle);
    // SQS keeps the message id, body, attributes and receive count when it redrives.
    dlq.#store({ ...message, deadLetterSourceArn: this.arn });
    this.#stats.redriven += 1;
  }
}
