/**
 * Errors about a whole batch or its set-up, never about one record: the SQS
 * dead-letter path never takes them for a permanent failure.
 */
/** Errors about a whole batch or its set-up, never about one message (see {@link aboutTheBatch}). */
const batchErrors = new WeakSet<object>();

/**
 * Marks an error given to every record of a batch that the record's handler
 * never threw (the batch handler threw before reaching it, or the set-up was
 * wrong): never a permanent failure, whatever it is and whatever
 * `isPermanent` says, since those records never ran. Returns the error.
 */
export function aboutTheBatch<E>(error: E): E {
  if (typeof error === 'object' && error !== null) batchErrors.add(error);
  return error;
}

/**
 * A `TypeError` the library reports for every record of a batch it could not
 * run as set up (e.g. no `eachRecord`), marked {@link aboutTheBatch}.
 */
export function usageError(message: string): TypeError {
  return aboutTheBatch(new TypeError(message));
}

/** Whether {@link aboutTheBatch} marked this error. */
export function isAboutTheBatch(error: unknown): boolean {
  return typeof error === 'object' && error !== null && batchErrors.has(error);
}
