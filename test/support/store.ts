/**
 * Helpers for store tests: a clock the test moves by hand, and a request
 * counter on a DocumentClient so a test can prove how many round trips an
 * operation cost.
 */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../../src/core/clock.js';

/** A clock that only moves when told to. Starts at the real time so TTL values look real. */
export class ManualClock implements Clock {
  #now: number;
  constructor(start: number = Date.now()) {
    this.#now = start;
  }
  now(): number {
    return this.#now;
  }
  advance(ms: number): void {
    this.#now += ms;
  }
}

/** Names of the commands sent through a client since the counter was attached. */
export interface RequestCounter {
  readonly commands: string[];
  reset(): void;
}

let counterSeq = 0;

/**
 * Counts every command sent through `doc`. The middleware stack is shared by
 * every DocumentClient made from the same low-level client, so give each
 * counting test its own `testDynamo()`.
 */
export function countRequests(doc: DynamoDBDocumentClient): RequestCounter {
  const commands: string[] = [];
  counterSeq += 1;
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      commands.push(String(context['commandName'] ?? 'unknown'));
      return next(args);
    },
    { step: 'initialize', name: `countRequests${counterSeq}` },
  );
  return {
    commands,
    reset: () => {
      commands.length = 0;
    },
  };
}

/** The raw stored item (strongly consistent), bypassing the store. */
export async function rawItem(
  doc: DynamoDBDocumentClient,
  tableName: string,
  key: Record<string, unknown>,
): Promise<Record<string, unknown> | undefined> {
  const out = await doc.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
  return out.Item;
}
