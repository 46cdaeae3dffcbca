/**
 * The idempotency store every consumer builds from its dependencies, unless
 * one is injected (the local run may wrap it with fault injection).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  DynamoDBIdempotencyStore,
  type DynamoDBIdempotencyStoreOptions,
  type SqsIdempotencyOptions,
  type TransactionalIdempotencyStore,
} from 'effectively-once';

/** The middlewares' `lease` option (the same shape for every source). */
type LeaseOption = NonNullable<SqsIdempotencyOptions['lease']>;
/** The stores' clock: epoch milliseconds from `now()`. */
type Clock = NonNullable<DynamoDBIdempotencyStoreOptions['clock']>;

/** What a consumer needs to reach its idempotency records. */
export interface StoreDeps {
  readonly client: DynamoDBDocumentClient;
  readonly tables: { readonly idempotency: string };
  /** Source of time for leases and retention; default the system clock. */
  readonly clock?: Clock;
  /** A ready store; when given, `tables.idempotency` and `clock` are not used for it. */
  readonly store?: TransactionalIdempotencyStore;
  /**
   * Claim lease bounds (default: the library's). Lambda needs none; the local
   * chaos run scales them down with its shortened timeouts, so a crashed
   * claim frees up within its few-second visibility timeouts.
   */
  readonly lease?: LeaseOption;
}

/** The middleware's `lease` option from the deps, or nothing (the library's default). */
export function leaseFrom(deps: StoreDeps): { readonly lease?: LeaseOption } {
  return deps.lease === undefined ? {} : { lease: deps.lease };
}

/** The injected store, or a DynamoDB store on the idempotency table. */
export function storeFrom(deps: StoreDeps): TransactionalIdempotencyStore {
  return deps.store ?? dynamoDBStoreFrom(deps);
}

/** A DynamoDB store on the idempotency table (the sweeper's `staleClaims` is DynamoDB's own). */
export function dynamoDBStoreFrom(deps: Omit<StoreDeps, 'store'>): DynamoDBIdempotencyStore {
  return new DynamoDBIdempotencyStore({
    client: deps.client,
    tableName: deps.tables.idempotency,
    // The sweeper finds crashed consumers through the sparse in-flight index.
    trackInflight: true,
    ...(deps.clock === undefined ? {} : { clock: deps.clock }),
  });
}
