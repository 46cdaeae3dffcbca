/**
 * Public shapes of the SQS queue simulator (options, results, counters).
 */
import type { SQSMessageAttributes } from 'aws-lambda';
import type { Clock } from '../../src/engine/clock.js';
import type { SqsQueueSimulator } from './queue.js';

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
