/**
 * The claim strategy on Redis or Valkey alone. I/O only: each method is one
 * Lua script (one atomic, conditional round trip); the rules it applies are
 * the core's (`claimVerdict`, `isOwnWrite`, `isLive`).
 */
import { randomUUID } from 'node:crypto';
import { claimVerdict } from '../../engine/claim.js';
import { toEpochSeconds } from '../../engine/clock.js';
import { EffectivelyOnceError, ItemTooLargeError } from '../../engine/errors.js';
import { recordId } from '../../engine/keys.js';
import { checkLease } from '../../engine/lease.js';
import { isOwnWrite, type IdempotencyRecord } from '../../engine/record.js';
import { encodeResult, errorText, isLive } from '../dynamodb/records.js';
import type {
  ClaimInput,
  ClaimResult,
  CompleteInput,
  FencedWriteResult,
  IdempotencyStore,
  ReleaseInput,
  RenewInput,
} from '../../engine/store.js';
import { replyFields, type LuaScript } from './connection.js';
import { recordFromFields } from './fields.js';
import { resolveRedisStoreOptions, type RedisIdempotencyStoreOptions, type ResolvedRedisStoreOptions } from './options.js';
import { claimScript, completeScript, markFailedScript, readScript, releaseScript, renewScript } from './scripts.js';

/**
 * Largest stored result, in bytes of its JSON text: DynamoDB's item limit, so
 * a result that fits one store fits the other, and far below what would make
 * a Redis command slow for everyone else on the server. A larger one is an
 * `ItemTooLargeError` (that record fails alone).
 */
export const MAX_REDIS_RESULT_BYTES = 400 * 1024;

/**
 * Idempotency records in Redis or Valkey, for the claim strategy. A claim is
 * `SET NX PX`-like (a script, so that it also takes over an expired lease and
 * returns the record that refused it in the same round trip); completion and
 * release are fenced on the owner token; a COMPLETED record lives for the
 * retention (its key's PX), an IN_PROGRESS one for its lease.
 *
 * Redis is the only copy: a restart without persistence, a failover that
 * loses writes, an eviction or a FLUSHALL forgets COMPLETED records, and a
 * redelivered message then runs again. Use `withRedisFilter` over the
 * DynamoDB store when that is not acceptable (see docs/redis.md).
 *
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import { RedisIdempotencyStore } from 'effectively-once';
 *
 * const client = await createClient({ url: 'redis://127.0.0.1:6379' }).connect();
 * const store = new RedisIdempotencyStore({ redis: { sendCommand: (args) => client.sendCommand([...args]) } });
 * const claim = await store.claim({ consumer: 'emails', key: 'welcome-42', leaseMs: 30_000 });
 * if (claim.kind === 'claimed') await store.complete({ id: claim.id, token: claim.token });
 * ```
 */
export class RedisIdempotencyStore implements IdempotencyStore {
  readonly #options: ResolvedRedisStoreOptions;

  /** @throws TypeError naming the first unknown, missing or wrongly typed option. */
  constructor(options: RedisIdempotencyStoreOptions) {
    this.#options = resolveRedisStoreOptions(options);
  }

  /** `consumer#key`, with the key replaced by its SHA-256 when `hashKeys` is set. */
  recordId(consumer: string, key: string): string {
    return recordId(consumer, key, this.#options.hashKeys);
  }

  /** Claims the key as IN_PROGRESS for `leaseMs`, or returns the record that prevents it; one round trip. */
  async claim(input: ClaimInput): Promise<ClaimResult> {
    checkLease('claim', input.leaseMs);
    const id = this.recordId(input.consumer, input.key);
    const token = randomUUID();
    const { clock, retentionMs } = this.#options;
    const now = clock.now();
    const leaseMs = Math.ceil(input.leaseMs);
    // expiresAt as in DynamoDB (the later of retention and lease end); the key
    // itself lives only for the lease: once it has passed, the claim is free anyway.
    const args = [
      String(now),
      token,
      String(now + leaseMs),
      String(toEpochSeconds(now + Math.max(retentionMs, leaseMs))),
      String(leaseMs),
      optional(input.payloadHash),
      optional(input.messageId),
    ];
    const { wrote, record } = await this.#run(claimScript, id, args);
    if (record === undefined) throw new EffectivelyOnceError(`The claim of ${id} returned no record.`, { key: input.key });
    if (wrote || isOwnWrite(record, token, 'IN_PROGRESS')) return { kind: 'claimed', id, token, record };
    // The script judged the record at the same `now`, so 'free' cannot come back; were it to, a retry is the safe answer.
    if (claimVerdict(record, now) === 'duplicate') return { kind: 'completed', id, existing: record, fromCache: false };
    return { kind: 'in-progress', id, existing: record };
  }

  /**
   * Marks the claim COMPLETED for the retention, fenced on its owner token.
   * @throws ItemTooLargeError when the stored result's JSON exceeds {@link MAX_REDIS_RESULT_BYTES} (the claim stays IN_PROGRESS).
   */
  async complete(input: CompleteInput): Promise<FencedWriteResult> {
    const { retentionMs, clock } = this.#options;
    // The same JSON text the DynamoDB store keeps (`undefined` stores nothing and replays as undefined).
    const encoded = input.storeResult === true ? encodeResult(input.result)['j'] : undefined;
    const text = typeof encoded === 'string' ? encoded : undefined;
    const size = text === undefined ? 0 : Buffer.byteLength(text);
    if (size > MAX_REDIS_RESULT_BYTES) {
      throw new ItemTooLargeError(
        `The result to store on ${input.id} is ${size} bytes of JSON; the Redis store keeps at most ${MAX_REDIS_RESULT_BYTES}. Store a smaller result or none.`,
        size,
        MAX_REDIS_RESULT_BYTES,
      );
    }
    const now = clock.now();
    const args = [input.token, String(now), String(toEpochSeconds(now + retentionMs)), String(Math.ceil(retentionMs)), optional(text)];
    const { wrote, record } = await this.#run(completeScript, input.id, args);
    // A retried completion whose first attempt landed is done, and by us.
    return fenced(wrote || (record !== undefined && isOwnWrite(record, input.token, 'COMPLETED')), record);
  }

  /** Gives the claim up (deleted, or FAILED with `release: 'mark-failed'`), fenced on its owner token. */
  async release(input: ReleaseInput): Promise<FencedWriteResult> {
    const { retentionMs, clock, release } = this.#options;
    if (release === 'delete') {
      const { wrote, record } = await this.#run(releaseScript, input.id, [input.token]);
      return fenced(wrote, record);
    }
    const now = clock.now();
    const lastError = errorText(input.error ?? 'released without an error');
    const args = [input.token, lastError, String(toEpochSeconds(now + retentionMs)), String(Math.ceil(retentionMs))];
    const { wrote, record } = await this.#run(markFailedScript, input.id, args);
    return fenced(wrote, record);
  }

  /** Extends the claim's lease to now + `leaseMs` (the heartbeat), fenced on its owner token; the key lives for the new lease. */
  async renew(input: RenewInput): Promise<FencedWriteResult> {
    checkLease('renew', input.leaseMs);
    const { clock, retentionMs } = this.#options;
    const now = clock.now();
    const leaseMs = Math.ceil(input.leaseMs);
    const args = [input.token, String(now + leaseMs), String(toEpochSeconds(now + Math.max(retentionMs, leaseMs))), String(leaseMs)];
    const { wrote, record } = await this.#run(renewScript, input.id, args);
    return fenced(wrote, record);
  }

  /** Reads a record; one past its retention (by the injected clock) counts as absent. */
  async get(id: string): Promise<IdempotencyRecord | undefined> {
    const reply = await readScript.run(this.#options.redis, this.#key(id), []);
    const record = recordFromFields(id, replyFields(reply));
    return record !== undefined && isLive(record, this.#options.clock.now()) ? record : undefined;
  }

  #key(id: string): string {
    return `${this.#options.keyPrefix}${id}`;
  }

  /** Whether the script wrote, and the record it wrote or that refused it. */
  async #run(script: LuaScript, id: string, args: readonly string[]): Promise<{ wrote: boolean; record: IdempotencyRecord | undefined }> {
    const reply = await script.run(this.#options.redis, this.#key(id), args);
    if (!Array.isArray(reply) || reply.length !== 2) {
      throw new EffectivelyOnceError(`Unexpected reply from the Redis script for ${id}: ${String(JSON.stringify(reply)).slice(0, 200)}`);
    }
    return { wrote: Number(reply[0]) === 1, record: recordFromFields(id, replyFields(reply[1])) };
  }
}

function optional(value: string | undefined): string {
  return value === undefined ? '' : `=${value}`;
}

/** A fenced write's answer: `ok` with the record it wrote, or `lease-lost` with the record that refused it. */
function fenced(wrote: boolean, record: IdempotencyRecord | undefined): FencedWriteResult {
  if (wrote) return record === undefined ? { kind: 'ok' } : { kind: 'ok', record };
  return record === undefined ? { kind: 'lease-lost' } : { kind: 'lease-lost', current: record };
}
