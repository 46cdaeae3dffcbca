/** The idempotency record: what the store keeps per `consumer#businessKey`. */

/** Lifecycle of a claim. FAILED is only written with `release: 'mark-failed'` and stays claimable. */
export type IdempotencyStatus = 'IN_PROGRESS' | 'COMPLETED' | 'FAILED';

/** One stored idempotency record, as the store returns it. Times are epoch ms except `expiresAt` (epoch seconds: the TTL). */
export interface IdempotencyRecord {
  /** Table key: `consumer#businessKey`, or `consumer#sha256(businessKey)` with `hashKeys`. */
  readonly id: string;
  readonly status: IdempotencyStatus;
  /** Random token of the claim that wrote this record; fences every later write. */
  readonly owner?: string;
  /** Until when the IN_PROGRESS owner may work undisturbed (epoch ms). */
  readonly leaseUntil?: number;
  /** When the record stops counting (epoch seconds; DynamoDB TTL). Checked in conditions, never relied upon for deletion. */
  readonly expiresAt: number;
  /** SHA-256 of the payload that was claimed, to flag the same key arriving with another payload. */
  readonly payloadHash?: string;
  /** How many times this key has been claimed. */
  readonly attempts: number;
  /** Queue message id / event id of the delivery that wrote the record. */
  readonly messageId?: string;
  /** When the current claim was taken (epoch ms). */
  readonly claimedAt?: number;
  /** When the record was completed (epoch ms). */
  readonly completedAt?: number;
  /** The handler's stored result (COMPLETED records, when results are stored). */
  readonly result?: unknown;
  /** The last failure's message (FAILED records). */
  readonly lastError?: string;
}

/**
 * Whether a record that refused our conditional write is that write, already applied (IN_PROGRESS after a claim,
 * COMPLETED after a completion, with our token): the SDK retries a request whose response was lost, and the retry then
 * fails its own condition against the item its first attempt wrote. The token is random per claim: only we match it.
 */
export function isOwnWrite(existing: IdempotencyRecord, token: string, status: IdempotencyStatus): boolean {
  return existing.status === status && existing.owner !== undefined && existing.owner === token;
}

/**
 * An independent copy of a handler's result, as a replay from the table gives it back: its JSON form (`undefined` for
 * a value with none, a BigInt or a cycle, which is never stored either), so one caller's mutation cannot reach another.
 */
export function replayCopy(value: unknown): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return undefined;
  }
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
}
