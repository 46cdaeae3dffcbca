/**
 * The business writes the variants perform, and how the bench checks from
 * the tables afterwards how often each effect was really applied.
 *
 * - Points: `UpdateItem ADD points :p, applied :one` on the customer's item.
 *   Not idempotent by itself: a second delivery adds again. `applied` counts
 *   the ADDs, so the table says how many effects landed.
 * - Orders: PENDING → PAID on a pre-seeded order, bumping `version`. Ours
 *   uses `transition()` (the condition on the state is the idempotency);
 *   Powertools' record handler writes the same attributes without a
 *   condition, as a user relying on `makeIdempotent` would. `version` counts
 *   the updates applied.
 */
import { UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { transition } from '../src/index.js';
import type { TransitionInput } from '../src/strategies/transaction/state.js';
import type { CountedClient } from './dynamo.js';
import type { BusinessTableKind } from './dynamo.js';
import { pointsFor, type OrderPaid, type Workload } from './workload.js';

/** The points ADD for one event (a plain object: usable as `UpdateCommand` input and as `tx.update(...)`). */
export function addPointsUpdate(table: string, event: OrderPaid) {
  return {
    TableName: table,
    Key: { pk: `customer#${event.customerId}` },
    UpdateExpression: 'ADD points :p, applied :one',
    ExpressionAttributeValues: { ':p': pointsFor(event), ':one': 1 },
  };
}

/** Sends the points ADD on its own. */
export async function addPoints(counted: CountedClient, table: string, event: OrderPaid): Promise<void> {
  await counted.doc.send(new UpdateCommand(addPointsUpdate(table, event)));
}

/** Ours: the order's PENDING → PAID transition. */
export function markPaidTransition(table: string, event: OrderPaid): TransitionInput {
  return { tableName: table, key: { orderNo: event.orderNo }, from: 'PENDING', to: 'PAID', set: { points: pointsFor(event) } };
}

/** Ours: applies the transition; a duplicate finds the order PAID (`already`) and is acknowledged. */
export async function transitionToPaid(counted: CountedClient, table: string, event: OrderPaid): Promise<void> {
  const result = await transition(counted.doc, markPaidTransition(table, event));
  if (result.kind === 'conflict') throw new Error(`order ${event.orderNo} is ${String(result.item['status'])}`);
  if (result.kind === 'missing') throw new Error(`order ${event.orderNo} does not exist`);
}

/** Powertools: the same attributes written by a plain update (its idempotency layer is what prevents a second run). */
export function markPaidUpdate(table: string, event: OrderPaid): UpdateCommandInput {
  return {
    TableName: table,
    Key: { orderNo: event.orderNo },
    UpdateExpression: 'SET #status = :to, points = :p, #version = if_not_exists(#version, :zero) + :one',
    ExpressionAttributeNames: { '#status': 'status', '#version': 'version' },
    ExpressionAttributeValues: { ':to': 'PAID', ':p': pointsFor(event), ':zero': 0, ':one': 1 },
  };
}

/** Sends the plain order update. */
export async function markPaid(counted: CountedClient, table: string, event: OrderPaid): Promise<void> {
  await counted.doc.send(new UpdateCommand(markPaidUpdate(table, event)));
}

/** What the business table holds for the measured workload, against what a correct consumer leaves. */
export interface EffectTally {
  /** Effects applied (points: ADDs; orders: version bumps). */
  readonly applied: number;
  /** Unique business events: what `applied` must be. */
  readonly unique: number;
  /** Points: the total added; orders: the points of PAID orders. */
  readonly points: number;
  readonly expectedPoints: number;
}

const numberOf = (v: unknown): number => (typeof v === 'number' ? v : Number(v ?? 0));

/** Reads the effects off the business table's items, keeping only the measured workload's (not the warm-up's). */
export function tallyEffects(kind: BusinessTableKind, items: ReadonlyArray<Record<string, unknown>>, workload: Workload): EffectTally {
  const base = { unique: workload.events.length, expectedPoints: workload.expectedPoints };
  if (kind === 'points') {
    const mine = items.filter((i) => String(i['pk']).startsWith(`customer#${workload.prefix}c-`));
    return { ...base, applied: sum(mine, 'applied'), points: sum(mine, 'points') };
  }
  const mine = items.filter((i) => String(i['orderNo']).startsWith(`${workload.prefix}o-`));
  return {
    ...base,
    applied: sum(mine, 'version'),
    points: sum(
      mine.filter((i) => i['status'] === 'PAID'),
      'points',
    ),
  };
}

function sum(items: ReadonlyArray<Record<string, unknown>>, attribute: string): number {
  return items.reduce((total, item) => total + numberOf(item[attribute]), 0);
}
