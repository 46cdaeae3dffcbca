/**
 * One simulated Lambda invocation, ended as the runtime would: returned, threw, crashed, or timed out. A crash is
 * signalled through AsyncLocalStorage: `abandon()` anywhere in the handler's async work ends the invocation at once
 * and leaves the handler's promise pending forever, so no `after`/`onError` runs, as when a real function dies.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context } from 'aws-lambda';
import type { Clock } from '../engine/clock.js';
import { systemClock } from '../engine/clock.js';
import { testingDefaults } from './defaults.js';
import { InvocationTimeoutError, type SimulatedCrash } from './errors.js';
import { checkOptions, hasMethods, is, type OptionRules } from '../engine/options.js';
import { settleWithin } from '../engine/time.js';
import { lambdaContext } from './events.js';
import { clockRule, positiveMs } from './rules.js';

/** A Lambda handler as the runtime calls it (a Middy-wrapped handler fits). */
export type LambdaHandler<TEvent, TResult> = (event: TEvent, context: Context) => Promise<TResult> | TResult;

/** How one invocation ended. */
export type InvocationResult<TResult> =
  | { readonly kind: 'returned'; readonly value: TResult; readonly context: Context; readonly durationMs: number }
  | { readonly kind: 'threw'; readonly error: unknown; readonly context: Context; readonly durationMs: number }
  | { readonly kind: 'crashed'; readonly error: SimulatedCrash; readonly context: Context; readonly durationMs: number }
  | { readonly kind: 'timed-out'; readonly error: InvocationTimeoutError; readonly context: Context; readonly durationMs: number };

/** Options of {@link invoke}. */
export interface InvokeOptions {
  /** Context to pass; default: a fresh {@link lambdaContext} with `functionName`, `timeoutMs` and `clock`. */
  readonly context?: Context;
  readonly functionName?: string;
  /** Function timeout (default 3000). Exceeding it by `clock` or by real time is a timeout. */
  readonly timeoutMs?: number;
  readonly clock?: Clock;
}

const invokeRules: OptionRules = {
  context: hasMethods('a Lambda Context (with getRemainingTimeInMillis)', 'getRemainingTimeInMillis'),
  functionName: is.nonEmptyString,
  timeoutMs: positiveMs,
  clock: clockRule,
};

interface InvocationControl {
  crash(error: SimulatedCrash): void;
  /** Set once the invocation has ended as crashed or timed out: the process is gone. */
  dead: boolean;
}

const currentInvocation = new AsyncLocalStorage<InvocationControl>();

/** Ends the simulated invocation this code runs in, if any (inside {@link invoke} or a simulator built on it), as crashed. */
export function signalCrash(error: SimulatedCrash): void {
  currentInvocation.getStore()?.crash(error);
}

/**
 * True when the code runs inside a simulated invocation that has already
 * ended as crashed or timed out (Lambda would have killed its process).
 */
export function invocationKilled(): boolean {
  return currentInvocation.getStore()?.dead === true;
}

/**
 * A point where a killed invocation stops. JavaScript cannot stop work that
 * is already running, so code a crash or timeout left behind (other records
 * of the batch, a handler past its timeout) would go on writing, which a real
 * Lambda, whose process is gone, never does. Awaiting `checkpoint()` before
 * and after each I/O step makes such leftovers stop there: it resolves at
 * once in a live invocation (or outside any), and never settles in a killed
 * one. The fault-injection wrappers of this module call it around every
 * request they see; `CrashPoint.hit()` and `delay()` pass one too.
 *
 * @example
 * ```ts
 * import { checkpoint } from 'effectively-once/testing';
 * const send = async (text: string): Promise<void> => { await checkpoint(); console.log('sent', text); };
 * await send('hello'); // outside an invocation: runs
 * ```
 */
export function checkpoint(): Promise<void> {
  if (!invocationKilled()) return Promise.resolve();
  // Never settles: the rest of this dead invocation's work is dropped with it.
  return new Promise<void>(() => undefined);
}

type Ending<TResult> =
  | { readonly kind: 'returned'; readonly value: TResult }
  | { readonly kind: 'threw'; readonly error: unknown }
  | { readonly kind: 'crashed'; readonly error: SimulatedCrash }
  | { readonly kind: 'real-timeout' };

async function race<TEvent, TResult>(
  handler: LambdaHandler<TEvent, TResult>,
  event: TEvent,
  context: Context,
  timeoutMs: number,
  control: InvocationControl,
): Promise<Ending<TResult>> {
  const crashed = new Promise<Ending<TResult>>((resolve) => {
    control.crash = (error) => {
      // The process dies at this very point: work of it still running stops at its next checkpoint, even in this turn.
      control.dead = true;
      resolve({ kind: 'crashed', error });
    };
  });
  const ran = currentInvocation
    .run(control, async () => handler(event, context))
    .then(
      (value): Ending<TResult> => ({ kind: 'returned', value }),
      (error: unknown): Ending<TResult> => ({ kind: 'threw', error }),
    );
  // A real-time limit too: a handler stuck on real I/O must not hang the test run.
  const ending = await settleWithin([ran, crashed], timeoutMs, { kind: 'real-timeout' } as const);
  if (ending.kind === 'crashed' || ending.kind === 'real-timeout') control.dead = true;
  return ending;
}

/**
 * Invokes `handler` once as the Lambda runtime would and reports how it
 * ended. A run longer than `timeoutMs` (by the injected clock or in real
 * time) is `timed-out` and its result discarded, as Lambda discards it.
 *
 * @example
 * ```ts
 * import { abandon, invoke, sqsEvent, sqsRecord } from 'effectively-once/testing';
 * const handler = async (): Promise<void> => { await abandon('dies after the claim'); };
 * const result = await invoke(handler, sqsEvent([sqsRecord({ body: 'x' })]));
 * console.log(result.kind); // 'crashed'
 * ```
 */
export async function invoke<TEvent, TResult>(
  handler: LambdaHandler<TEvent, TResult>,
  event: TEvent,
  options: InvokeOptions = {},
): Promise<InvocationResult<TResult>> {
  checkOptions('invoke', options, invokeRules);
  const clock = options.clock ?? systemClock;
  const timeoutMs = options.timeoutMs ?? testingDefaults.timeoutMs;
  const context =
    options.context ?? lambdaContext({ functionName: options.functionName ?? testingDefaults.functionName, timeoutMs, clock });
  const startedAt = clock.now();
  const control: InvocationControl = { crash: () => undefined, dead: false };
  const ending = await race(handler, event, context, timeoutMs, control);
  const durationMs = clock.now() - startedAt;
  if (ending.kind === 'real-timeout' || (ending.kind !== 'crashed' && durationMs > timeoutMs)) {
    // Lambda killed it, even when the handler answered just past the limit:
    // what it left running (records still in flight) stops at its next checkpoint.
    control.dead = true;
    return { kind: 'timed-out', error: new InvocationTimeoutError(timeoutMs), context, durationMs };
  }
  return { ...ending, context, durationMs };
}
