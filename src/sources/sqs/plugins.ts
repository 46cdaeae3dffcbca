/**
 * What `sqsIdempotency` knows of its plug-ins (`deadLetter: deadLetter({...})`,
 * `backoff: backoff({...})`): an object that carries its own after-settle
 * step. Nothing here names the DLQ or the backoff code: only the user's
 * import of a factory brings that code into a bundle.
 */
import type { SQSRecord } from 'aws-lambda';
import type { OptionRule } from '../../engine/options.js';
import type { AfterSettle, AfterSettleResult } from '../../batch/middleware.js';

/** A plug-in of `sqsIdempotency` that runs after every outcome is final and before the response. */
export interface SqsSettlePlugin<TName extends string = string> {
  /** The option it is passed as: `deadLetter` or `backoff`. */
  readonly plugin: TName;
  /** Its step; it never throws (a failure leaves the outcomes as they were and is named in the log line). */
  readonly afterSettle: AfterSettle<SQSRecord>;
  /** {@link chainSettleSteps}, carried by the plug-in so that a middleware given none does not bundle it. */
  readonly chain: typeof chainSettleSteps;
}

/**
 * The plug-ins `deadLetter()` and `backoff()` made. A spread copy or an object with the same keys is not one: it may
 * carry any step and chain (a look-alike whose step returned no outcomes acknowledged a permanent failure sent
 * nowhere), so the option refuses it. Objects built once per handler, weakly held (no per-invocation state); a
 * WeakSet rather than a symbol property, which a spread would copy.
 */
const made = new WeakSet<object>();

/** A plug-in carrying `afterSettle`, frozen (its step stays the one its factory gave it) and known to {@link settlePluginRule}. */
export function settlePlugin<TName extends string>(plugin: TName, afterSettle: AfterSettle<SQSRecord>): SqsSettlePlugin<TName> {
  const built: SqsSettlePlugin<TName> = Object.freeze({ plugin, afterSettle, chain: chainSettleSteps });
  made.add(built);
  return built;
}

/** The rule of the option `name`: the very object the factory of the same name returned. */
export function settlePluginRule(name: string): OptionRule {
  return {
    expected: `what ${name}() returns (that object itself, not a copy)`,
    check: (v: unknown) => typeof v === 'object' && v !== null && made.has(v) && (v as SqsSettlePlugin).plugin === name,
  };
}

/** One log field from two steps: lists (`sqsErrors`) are joined, anything else is the later step's. */
function mergeFields(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...a };
  for (const [name, value] of Object.entries(b)) {
    const before = merged[name];
    merged[name] = Array.isArray(before) && Array.isArray(value) ? [...before, ...value] : value;
  }
  return merged;
}

/**
 * The plug-ins' steps run in the order given, each on the outcomes the one
 * before it left (the DLQ first, so a dead-lettered record is not backed
 * off), or `undefined` for none.
 */
export function chainSettleSteps(plugins: readonly (SqsSettlePlugin | undefined)[]): AfterSettle<SQSRecord> | undefined {
  const steps = plugins.flatMap((p) => (p === undefined ? [] : [p.afterSettle]));
  if (steps.length === 0) return undefined;
  return async (outcomes, context): Promise<AfterSettleResult> => {
    let final = outcomes;
    let fields: Record<string, unknown> = {};
    let warn = false;
    for (const step of steps) {
      const result = await step(final, context);
      final = result.outcomes;
      fields = mergeFields(fields, result.notes?.fields ?? {});
      warn ||= result.notes?.warn === true;
    }
    return { outcomes: final, notes: { fields, warn } };
  };
}
