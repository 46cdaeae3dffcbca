/**
 * Counts the DynamoDB requests a client sends, by command name, with a
 * middleware on the client's own stack. Each contender gets its own
 * low-level client, so the two sides never count each other's requests
 * (DocumentClients made from one client share that client's stack).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** Counts since the last `take()`, by command name. */
export interface RequestTally {
  /** HTTP requests (every attempt, retries included), by command name. */
  readonly requests: Record<string, number>;
  /** Capacity units, see {@link countRequests}. */
  readonly units: number;
}

/** A live counter attached to one client. */
export interface RequestCounter {
  /** Everything counted since the previous take; resets the counts. */
  take(): RequestTally;
}

interface Capacity {
  readonly CapacityUnits?: number;
}

/** Capacity units DynamoDB reported for one response (a list for transactions, one entry per table). */
export function reportedUnits(consumed: unknown): number {
  const list = (Array.isArray(consumed) ? consumed : [consumed]) as Array<Capacity | undefined>;
  return list.reduce((sum, c) => sum + (c?.CapacityUnits ?? 0), 0);
}

let counterSeq = 0;

/**
 * Attaches a counter to `client`.
 *
 * Requests are counted per HTTP attempt (the `deserialize` step runs once
 * per attempt, below the retry middleware).
 *
 * Units: every request asks for `ReturnConsumedCapacity: 'INDEXES'` (on a
 * copy of the input; both contenders get the same) and the units the
 * endpoint reports are summed, index writes included. A non-transactional
 * write whose condition fails is billed 1 WRU by DynamoDB (items < 1 KB)
 * but reported by nobody, so it is added as 1.
 */
export function countRequests(client: DynamoDBClient): RequestCounter {
  let requests: Record<string, number> = {};
  let units = 0;
  counterSeq += 1;
  client.middlewareStack.add(
    (next) => async (args) => {
      const input = { ...(args.input as Record<string, unknown>), ReturnConsumedCapacity: 'INDEXES' };
      try {
        const result = await next({ ...args, input });
        units += reportedUnits((result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity);
        return result;
      } catch (err) {
        if ((err as Error | undefined)?.name === 'ConditionalCheckFailedException') units += 1;
        throw err;
      }
    },
    { step: 'initialize', name: `benchUnits${counterSeq}` },
  );
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context['commandName'] ?? 'unknown');
      requests[name] = (requests[name] ?? 0) + 1;
      return next(args);
    },
    { step: 'deserialize', name: `benchRequests${counterSeq}` },
  );
  return {
    take(): RequestTally {
      const tally = { requests, units };
      requests = {};
      units = 0;
      return tally;
    },
  };
}

/** Total of a tally's requests. */
export function totalRequests(tally: RequestTally): number {
  return Object.values(tally.requests).reduce((sum, n) => sum + n, 0);
}

/** Sums tallies (per command and units). */
export function addTallies(tallies: readonly RequestTally[]): RequestTally {
  const requests: Record<string, number> = {};
  let units = 0;
  for (const t of tallies) {
    units += t.units;
    for (const [name, n] of Object.entries(t.requests)) requests[name] = (requests[name] ?? 0) + n;
  }
  return { requests, units };
}
