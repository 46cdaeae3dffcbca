/**
 * Cold-start entry (bundled by `cold-start.ts`, never run by the bench
 * itself): the smallest SQS handler with Powertools idempotency + batch,
 * per-record `makeIdempotent` under `processPartialResponse`, keyed on the
 * same business key. No Middy: Powertools does not need it.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

interface OrderPaid {
  readonly orderNo: string;
}

const persistenceStore = new DynamoDBPersistenceLayer({ tableName: process.env['IDEMPOTENCY_TABLE'] ?? 'idempotency' });
const config = new IdempotencyConfig({ eventKeyJmesPath: 'powertools_json(body).orderNo' });
const processor = new BatchProcessor(EventType.SQS);

const onRecord = makeIdempotent(
  async (record: SQSRecord): Promise<void> => {
    console.log('paid', (JSON.parse(record.body) as OrderPaid).orderNo);
  },
  { persistenceStore, config },
);

export const handler = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  config.registerLambdaContext(context);
  return processPartialResponse(event, onRecord, processor, { context });
};
