/**
 * The idempotency table, defined once: the CLI's `table create`, `createIdempotencyTable`, the CloudFormation block in
 * docs/operations.md and `infra/tables.json` come from (or are tested equal to) `idempotencyTable`. The shape is
 * CloudFormation's `AWS::DynamoDB::Table` Properties minus `TableName`, what a user pastes into a template.
 */
import type { CreateTableCommandInput, StreamViewType } from '@aws-sdk/client-dynamodb';
import { ATTR } from './layout.js';
import { INFLIGHT_INDEX_NAME } from './stale.js';

/** A DynamoDB table in CloudFormation `Properties` shape, without `TableName`. */
export interface TableDefinition {
  readonly AttributeDefinitions: ReadonlyArray<{ readonly AttributeName: string; readonly AttributeType: 'S' | 'N' | 'B' }>;
  readonly KeySchema: ReadonlyArray<{ readonly AttributeName: string; readonly KeyType: 'HASH' | 'RANGE' }>;
  readonly BillingMode: 'PAY_PER_REQUEST' | 'PROVISIONED';
  readonly GlobalSecondaryIndexes?: ReadonlyArray<{
    readonly IndexName: string;
    readonly KeySchema: ReadonlyArray<{ readonly AttributeName: string; readonly KeyType: 'HASH' | 'RANGE' }>;
    readonly Projection: {
      readonly ProjectionType: 'ALL' | 'KEYS_ONLY' | 'INCLUDE';
      readonly NonKeyAttributes?: readonly string[];
    };
  }>;
  readonly TimeToLiveSpecification?: { readonly AttributeName: string; readonly Enabled: boolean };
  readonly PointInTimeRecoverySpecification?: { readonly PointInTimeRecoveryEnabled: boolean };
  readonly SSESpecification?: { readonly SSEEnabled: boolean };
  /** CloudFormation's shape: a view type (`NEW_IMAGE`, `NEW_AND_OLD_IMAGES`, ...) means the stream is on. */
  readonly StreamSpecification?: { readonly StreamViewType: string };
}

/**
 * The idempotency table: partition key `id` (string), TTL on `expiresAt`,
 * on-demand, and the sparse `inflight-by-lease` index that `staleClaims()`
 * and `effectively-once stale` query (only records of stores built with
 * `trackInflight: true` are in it, so it costs nothing otherwise).
 */
export const idempotencyTable: TableDefinition = {
  AttributeDefinitions: [
    { AttributeName: ATTR.id, AttributeType: 'S' },
    { AttributeName: ATTR.inflight, AttributeType: 'S' },
    { AttributeName: ATTR.leaseUntil, AttributeType: 'N' },
  ],
  KeySchema: [{ AttributeName: ATTR.id, KeyType: 'HASH' }],
  BillingMode: 'PAY_PER_REQUEST',
  GlobalSecondaryIndexes: [
    {
      IndexName: INFLIGHT_INDEX_NAME,
      KeySchema: [
        { AttributeName: ATTR.inflight, KeyType: 'HASH' },
        { AttributeName: ATTR.leaseUntil, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['messageId', 'attempts', 'claimedAt', 'owner'] },
    },
  ],
  TimeToLiveSpecification: { AttributeName: ATTR.expiresAt, Enabled: true },
  PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
  SSESpecification: { SSEEnabled: true },
};

/** The idempotency table with a `NEW_IMAGE` stream, for an outbox kept in the same table. */
export function withStream(def: TableDefinition): TableDefinition {
  return { ...def, StreamSpecification: { StreamViewType: 'NEW_IMAGE' } };
}

/** Turns a CloudFormation-shaped definition into a `CreateTable` request (TTL, PITR and SSE are separate calls or defaults). */
export function toCreateTableInput(tableName: string, def: TableDefinition): CreateTableCommandInput {
  const stream = def.StreamSpecification;
  const indexes = def.GlobalSecondaryIndexes;
  return {
    TableName: tableName,
    AttributeDefinitions: def.AttributeDefinitions.map((a) => ({ ...a })),
    KeySchema: def.KeySchema.map((k) => ({ ...k })),
    BillingMode: def.BillingMode,
    ...(stream === undefined
      ? {}
      : { StreamSpecification: { StreamEnabled: true, StreamViewType: stream.StreamViewType as StreamViewType } }),
    ...(indexes === undefined
      ? {}
      : {
          GlobalSecondaryIndexes: indexes.map((g) => ({
            IndexName: g.IndexName,
            KeySchema: g.KeySchema.map((k) => ({ ...k })),
            Projection: {
              ProjectionType: g.Projection.ProjectionType,
              ...(g.Projection.NonKeyAttributes === undefined ? {} : { NonKeyAttributes: [...g.Projection.NonKeyAttributes] }),
            },
          })),
        }),
  };
}
