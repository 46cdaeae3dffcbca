/**
 * What the cases of `storeContract` share: the case shape and small steps
 * that assert as they go. Assertions are `node:assert` (no test framework).
 */
import assert from 'node:assert/strict';
import type { ClaimInput, ClaimResult, IdempotencyStore } from '../engine/store.js';
import type { ManualClock } from './clock.js';

/** What a case gets: the store under test, its clock, and a consumer name of its own. */
export interface CaseContext {
  readonly store: IdempotencyStore;
  readonly loseFirstResponse?: <T>(call: () => Promise<T>) => Promise<T>;
  readonly clock: ManualClock;
  readonly retentionMs: number;
  readonly consumer: string;
}

/** A named rule. */
export interface ContractCase {
  readonly name: string;
  readonly body: (ctx: CaseContext) => Promise<void>;
}

/** The lease every claim of the cases takes, unless a case says otherwise. */
export const LEASE_MS = 30_000;

/** A won claim. */
export type Claimed = Extract<ClaimResult, { kind: 'claimed' }>;

/** A claim of `key` under the case's consumer, with the cases' lease unless `extra` says otherwise. */
export async function claim(ctx: CaseContext, key: string, extra: Partial<ClaimInput> = {}): Promise<ClaimResult> {
  return ctx.store.claim({ consumer: ctx.consumer, key, leaseMs: LEASE_MS, ...extra });
}

/** A claim that must win. */
export async function mustClaim(ctx: CaseContext, key: string, extra: Partial<ClaimInput> = {}): Promise<Claimed> {
  const result = await claim(ctx, key, extra);
  assert.equal(result.kind, 'claimed', `a claim of the free key "${key}" must succeed`);
  return result as Claimed;
}

/** A completion by the owner that must succeed (storing `result` when given). */
export async function mustComplete(ctx: CaseContext, won: Claimed, result?: unknown): Promise<void> {
  const done = await ctx.store.complete({ id: won.id, token: won.token, ...(result === undefined ? {} : { result, storeResult: true }) });
  assert.equal(done.kind, 'ok', 'the owner completes its own claim');
}

/** The status `get` reads, if any. */
export async function status(ctx: CaseContext, id: string): Promise<string | undefined> {
  return (await ctx.store.get(id))?.status;
}

/** The named fields that are present (absent ones are left out, so `undefined` and "missing" compare alike). */
export function pick(record: object | undefined, names: readonly string[]): Record<string, unknown> | undefined {
  if (record === undefined) return undefined;
  const source = record as Record<string, unknown>;
  return Object.fromEntries(names.filter((n) => source[n] !== undefined).map((n) => [n, source[n]]));
}

/** A record as `get` returns it. */
export type StoredRecord = NonNullable<Awaited<ReturnType<IdempotencyStore['get']>>>;
