/**
 * Noticing that a middleware after ours answered early. Middy then runs no
 * `after` and no `onError` of ours (its documented early response: a `before`
 * that returns a value or sets `request.earlyResponse`, or an `after` or
 * `onError` that runs before ours and does so), so an invocation would keep
 * its claims until their lease and its heartbeat would go on renewing them.
 * Middy 6 and 7 both answer early the same way: they assign
 * `request.response = request.earlyResponse`, stop, and return
 * `request.response`. An accessor on the request's `response` sees that
 * assignment and hands Middy a promise of the early response that settles
 * once the invocation has given its claims up, so that happens before the
 * invocation ends (a Lambda function may be frozen right after it). The batch
 * middleware and the single-event lifecycle (sources/eventbridge/) use it.
 */

/** Middy's request, as far as its response goes. */
interface Answerable<TResponse> {
  response: TResponse;
  /** Set (before the `onError`s run) once a `before`, the handler or an `after` threw. */
  readonly error?: unknown;
}

/**
 * What `response` held before the early response, when Middy had assigned it
 * (the handler's response, as the `after`s before the early one left it; or
 * `undefined` once an error was thrown): what our `after` would have read.
 * None when the early response came from a `before` (the handler never ran).
 */
export type Answered<TResponse> = { readonly response: TResponse } | undefined;

/**
 * Watches `request.response` until `unwatch` is called; `onEarly` runs once,
 * when a middleware answers early. Returns `unwatch`, which leaves a plain
 * `response` property holding the last value (once `onEarly` has settled, if
 * it runs).
 */
export function watchEarlyResponse<TResponse>(
  request: Answerable<TResponse>,
  onEarly: (answered: Answered<TResponse>) => Promise<void>,
): () => void {
  let value = request.response;
  let answered: Answered<TResponse>;
  let givingUp: Promise<void> | undefined;
  // What Middy gets once an early response is seen: one promise, however often it reads `response`.
  let answer: Promise<TResponse> | undefined;
  const plain = () => Object.defineProperty(request, 'response', { value, writable: true, enumerable: true, configurable: true });
  Object.defineProperty(request, 'response', {
    configurable: true,
    enumerable: true,
    get: () => answer ?? value,
    set(next: TResponse) {
      value = next;
      const early = 'earlyResponse' in request && (request as { earlyResponse?: unknown }).earlyResponse === next;
      if (!early) answered = { response: next };
      if (!early || givingUp !== undefined) return;
      const before = answered;
      // A microtask later: Middy reads `response` right after this assignment, and must get the promise.
      givingUp = Promise.resolve()
        .then(() => onEarly(before))
        .catch(() => undefined)
        .finally(plain);
      // An onError that answers `undefined` makes Middy rethrow the error (it checks for an undefined response,
      // and would find this promise): the promise rejects with it instead, so the error still reaches Lambda.
      const failed = request.error !== undefined && request.error !== null;
      answer = givingUp.then(() => (value === undefined && failed ? Promise.reject(request.error) : value));
    },
  });
  return () => {
    if (givingUp === undefined) plain();
  };
}
