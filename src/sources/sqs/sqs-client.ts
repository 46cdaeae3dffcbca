/**
 * What the SQS extras (DLQ, backoff) need from an SQS client: `send`. An
 * `SQSClient` from `@aws-sdk/client-sqs` is one. Declared by shape, not
 * imported, so the package's declarations compile in a project that never
 * installed that optional peer (the middleware's options name this type).
 */

/** An object that sends SQS commands, such as an `SQSClient` from `@aws-sdk/client-sqs`. */
export interface SqsClientLike {
  send(command: { readonly input: object }): Promise<unknown>;
}
