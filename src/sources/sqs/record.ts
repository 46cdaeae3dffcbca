/**
 * What an SQS record says about its delivery: its attempt count and its
 * ordering lane (the FIFO message group). Pure: read by the SQS adapter.
 */
import type { SQSRecord } from 'aws-lambda';

/** Receive count of a record (1 when the attribute is missing or odd). */
export function attemptOf(record: SQSRecord): number {
  const n = Number(record.attributes?.ApproximateReceiveCount);
  return Number.isInteger(n) && n > 0 ? n : 1;
}

/** FIFO queues are recognised by their ARN, as Lambda itself does. */
export function isFifo(record: SQSRecord): boolean {
  return typeof record.eventSourceARN === 'string' && record.eventSourceARN.endsWith('.fifo');
}

/** The record's FIFO message group; `undefined` on a standard queue. */
export function fifoGroup(record: SQSRecord): string | undefined {
  return isFifo(record) ? (record.attributes?.MessageGroupId ?? '') : undefined;
}
