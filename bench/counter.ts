/**
 * Counts the DynamoDB requests a client sends, by command name, with a
 * middleware on the client's own stack. Each variant gets its own
 * low-level client, so variants never count each other's requests
 * (DocumentClients made from one client share that client's stack).
 */
import { performance } from 'node:perf_hooks';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { requestUnits, sum, type ObservedRequest } from './aws-units.js';

/** Counts since the last `take()`, by command name. */
export interface RequestTally {
  /** HTTP requests (every attempt, retries included), by command name. */
  readonly requests: Record<string, number>;
  /** Capacity units, see {@link countRequests}; 0 unless units are counted. */
  readonly units: number;
  /** Sum of the requests' round trips as the SDK saw them (send to parsed answer, added latency included), ms. */
  readonly requestMs: number;
  /** `--aws`: write and read request units DynamoDB on-demand bills for these requests (aws-units.ts); 0 otherwise. */
  readonly wru: number;
  readonly rru: number;
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
 * Units (only with `units: true`, since asking for them costs DynamoDB
 * Local CPU on every request): every request asks for
 * `ReturnConsumedCapacity: 'INDEXES'` (on a copy of the input; every variant
 * gets the same) and the units the endpoint reports are summed, index writes
 * included. A non-transactional write whose condition fails is billed 1 WRU
 * by DynamoDB (items < 1 KB) but reported by nobody, so it is added as 1.
 */
export function countRequests(client: DynamoDBClient, options: { readonly units: boolean; readonly awsUnits?: boolean }): RequestCounter {
  let requests: Record<string, number> = {};
  let units = 0;
  let requestMs = 0;
  let observed: ObservedRequest[] = [];
  counterSeq += 1;
  if (options.units) countUnits(client, (n) => (units += n));
  if (options.awsUnits === true) observeRequests(client, (r) => observed.push(r));
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context['commandName'] ?? 'unknown');
      requests[name] = (requests[name] ?? 0) + 1;
      const started = performance.now();
      try {
        return await next(args);
      } finally {
        requestMs += performance.now() - started;
      }
    },
    // High priority: outermost in its step, so the round trip includes the added latency (low priority, same step).
    { step: 'deserialize', priority: 'high', name: `benchRequests${counterSeq}` },
  );
  return {
    take(): RequestTally {
      // Units are worked out here, outside the timed handler call, so sizing the items costs no variant CPU.
      const billed = sum(observed.map(requestUnits));
      const tally = { requests, units, requestMs, wru: billed.wru, rru: billed.rru };
      requests = {};
      units = 0;
      requestMs = 0;
      observed = [];
      return tally;
    },
  };
}

function countUnits(client: DynamoDBClient, add: (units: number) => void): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      const input = { ...(args.input as Record<string, unknown>), ReturnConsumedCapacity: 'INDEXES' };
      try {
        const result = await next({ ...args, input });
        add(reportedUnits((result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity));
        return result;
      } catch (err) {
        if ((err as Error | undefined)?.name === 'ConditionalCheckFailedException') add(1);
        throw err;
      }
    },
    { step: 'initialize', name: `benchUnits${counterSeq}` },
  );
}

/**
 * Keeps each command's input and answer (or error) for the unit count. In
 * the build step: below the DocumentClient's marshalling (the input is
 * attribute values for every variant) and above the retry middleware (once
 * per command: a throttled attempt is not billed). Answers of DocumentClient
 * commands come back as plain values; aws-units.ts sizes either form.
 */
function observeRequests(client: DynamoDBClient, keep: (r: ObservedRequest) => void): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const commandName = String(context['commandName'] ?? 'unknown');
      const input = args.input as Record<string, unknown>;
      try {
        const result = await next(args);
        keep({ commandName, input, output: result.output as unknown as Record<string, unknown> });
        return result;
      } catch (error) {
        keep({ commandName, input, error });
        throw error;
      }
    },
    { step: 'build', name: `benchAwsUnits${counterSeq}` },
  );
}

/** Total of a tally's requests. */
export function totalRequests(tally: RequestTally): number {
  return Object.values(tally.requests).reduce((sum, n) => sum + n, 0);
}

/** Sums tallies (per command and units). */
export function addTallies(tallies: readonly RequestTally[]): RequestTally {
  const requests: Record<string, number> = {};
  let units = 0;
  let requestMs = 0;
  let wru = 0;
  let rru = 0;
  for (const t of tallies) {
    units += t.units;
    requestMs += t.requestMs;
    wru += t.wru;
    rru += t.rru;
    for (const [name, n] of Object.entries(t.requests)) requests[name] = (requests[name] ?? 0) + n;
  }
  return { requests, units, requestMs, wru, rru };
}
