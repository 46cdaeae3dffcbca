/**
 * Counters the local run keeps while it works: what the event sources did
 * (receives, deletes, retries) as opposed to what the handlers' effects were,
 * which the report reads back from DynamoDB afterwards.
 */

/** What one event source (an SQS mapping or the async invoker) did. */
export interface SourceStats {
  /** Handler invocations. */
  invocations: number;
  /** Records handed to the handler (SQS receives, or async invoke attempts). */
  delivered: number;
  /** Records acknowledged (deleted from the queue / async invocation succeeded). */
  acknowledged: number;
  /** Records left for redelivery (in `batchItemFailures`, or the whole batch when the handler threw). */
  retried: number;
  /** Invocations that threw (SQS: nothing deleted; async: retried). */
  handlerErrors: number;
  /** Invocations that crashed (chaos: a simulated process death; nothing deleted). */
  crashes: number;
  /** Invocations that ran past the function timeout. */
  timeouts: number;
  /** Invalid batch responses (an unknown itemIdentifier fails the whole batch, as on Lambda). */
  invalidResponses: number;
  /** Batches whose delete was skipped on purpose, simulating a crash between the handler and the ACK. */
  lostAcks: number;
  /**
   * Deletes sent after the visibility timeout had passed: the receipt handle
   * is stale by then, SQS ignores the delete and redelivers the message.
   */
  lateDeletes: number;
  /** Records inside a handler right now. */
  inFlight: number;
  /** Records sent to the on-failure destination (async invoker only). */
  toDestination: number;
}

export function newSourceStats(): SourceStats {
  return {
    invocations: 0,
    delivered: 0,
    acknowledged: 0,
    retried: 0,
    handlerErrors: 0,
    crashes: 0,
    timeouts: 0,
    invalidResponses: 0,
    lostAcks: 0,
    lateDeletes: 0,
    inFlight: 0,
    toDestination: 0,
  };
}

/** Adds the counters of several sources (for the progress line's totals). */
export function totalOf(sources: readonly SourceStats[]): SourceStats {
  const total = newSourceStats();
  for (const s of sources) {
    for (const k of Object.keys(total) as Array<keyof SourceStats>) total[k] += s[k];
  }
  return total;
}
