/**
 * "Send once no handler of the batch runs": the rule group commit and the claim strategy's batched completions share.
 * When the last running handler ends and something waits, the flush runs one turn of the event loop later, so that
 * the lanes the finished records released can start their next handler (in microtasks) and be counted first.
 */
import { setImmediate as nextTurn } from 'node:timers';

/** One batch's count of running handlers, and the flush it triggers. */
export class WhenIdle {
  readonly #waiting: () => boolean;
  readonly #flush: () => void;
  #running = 0;
  #scheduled = false;

  /** `waiting`: whether anything waits to be sent; `flush`: sends it. */
  constructor(waiting: () => boolean, flush: () => void) {
    this.#waiting = waiting;
    this.#flush = flush;
  }

  /** Runs a record's handler, counted as running: nothing is flushed while a handler may still add to what waits. */
  async running<T>(handler: () => Promise<T>): Promise<T> {
    this.#running += 1;
    try {
      return await handler();
    } finally {
      this.#running -= 1;
      this.schedule();
    }
  }

  /** Something was added to what waits: flush it once no handler runs. */
  schedule(): void {
    if (this.#scheduled || this.#running > 0 || !this.#waiting()) return;
    this.#scheduled = true;
    nextTurn(() => {
      this.#scheduled = false;
      if (this.#running === 0 && this.#waiting()) this.#flush();
    });
  }
}
