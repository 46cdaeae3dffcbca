/**
 * The simulators' own error: a batch response Lambda would refuse. Its root
 * is the testing kit's `SimulationError`, as for every simulated fault.
 */
import { SimulationError } from '../../src/testing/errors.js';

/**
 * The handler's SQS batch response cannot be honoured (not an object,
 * `batchItemFailures` not an array, an empty/missing `itemIdentifier`, or one
 * that is not in the batch). Lambda then treats the whole batch as failed.
 *
 * @example
 * ```ts
 * import { InvalidBatchResponseError } from './errors.js';
 * const err = new InvalidBatchResponseError('itemIdentifier "x" is not in the batch', { batchItemFailures: [{ itemIdentifier: 'x' }] });
 * console.log(err.response);
 * ```
 */
export class InvalidBatchResponseError extends SimulationError {
  override readonly name = 'InvalidBatchResponseError';
  /** What the handler returned. */
  readonly response: unknown;

  constructor(reason: string, response: unknown) {
    super(`invalid SQS batch response, the whole batch counts as failed: ${reason}`);
    this.response = response;
  }
}
