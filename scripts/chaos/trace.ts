/**
 * What each invocation did, for the claim strategy's accounting: which
 * effects it performed and whether it then recorded their completion. An
 * effect with no completion after it is the claim strategy's at-least-once
 * window; the trace says why the completion is missing, so a double effect
 * can be told apart from a bug (e.g. a lease that let a second owner in).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { TransactionalIdempotencyStore } from '../../src/index.js';
import type { CompleteInput } from '../../src/engine/store.js';
import { invocationKilled } from '../../src/testing/invocation.js';
import type { PipelineCrashPoint } from '../../src/testing/crash-store.js';
import { storeWith } from '../local/faults.js';

export type Consumer = 'payments' | 'notifications' | 'points';

/** Why an effect was not followed by its completion in the same invocation. */
export type UnconfirmedCause =
  | 'crash after the effect'
  | 'killed by its timeout'
  | 'completion failed'
  | 'completion refused (lease lost)'
  | 'unexplained';

/** The causes the claim strategy documents: a second effect may follow these, and only these. */
export const documentedWindow: ReadonlySet<UnconfirmedCause> = new Set([
  'crash after the effect',
  'killed by its timeout',
  'completion failed',
]);

/** One invocation, as observed. */
export class InvocationTrace {
  /**
   * The handler's promise settled (returned or threw) while its invocation was
   * alive; false when crashed or killed, even if the handler settles later
   * (e.g. Middy's early-timeout response after the function timeout struck).
   */
  settled = false;
  crashPoint: PipelineCrashPoint | undefined;
  /** Record ids whose side effect happened here, in order. */
  readonly effects: string[] = [];
  readonly completed = new Set<string>();
  readonly refused = new Set<string>();
  readonly failed = new Set<string>();
  /**
   * Whether its invocation has been killed (crashed or timed out), asked at
   * verdict time: `invoke` may kill a handler that answered past its timeout
   * after it settled, with a record's completion still in flight.
   */
  killed: () => boolean = () => false;

  constructor(readonly consumer: Consumer) {}

  /** Why the effect on `id` has no completion here, or undefined when it has one. */
  unconfirmedCause(id: string): UnconfirmedCause | undefined {
    if (this.completed.has(id)) return undefined;
    if (this.refused.has(id)) return 'completion refused (lease lost)';
    if (this.failed.has(id)) return 'completion failed';
    if (this.crashPoint !== undefined) return 'crash after the effect';
    if (!this.settled || this.killed()) return 'killed by its timeout';
    return 'unexplained';
  }
}

/** Every invocation's trace, and the one the current code runs in. */
export class Traces {
  readonly #current = new AsyncLocalStorage<InvocationTrace>();
  readonly all: InvocationTrace[] = [];

  /** Runs one invocation inside a new trace. */
  async run<T>(consumer: Consumer, invocation: () => Promise<T>): Promise<T> {
    const trace = new InvocationTrace(consumer);
    this.all.push(trace);
    return this.#current.run(trace, async () => {
      // Runs later checks inside this invocation's async context.
      const inInvocation = AsyncLocalStorage.snapshot();
      trace.killed = () => inInvocation(invocationKilled);
      try {
        return await invocation();
      } finally {
        // Under load the function timeout can strike while a completion is in
        // flight (it then never returns) and the handler still settle after.
        trace.settled = !invocationKilled();
      }
    });
  }

  current(): InvocationTrace | undefined {
    return this.#current.getStore();
  }

  /** Per record id of `consumer`: the causes of its effects that had no completion after them. */
  unconfirmed(consumer: Consumer): Map<string, UnconfirmedCause[]> {
    const out = new Map<string, UnconfirmedCause[]>();
    for (const trace of this.all.filter((t) => t.consumer === consumer)) {
      for (const id of trace.effects) {
        const cause = trace.unconfirmedCause(id);
        if (cause !== undefined) out.set(id, [...(out.get(id) ?? []), cause]);
      }
    }
    return out;
  }
}

/** The store with every completion's fate written into the current trace. */
export function tracingStore(store: TransactionalIdempotencyStore, traces: Traces): TransactionalIdempotencyStore {
  const completeMany = store.completeMany?.bind(store);
  return storeWith(store, {
    ...(completeMany === undefined
      ? {}
      : {
          async completeMany(inputs: readonly CompleteInput[]) {
            const trace = traces.current();
            const answers = await completeMany(inputs);
            for (const [i, answer] of answers.entries()) {
              const id = inputs[i]?.id ?? '';
              if (answer.kind === 'error') trace?.failed.add(id);
              else (answer.result.kind === 'ok' ? trace?.completed : trace?.refused)?.add(id);
            }
            return answers;
          },
        }),
    async complete(input: CompleteInput) {
      const trace = traces.current();
      try {
        const result = await store.complete(input);
        (result.kind === 'ok' ? trace?.completed : trace?.refused)?.add(input.id);
        return result;
      } catch (err) {
        trace?.failed.add(input.id);
        throw err;
      }
    },
  });
}
