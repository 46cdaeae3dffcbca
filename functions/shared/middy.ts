/**
 * Middy's plugin options for every reference handler: `middy(middyOptions)`.
 *
 * `timeoutEarlyInMillis: 500`: a handler that hangs is cut off 500 ms before
 * the Lambda timeout, and the middleware answers with the records not done
 * returned for retry. Middy's default, 5 ms, leaves the runtime too little
 * time to send that response; a Lambda timeout then retries the whole batch
 * (the middleware's log line warns when a batch is answered within 100 ms).
 */
export const middyOptions = { timeoutEarlyInMillis: 500 } as const;
