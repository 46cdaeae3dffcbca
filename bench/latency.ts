/**
 * `--latency MS`: a fixed delay before every DynamoDB HTTP attempt, added by
 * a middleware on each client's own stack, so every variant pays it per
 * request alike. DynamoDB Local answers in about a millisecond on loopback;
 * a real region's round trip is several, and then the number of requests in
 * a row, not the server's CPU, decides the latency.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

let latencySeq = 0;

/** Delays every request `client` sends by `ms` (per attempt, retries included). No-op for 0. */
export function addLatency(client: DynamoDBClient, ms: number): void {
  if (ms <= 0) return;
  latencySeq += 1;
  client.middlewareStack.add(
    (next) => async (args) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return next(args);
    },
    // The deserialize step runs once per HTTP attempt, below the retry middleware; low priority: inside the request counter's timing.
    { step: 'deserialize', priority: 'low', name: `benchLatency${latencySeq}` },
  );
}
