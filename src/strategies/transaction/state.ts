/**
 * State machine helpers: a conditional `UpdateItem` that moves an item
 * between states (or updates it under an optimistic lock) and bumps its
 * version, deciding applied / already / conflict / missing from the one
 * response, never from a second read. The same updates are offered as
 * transaction actions. Decisions live in `transaction/transition.ts`.
 */
import type { AttributeValue, CancellationReason } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall, type unmarshallOptions } from '@aws-sdk/util-dynamodb';
import type { CancellationReasonInfo } from '../../engine/errors.js';
import {
  decideTransition,
  decideVersionedUpdate,
  type RefusedOutcome,
  type StateOutcome,
  type TransitionInput,
  type VersionedUpdateInput,
} from './transition.js';
import { buildTransitionUpdate, buildVersionedUpdate, type StateUpdate } from './state-expressions.js';
import { isAwsError } from '../../stores/dynamodb/refusals.js';
import type { TransactItem } from '../../engine/store.js';

export type { TransitionInput, VersionedUpdateInput };

/** A stored item as the helpers return it; narrow it with the `TItem` type parameter. */
export type StateItem = Record<string, unknown>;

/**
 * Moves an item from one of the `from` states to `to` with ONE conditional
 * `UpdateItem`: sets the state and the `set` attributes and bumps the version.
 * A refused condition is decided from the item DynamoDB returns with it:
 * `already` (it is in `to`: a duplicate, acknowledge), `conflict` (another
 * state or version) or `missing`. Neither outcome wrote anything.
 *
 * `TItem` is not checked at run time: it is what you assert the table holds.
 *
 * @example
 * ```ts
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 * import { transition } from 'effectively-once';
 *
 * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
 * const r = await transition<{ pk: string; status: string; paidAt?: number }>(client, {
 *   tableName: 'orders', key: { pk: 'order-1' }, from: 'PENDING', to: 'PAID', set: { paidAt: Date.now() },
 * });
 * if (r.kind === 'conflict') throw new Error(`order is ${r.item.status}`);
 * ```
 * @throws TypeError for bad input (naming the option); any other DynamoDB error as is.
 */
export async function transition<TItem extends StateItem = StateItem>(
  client: DynamoDBDocumentClient,
  input: TransitionInput,
): Promise<StateOutcome<TItem>> {
  const update = buildTransitionUpdate(input);
  return send<TItem>(client, update, (item) => decideTransition(item, input));
}

/**
 * Optimistic lock: writes `set` and bumps the version only if the item is at
 * `expectVersion` (an item without a version attribute is at 0). Never
 * creates an item: a missing one is `missing` (create it with a conditional
 * put). `already` means the item is at `expectVersion + 1` and already holds
 * every `set` value, which is what a duplicate of this very update finds;
 * anything else is a `conflict` carrying the current item.
 *
 * @example
 * ```ts
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 * import { versionedUpdate } from 'effectively-once';
 *
 * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
 * const r = await versionedUpdate(client, { tableName: 'carts', key: { pk: 'cart-1' }, expectVersion: 3, set: { total: 42 } });
 * if (r.kind === 'conflict') console.log('re-read and retry at version', r.item['version']);
 * ```
 * @throws TypeError for bad input (naming the option); any other DynamoDB error as is.
 */
export async function versionedUpdate<TItem extends StateItem = StateItem>(
  client: DynamoDBDocumentClient,
  input: VersionedUpdateInput,
): Promise<StateOutcome<TItem>> {
  const update = buildVersionedUpdate(input);
  return send<TItem>(client, update, (item) => decideVersionedUpdate(item, input));
}

/**
 * {@link transition} as a `TransactWriteItems` action (`Update` with
 * `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`), for `tx.transition(...)`
 * or your own `TransactWriteCommand`. If the transaction is cancelled, pass
 * this action's cancellation reason to {@link transitionFailure}.
 *
 * @example
 * ```ts
 * import { transitionAction } from 'effectively-once';
 * const action = transitionAction({ tableName: 'orders', key: { pk: 'order-1' }, from: 'PENDING', to: 'PAID' });
 * ```
 * @throws TypeError for bad input, naming the option.
 */
export function transitionAction(input: TransitionInput): TransactItem {
  return { Update: { ...buildTransitionUpdate(input) } };
}

/**
 * {@link versionedUpdate} as a `TransactWriteItems` action (`Update` with
 * `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`). Decode a cancellation
 * with {@link versionedUpdateFailure}.
 *
 * @example
 * ```ts
 * import { versionedUpdateAction } from 'effectively-once';
 * const action = versionedUpdateAction({ tableName: 'carts', key: { pk: 'cart-1' }, expectVersion: 3, set: { total: 42 } });
 * ```
 * @throws TypeError for bad input, naming the option.
 */
export function versionedUpdateAction(input: VersionedUpdateInput): TransactItem {
  return { Update: { ...buildVersionedUpdate(input) } };
}

/**
 * One entry of a cancelled transaction's `CancellationReasons`: either as
 * DynamoDB sent it (`Code`, marshalled `Item`; the DocumentClient does not
 * unmarshall errors) or as this library reports it in
 * `BusinessConflictError.reasons` (`code`, plain `item`).
 */
export type CancellationReasonInput = CancellationReason | CancellationReasonInfo;

/**
 * Why a transaction's transition action refused, from its cancellation
 * reason: `already`, `conflict` or `missing`, like {@link transition}.
 * `undefined` when this action's condition did not fail (the transaction was
 * cancelled by another action, a conflict or throttling). Pure: no request.
 *
 * @example
 * ```ts
 * import { transitionFailure } from 'effectively-once';
 * const input = { tableName: 'orders', key: { pk: 'order-1' }, from: 'PENDING', to: 'PAID' }; // as given to transitionAction()
 * declare const reasons: { Code?: string }[];
 * const refused = reasons[0] === undefined ? undefined : transitionFailure(reasons[0], input);
 * if (refused?.kind === 'already') console.log('duplicate: the order is already paid');
 * ```
 */
export function transitionFailure<TItem extends StateItem = StateItem>(
  reason: CancellationReasonInput,
  input: TransitionInput,
  options?: unmarshallOptions,
): RefusedOutcome<TItem> | undefined {
  const failed = readReason(reason, options);
  return failed === NOT_REFUSED ? undefined : decideTransition(failed as TItem | undefined, input);
}

/**
 * Why a transaction's versioned-update action refused, from its cancellation
 * reason (see {@link transitionFailure}). Pure: no request.
 *
 * @example
 * ```ts
 * import { versionedUpdateFailure } from 'effectively-once';
 * const input = { tableName: 'carts', key: { pk: 'cart-1' }, expectVersion: 3, set: { total: 42 } }; // as given to versionedUpdateAction()
 * const refused = versionedUpdateFailure({ Code: 'ConditionalCheckFailed' }, input);
 * console.log(refused?.kind); // 'missing': no item came back
 * ```
 */
export function versionedUpdateFailure<TItem extends StateItem = StateItem>(
  reason: CancellationReasonInput,
  input: VersionedUpdateInput,
  options?: unmarshallOptions,
): RefusedOutcome<TItem> | undefined {
  const failed = readReason(reason, options);
  return failed === NOT_REFUSED ? undefined : decideVersionedUpdate(failed as TItem | undefined, input);
}

const NOT_REFUSED = Symbol('not refused');

/** The old item of a reason whose condition failed, `undefined` for no item, NOT_REFUSED otherwise. */
function readReason(reason: CancellationReasonInput, options?: unmarshallOptions): StateItem | undefined | typeof NOT_REFUSED {
  if ('code' in reason) return reason.code === 'ConditionalCheckFailed' ? reason.item : NOT_REFUSED;
  if (reason.Code !== 'ConditionalCheckFailed') return NOT_REFUSED;
  return reason.Item === undefined ? undefined : unmarshall(reason.Item, itemOptions(options));
}

/**
 * A DocumentClient sets `convertWithoutMapWrapper: true` on the options it was
 * given (on its first request); a whole item is a map without its wrapper, so
 * that flag would make `unmarshall` fail on it.
 */
function itemOptions(options: unmarshallOptions | undefined): unmarshallOptions {
  return { ...options, convertWithoutMapWrapper: false };
}

async function send<TItem extends StateItem>(
  client: DynamoDBDocumentClient,
  update: StateUpdate,
  decide: (item: TItem | undefined) => RefusedOutcome<TItem>,
): Promise<StateOutcome<TItem>> {
  try {
    const out = await client.send(new UpdateCommand({ ...update, ReturnValues: 'ALL_NEW' }));
    return { kind: 'applied', item: (out.Attributes ?? {}) as TItem };
  } catch (err) {
    if (!isAwsError(err, 'ConditionalCheckFailedException')) throw err;
    // The DocumentClient leaves the exception's Item marshalled; decode it as the client would its results.
    const options = client.config.translateConfig?.unmarshallOptions;
    const wire = err['Item'] as Record<string, AttributeValue> | undefined;
    const item = wire === undefined ? undefined : (unmarshall(wire, itemOptions(options)) as TItem);
    return decide(item);
  }
}
