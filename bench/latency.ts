/**
 * Latency added to every DynamoDB HTTP attempt, by a middleware on each
 * client's own stack, so every variant (Powertools included) pays it per
 * request alike. DynamoDB Local answers in about a millisecond on loopback;
 * a real region takes several, and then the number of requests in a row,
 * not the server's CPU, decides the latency.
 *
 * - `--latency MS`: a fixed delay before every request.
 * - `--aws`: a floor (aws-model.ts): every request takes at least a latency
 *   drawn, from a seeded generator, for its operation class; the time
 *   DynamoDB Local took to answer counts inside the floor, so only the rest
 *   is waited after its answer.
 */
import { performance } from 'node:perf_hooks';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { drawFloorMs, floorDelayMs, modelledOperation } from './aws-model.js';

let latencySeq = 0;

// The deserialize step runs once per HTTP attempt, below the retry middleware; low priority: inside the request counter's timing.
const step = () => ({ step: 'deserialize' as const, priority: 'low' as const, name: `benchLatency${(latencySeq += 1)}` });

/** Delays every request `client` sends by `ms` (per attempt, retries included). No-op for 0. */
export function addLatency(client: DynamoDBClient, ms: number): void {
  if (ms <= 0) return;
  client.middlewareStack.add(
    (next) => async (args) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return next(args);
    },
    step(),
  );
}

/** Time and waiting, injectable for the tests. */
export interface FloorClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const realClock: FloorClock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * One request under the floor: draws its floor (`random` is the client's
 * seeded generator) from its command name and input, sends it, then waits
 * what is left of the floor. A request that failed still takes its floor
 * (an error answer is a round trip too).
 */
export async function withFloor<T>(
  random: () => number,
  commandName: string,
  input: Readonly<Record<string, unknown>>,
  send: () => Promise<T>,
  clock: FloorClock = realClock,
): Promise<T> {
  const floor = drawFloorMs(random, modelledOperation(commandName, input));
  const started = clock.now();
  try {
    return await send();
  } finally {
    const rest = floorDelayMs(floor, clock.now() - started);
    if (rest > 0) await clock.sleep(rest);
  }
}

/** `--aws`: puts the latency floor on `client` (per attempt, retries included). */
export function addLatencyFloor(client: DynamoDBClient, random: () => number): void {
  client.middlewareStack.add(
    (next, context) => async (args) =>
      withFloor(random, String(context['commandName'] ?? ''), (args.input ?? {}) as Record<string, unknown>, () => next(args)),
    step(),
  );
}
