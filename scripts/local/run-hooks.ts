/**
 * What the chaos run (scripts/chaos) plugs into a local run: fault injection
 * on the handlers' DynamoDB client, hooks in the service, shortened function
 * timeouts, and chaos in the event-source mappings. `npm start` runs without.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SqsMappingOptions } from './event-source.js';
import type { OrderPaidEvent, ServiceHooks } from './service.js';

/** The SQS consumers of the reference service. */
export type SqsConsumer = 'payments' | 'notifications';

export interface RunHooks {
  /** Called once with the handlers' DynamoDB client, before any handler runs. */
  instrument(doc: DynamoDBDocumentClient): void;
  readonly service: ServiceHooks;
  /** Function timeout of the SQS consumers and of points, in place of the deployed 30 s. */
  readonly functionTimeoutMs: number;
  /** Chaos and observation in one consumer's event-source mapping. */
  mapping(consumer: SqsConsumer): Pick<SqsMappingOptions, 'deliverTwice' | 'timeoutFor' | 'onAcknowledged'>;
  /** Told of each OrderPaid event whose points invocation returned. */
  onPointsSucceeded(event: OrderPaidEvent): void;
}
