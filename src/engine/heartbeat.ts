/**
 * The lease heartbeat (`claim({ heartbeat })`): while a claimed record's handler runs, its lease is renewed every period
 * (the store's fenced `renew`). A refused renewal, or none that succeeded for a whole lease, aborts the record's
 * `AbortSignal` with a `LeaseLostError`; a renewal error alone is retried at the next tick.
 */
import { LeaseLostError } from './errors.js';
import type { HeldClaim } from './finish.js';
import { heartbeatPeriod, leaseUnproven, type HeartbeatSetting } from './lease.js';
import { isMsIn, isPlainObject, MAX_TIMER_MS } from './options.js';
import { isRenewableStore, type IdempotencyStore, type RenewableIdempotencyStore } from './store.js';

/** What the heartbeat of one claim needs. */
export interface HeartbeatPlan {
  readonly store: RenewableIdempotencyStore;
  readonly leaseMs: number;
  readonly everyMs?: number | undefined;
  /** When the claim was sent (local ms): its lease is proven from then. */
  readonly since: number;
}

/** A running heartbeat: its signal, and how to stop it. */
export interface LeaseKeeper {
  /** Aborted (reason: a `LeaseLostError`) when a renewal finds the claim lost or cannot prove it for a lease. */
  readonly signal: AbortSignal;
  /** The reason it aborted, if it did. */
  readonly lost: LeaseLostError | undefined;
  /** Stops renewing; resolves once a renewal in flight has settled (its answer is then ignored). */
  stop(): Promise<void>;
}

/**
 * Whether `v` is a heartbeat setting: a boolean or `{ everyMs }` (`claim({ heartbeat })`
 * and `idempotent`'s lease). Each period feeds a timer, so it is bounded like one.
 */
export function isHeartbeat(v: unknown): v is HeartbeatSetting {
  if (typeof v === 'boolean') return true;
  if (!isPlainObject(v)) return false;
  return Object.keys(v).every((k) => k === 'everyMs') && isMsIn(v['everyMs'], true, MAX_TIMER_MS);
}

/** Whether a heartbeat setting turns the heartbeat on. */
export function heartbeatOn(setting: HeartbeatSetting | undefined): boolean {
  return setting === true || typeof setting === 'object';
}

/**
 * The heartbeat of claims sent at `since` with `leaseMs`, or `undefined`
 * when the setting leaves it off or the store cannot renew (the option
 * checks refuse a heartbeat on such a store when the middleware is built).
 */
export function heartbeatPlan(
  setting: HeartbeatSetting | undefined,
  store: IdempotencyStore,
  leaseMs: number,
  since: number,
): HeartbeatPlan | undefined {
  if (!heartbeatOn(setting) || !isRenewableStore(store)) return undefined;
  return { store, leaseMs, everyMs: typeof setting === 'object' ? setting.everyMs : undefined, since };
}

class Heartbeat implements LeaseKeeper {
  readonly #controller = new AbortController();
  readonly #plan: HeartbeatPlan;
  readonly #claim: HeldClaim;
  #provenAt: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #inflight: Promise<void> = Promise.resolve();
  #stopped = false;
  lost: LeaseLostError | undefined;

  constructor(plan: HeartbeatPlan, claim: HeldClaim) {
    this.#plan = plan;
    this.#claim = claim;
    this.#provenAt = plan.since;
    this.#schedule();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    return this.#inflight;
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(
      () => {
        this.#inflight = this.#tick();
      },
      heartbeatPeriod(this.#plan.leaseMs, this.#plan.everyMs),
    );
    // A pending renewal must never keep a process (a test, a local run) alive on its own.
    this.#timer.unref?.();
  }

  async #tick(): Promise<void> {
    const { id, token, key } = this.#claim;
    // Local time for the proof: real time, as the timers are.
    const sentAt = Date.now();
    try {
      const renewed = await this.#plan.store.renew({ id, token, leaseMs: this.#plan.leaseMs });
      if (this.#stopped) return;
      if (renewed.kind === 'lease-lost') {
        const existing = renewed.current === undefined ? {} : { existing: renewed.current };
        return this.#lose(new LeaseLostError(`Lease on ${id} was lost while the handler ran; renewal refused.`, { key, ...existing }));
      }
      this.#provenAt = sentAt;
    } catch (cause) {
      if (this.#stopped) return;
      if (leaseUnproven(this.#provenAt, this.#plan.leaseMs, Date.now())) {
        const message = `Lease on ${id} could not be renewed for ${this.#plan.leaseMs} ms; ownership can no longer be proven.`;
        return this.#lose(new LeaseLostError(message, { key, cause }));
      }
    }
    this.#schedule();
  }

  #lose(error: LeaseLostError): void {
    this.lost = error;
    this.#stopped = true;
    this.#controller.abort(error);
  }
}

/** Starts renewing the claim `{ id, token }` of `key`; stop it before completing or releasing the claim. */
export function keepLease(plan: HeartbeatPlan, claim: HeldClaim): LeaseKeeper {
  return new Heartbeat(plan, claim);
}

/** Starts the heartbeat of one claim. */
export type KeepLease = (claim: HeldClaim) => LeaseKeeper;

/** The heartbeat of a batch's claims, sent now with `leaseMs`, or `undefined` when the setting leaves it off or the store cannot renew. */
export function claimsHeartbeat(setting: HeartbeatSetting, store: IdempotencyStore, leaseMs: number): KeepLease | undefined {
  const plan = heartbeatPlan(setting, store, leaseMs, Date.now());
  return plan === undefined ? undefined : (claim) => new Heartbeat(plan, claim);
}

/**
 * `base` with a `signal` that aborts when any of `signals` does (the
 * heartbeat's, Middy's at its early timeout), or (none) one that never
 * aborts, made only when the handler reads it, so a record without either
 * pays nothing for it. Build the context once: spreading it would read the signal.
 */
export function withSignal<T extends object>(
  base: T,
  ...signals: readonly (AbortSignal | undefined)[]
): T & { readonly signal: AbortSignal } {
  const given = signals.filter((s) => s !== undefined);
  if (given.length > 0) return { ...base, signal: given.length === 1 ? (given[0] as AbortSignal) : AbortSignal.any(given) };
  let made: AbortSignal | undefined;
  return Object.defineProperty({ ...base }, 'signal', {
    enumerable: true,
    get: () => {
      made ??= new AbortController().signal;
      return made;
    },
  }) as T & { readonly signal: AbortSignal };
}

/** The `signal` Middy hands a handler as its third argument (`{ signal }`, aborted at its early timeout), if there is one. */
export function handlerSignal(options: unknown): AbortSignal | undefined {
  const signal = typeof options === 'object' && options !== null ? (options as { signal?: unknown }).signal : undefined;
  return signal instanceof AbortSignal ? signal : undefined;
}
