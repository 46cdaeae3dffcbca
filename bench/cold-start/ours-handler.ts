/**
 * Cold-start entry (bundled by `cold-start.ts`, never run by the bench
 * itself): the smallest SQS handler with our claim strategy, as the README
 * shows it, from the main entry with no plug-ins. The effect is a log line,
 * the same as the Powertools entry's.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { DynamoDBClaimStore, eachRecord, jsonBody, sqsIdempotency } from '../../src/index.js';

interface OrderPaid {
  readonly orderNo: string;
}

const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const store = new DynamoDBClaimStore({ client, tableName: process.env['IDEMPOTENCY_TABLE'] ?? 'idempotency' });

export const handler = middy<SQSEvent, SQSBatchResponse>()
  .use(sqsIdempotency({ store, consumer: 'orders', key: (record) => jsonBody<OrderPaid>(record).orderNo }))
  .handler(
    eachRecord(async (record) => {
      console.log('paid', jsonBody<OrderPaid>(record).orderNo);
    }),
  );
