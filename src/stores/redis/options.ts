/**
 * Options of `RedisIdempotencyStore` and `withRedisFilter`: types, defaults
 * (one object each) and validation, checked once at construction so a typo
 * is a `TypeError` naming the option at cold start.
 */
import { systemClock, type Clock } from '../../engine/clock.js';
import { checkOptions, definedOnly, hasMethods, is, isMsIn, MAX_TIMER_MS, type OptionRules } from '../../engine/options.js';
import type { ReleaseMode } from '../dynamodb/options.js';
import type { RedisConnection } from './connection.js';

/** Options of {@link RedisIdempotencyStore}. */
export interface RedisIdempotencyStoreOptions {
  /** Where to send commands (see {@link RedisConnection} for the one-line client adapters). */
  readonly redis: RedisConnection;
  /** Prepended to every record id to make the Redis key. Default `'eo:r:'` (the filter's markers use `'eo:m:'`, so the two never share a key). */
  readonly keyPrefix?: string;
  /** How long a COMPLETED record keeps deduplicating, ms (its key's PX). Default 24 h. */
  readonly retentionMs?: number;
  /** Use SHA-256 of the business key in the record id (as the DynamoDB store's option). Default false. */
  readonly hashKeys?: boolean;
  /** `'delete'` (default) removes a failed claim; `'mark-failed'` keeps it as FAILED for the retention. */
  readonly release?: ReleaseMode;
  /** Source of time (epoch ms) for leases and retention. Default the system clock. */
  readonly clock?: Clock;
}

/** Options of `RedisIdempotencyStore` after defaults. */
export type ResolvedRedisStoreOptions = Required<RedisIdempotencyStoreOptions>;

/** Defaults of the Redis store's optional options. */
export const redisStoreDefaults = Object.freeze({
  keyPrefix: 'eo:r:',
  retentionMs: 24 * 60 * 60 * 1000,
  hashKeys: false,
  release: 'delete' as ReleaseMode,
  clock: systemClock as Clock,
});

// A timeout past MAX_TIMER_MS would fire after 1 ms and time every Redis call out.
const timerMs = {
  expected: `a positive number of ms, at most ${MAX_TIMER_MS} (the longest a timer can wait)`,
  check: (v: unknown) => isMsIn(v, true, MAX_TIMER_MS),
};
const redisRule = { ...hasMethods('a RedisConnection (an object with sendCommand(args, key))', 'sendCommand'), required: true };
const keyPrefixRule = { expected: 'a string', check: (v: unknown) => typeof v === 'string' };

const storeRules: OptionRules = {
  redis: redisRule,
  keyPrefix: keyPrefixRule,
  retentionMs: is.retentionMs,
  hashKeys: is.boolean,
  release: is.oneOf('delete', 'mark-failed'),
  clock: is.clock,
};

/** @throws TypeError naming the first unknown, missing or wrongly typed option. */
export function resolveRedisStoreOptions(options: unknown): ResolvedRedisStoreOptions {
  checkOptions('RedisIdempotencyStore', options, storeRules);
  return { ...redisStoreDefaults, ...definedOnly(options as RedisIdempotencyStoreOptions) };
}

/** Options of `withRedisFilter`. */
export interface RedisFilterOptions {
  /** Where to send commands (see {@link RedisConnection}). */
  readonly redis: RedisConnection;
  /** Prepended to every record id to make the marker's key. Default `'eo:m:'`. */
  readonly keyPrefix?: string;
  /**
   * Longest wait for any one Redis command, ms; past it the call counts as a
   * timeout and the inner store decides. Default 100; at most 2^31 - 1 (what a timer can wait).
   */
  readonly timeoutMs?: number;
  /** Completed records larger than this (marker bytes, mostly a stored result) are not cached. Default 64 KiB. */
  readonly maxMarkerBytes?: number;
  /** Source of time (epoch ms) to judge markers; give the inner store's. Default the system clock. */
  readonly clock?: Clock;
  /** Told of every Redis error or timeout the filter swallowed (for logs). Default: none. */
  readonly onError?: (error: unknown, operation: string) => void;
}

/** Options of `withRedisFilter` after defaults (`onError` has none). */
export type ResolvedRedisFilterOptions = Required<Omit<RedisFilterOptions, 'onError'>> & Pick<RedisFilterOptions, 'onError'>;

/** Defaults of the filter's optional options. */
export const redisFilterDefaults = Object.freeze({
  keyPrefix: 'eo:m:',
  timeoutMs: 100,
  maxMarkerBytes: 64 * 1024,
  clock: systemClock as Clock,
});

const filterRules: OptionRules = {
  redis: redisRule,
  keyPrefix: keyPrefixRule,
  timeoutMs: timerMs,
  maxMarkerBytes: is.positiveInt,
  clock: is.clock,
  onError: is.fn,
};

/** @throws TypeError naming the first unknown, missing or wrongly typed option. */
export function resolveRedisFilterOptions(options: unknown): ResolvedRedisFilterOptions {
  checkOptions('withRedisFilter', options, filterRules);
  return { ...redisFilterDefaults, ...definedOnly(options as RedisFilterOptions) };
}
