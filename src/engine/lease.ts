/**
 * Leases: how long a claim is protected from takeover. Derived from the Lambda's remaining time so a claim outlives the
 * invocation that holds it by a margin, and never lasts for ever.
 */

/** Bounds for lease computation, all in milliseconds. */
export interface LeasePolicy {
  /** Added to the remaining time: covers the clock skew and the after-phase writes. */
  readonly marginMs: number;
  /** Never shorter than this (also used when remaining time is 0). */
  readonly floorMs: number;
  /** Never longer than this (also used when remaining time is unknown). */
  readonly capMs: number;
}

/** Lease length for an invocation with `remainingMs` left: unknown time takes the cap, exhausted time the floor. */
export function leaseDuration(remainingMs: number | undefined, policy: LeasePolicy): number {
  if (remainingMs === undefined || !Number.isFinite(remainingMs)) return policy.capMs;
  const wanted = Math.max(0, remainingMs) + policy.marginMs;
  return Math.min(policy.capMs, Math.max(policy.floorMs, wanted));
}

/**
 * Whether an IN_PROGRESS claim's lease has passed at `now`: the one lease-expiry rule (`claimVerdict` decides with it;
 * the store's claim condition is its translation, `leaseUntil <= :now`). A missing `leaseUntil` never expires, as
 * that comparison is false in DynamoDB for a missing attribute; such a claim ends with its retention.
 */
export function leaseExpired(leaseUntil: number | undefined, now: number): boolean {
  return leaseUntil !== undefined && leaseUntil <= now;
}

/** Whether the record's retention (TTL, epoch seconds) has passed at `now` (epoch ms). */
export function retentionExpired(expiresAtSeconds: number, now: number): boolean {
  return expiresAtSeconds * 1000 <= now;
}

/** How the safety margin is chosen when none is given: a fraction of the time left, capped. */
export interface AutoMargin {
  readonly maxMs: number;
  readonly fraction: number;
}

/**
 * Time to keep free at the end of an invocation: the explicit margin when given, else `fraction` of the time left at
 * the start, at most `maxMs` (a fixed 5 s would stop a 3 s function, Lambda's default timeout, from starting a record).
 */
export function safetyMargin(remainingAtStartMs: number, explicitMs: number | undefined, auto: AutoMargin): number {
  if (explicitMs !== undefined) return explicitMs;
  if (!Number.isFinite(remainingAtStartMs)) return auto.maxMs;
  return Math.min(auto.maxMs, Math.max(0, remainingAtStartMs) * auto.fraction);
}

/**
 * A heartbeat setting (`claim({ heartbeat })`): `true` renews the claim every third of the lease while the handler runs;
 * `{ everyMs }` sets the period (at most a third of the lease, so two renewals can fail before the lease is at risk).
 */
export type HeartbeatSetting = boolean | { readonly everyMs: number };

/** The `lease` option of the middlewares: its bounds (ms), each optional (a heartbeat is `claim({ heartbeat })`'s). */
// An interface, not an alias: the API report and editors then show the name, not its expansion.
export interface LeaseOptions extends Partial<LeasePolicy> {}

/** Period of the heartbeat for a lease of `leaseMs`: `everyMs` when given, at most a third of the lease (at least 1 ms). */
export function heartbeatPeriod(leaseMs: number, everyMs: number | undefined): number {
  const third = Math.max(1, Math.floor(leaseMs / 3));
  return everyMs === undefined ? third : Math.max(1, Math.min(everyMs, third));
}

/**
 * Whether a holder can no longer prove it owns its claim: a whole lease has passed since the last write that set it
 * (the claim or a renewal) was sent. Renewal errors (throttling) are not a loss by themselves; here they become one.
 */
export function leaseUnproven(provenAt: number, leaseMs: number, now: number): boolean {
  return now - provenAt >= leaseMs;
}

/** A lease given to a store method must be a positive number of ms: a bad one is the caller's bug, named at once. */
export function checkLease(method: string, leaseMs: number): void {
  if (!Number.isFinite(leaseMs) || leaseMs <= 0) {
    throw new TypeError(`${method}: "leaseMs" must be a positive number of ms, got ${leaseMs}.`);
  }
}
