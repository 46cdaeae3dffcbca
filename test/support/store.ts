/**
 * Helpers for store tests: a request counter on a DocumentClient so a test
 * can prove how many round trips an operation cost, and raw reads. (The
 * clock tests move by hand is `ManualClock` from src/testing.)
 */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

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
