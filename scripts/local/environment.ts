/**
 * The local environment of one run: DynamoDB Local (started, or borrowed
 * from an endpoint), the embedded SQS, clients, tables and queues. Everything
 * started is registered for shutdown, in reverse order, whatever happens.
 */
import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startDynamoDBLocal } from '../../infra/dynamodb-local.js';
import { countRequests, type RequestCounts } from './ddb-metrics.js';
import { createLocalQueues, type LocalQueues } from './queues.js';
import { startLocalSqs, type LocalSqs } from './sqs-server.js';
import { createLocalTables, type LocalTables } from './tables.js';

/** Shutdown steps, run last-in first-out; a failing step does not skip the others. */
export class Resources {
  readonly #steps: Array<{ readonly name: string; readonly stop: () => Promise<void> | void }> = [];

  add(name: string, stop: () => Promise<void> | void): void {
    this.#steps.push({ name, stop });
  }

  /** Runs every step; returns the errors (named) instead of throwing, so cleanup never hides the run's own error. */
  async close(): Promise<Error[]> {
    const errors: Error[] = [];
    for (let step = this.#steps.pop(); step !== undefined; step = this.#steps.pop()) {
      try {
        await step.stop();
      } catch (err) {
        errors.push(new Error(`stopping ${step.name}: ${(err as Error).message}`, { cause: err }));
      }
    }
    return errors;
  }
}

export interface LocalEnvironment {
  readonly dynamodbEndpoint: string;
  /** PID of the DynamoDB Local JVM this run started (undefined when borrowed). */
  readonly dynamodbPid: number | undefined;
  readonly sqs: LocalSqs;
  /** For setup and verification: its requests are not counted. */
  readonly adminDoc: DynamoDBDocumentClient;
  /** For the handlers: every request counted. */
  readonly handlerDoc: DynamoDBDocumentClient;
  readonly requests: RequestCounts;
  readonly tables: LocalTables;
  readonly queues: LocalQueues;
}

function clients(endpoint: string, resources: Resources, name: string) {
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  resources.add(name, () => client.destroy());
  // Same marshalling as functions/shared/aws.ts, so handlers see what they see in Lambda.
  const doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  return { client, doc };
}

async function dynamodb(endpoint: string | undefined, resources: Resources) {
  if (endpoint !== undefined) return { endpoint, pid: undefined };
  const handle = await startDynamoDBLocal();
  resources.add(`DynamoDB Local${handle.pid === undefined ? '' : ` (pid ${handle.pid})`}`, () => handle.stop());
  return { endpoint: handle.endpoint, pid: handle.pid };
}

/**
 * Starts (or borrows) everything a run needs. `dynamodbEndpoint` skips
 * starting DynamoDB Local; `DYNAMODB_ENDPOINT` in the environment does too.
 */
export async function startEnvironment(
  resources: Resources,
  options: { readonly dynamodbEndpoint?: string; readonly visibilityTimeoutSeconds: number },
): Promise<LocalEnvironment> {
  const [ddb, sqs] = await Promise.all([
    dynamodb(options.dynamodbEndpoint, resources),
    startLocalSqs().then((s) => {
      resources.add('local SQS (fauxqs)', () => s.stop());
      return s;
    }),
  ]);
  const admin = clients(ddb.endpoint, resources, 'DynamoDB admin client');
  const handler = clients(ddb.endpoint, resources, 'DynamoDB handler client');
  const requests = countRequests(handler.client);
  // A unique prefix lets several runs (tests) share one DynamoDB Local.
  const prefix = `local-${randomBytes(3).toString('hex')}`;
  const [tables, queues] = await Promise.all([
    createLocalTables(admin.client, prefix),
    createLocalQueues(sqs.client, options.visibilityTimeoutSeconds),
  ]);
  return {
    dynamodbEndpoint: ddb.endpoint,
    dynamodbPid: ddb.pid,
    sqs,
    adminDoc: admin.doc,
    handlerDoc: handler.doc,
    requests,
    tables,
    queues,
  };
}
