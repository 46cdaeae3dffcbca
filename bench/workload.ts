/**
 * The workload both contenders get: SQS batches of orders keyed by `orderNo`
 * (a business key in the body, not the message id), some of them
 * re-deliveries of keys already completed.
 */
import { randomUUID } from 'node:crypto';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { sqsEvent, sqsRecord } from '../src/testing/index.js';

/** The message body. */
export interface Order {
  readonly orderNo: string;
  readonly customerId: string;
  readonly amount: number;
}

/** Unique order numbers for one bench run. */
export class KeySource {
  readonly #run = randomUUID().slice(0, 8);
  #next = 0;

  next(): string {
    this.#next += 1;
    return `o-${this.#run}-${this.#next}`;
  }
}

/**
 * The body for an order number. Deterministic, so a re-delivery carries the
 * same payload (ours checks the payload hash under a key by default).
 */
export function orderBody(orderNo: string): Order {
  const n = Number.parseInt(orderNo.slice(orderNo.lastIndexOf('-') + 1), 10);
  return { orderNo, customerId: `c-${n % 97}`, amount: 100 + (n % 900) };
}

/** A delivery of `orderNo`: a new message id every time, as SQS gives a re-sent event. */
export function orderRecord(orderNo: string): SQSRecord {
  return sqsRecord({ body: orderBody(orderNo) });
}

/** A batch delivering each of `keys` once. */
export function orderEvent(keys: readonly string[]): SQSEvent {
  return sqsEvent(keys.map(orderRecord));
}

/** The keys of one round: `primed` are completed before the measured batch; `batch` is measured. */
export interface RoundKeys {
  readonly primed: readonly string[];
  readonly batch: readonly string[];
  /** Records of `batch` that are new (their effect must run). */
  readonly fresh: number;
}

/**
 * Keys for one round: `size` records, of which a `duplicateShare` (0..1)
 * repeat keys completed beforehand, spread evenly through the batch.
 */
export function roundKeys(source: KeySource, size: number, duplicateShare: number): RoundKeys {
  const primed: string[] = [];
  const batch: string[] = [];
  for (let i = 0; i < size; i += 1) {
    const key = source.next();
    // Bresenham-style spread: record i is a duplicate when the running share crosses an integer.
    const duplicate = Math.floor((i + 1) * duplicateShare) > Math.floor(i * duplicateShare);
    if (duplicate) primed.push(key);
    batch.push(key);
  }
  return { primed, batch, fresh: batch.length - primed.length };
}
