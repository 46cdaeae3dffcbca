/**
 * `TransactWriteItems` limits for a commit, checked before anything is sent:
 * the handler's actions plus the store's own idempotency action. The rules
 * themselves are the pure checks in `engine/transaction-limits.ts` (shared with
 * the transaction builder); this file only knows how to read DocumentClient
 * actions and infer a Put's key.
 */
import type { ErrorContext } from '../../engine/errors.js';
import {
  checkActionCount,
  checkDistinctItem,
  checkTransactionSize,
  estimateActionSize,
  itemIdentity,
  projectKey,
  type ActionShape,
  type ItemRef,
} from '../../engine/transaction-limits.js';
import { ATTR } from './layout.js';
import type { TransactItem } from '../../engine/store.js';

type Attributes = Readonly<Record<string, unknown>>;

/** The idempotency action the store adds in front of the handler's actions. */
export interface OwnAction {
  readonly tableName: string;
  readonly id: string;
  readonly item: Attributes;
}

// The one operation inside a TransactItem, or undefined for a malformed one (DynamoDB's validation will say so).
function shapeOf(action: TransactItem): ActionShape | undefined {
  return action.Put ?? action.Update ?? action.Delete ?? action.ConditionCheck;
}

// Key attribute names per table, from the actions that state a key; the idempotency table's key is `id`.
function keyNamesByTable(own: OwnAction, shapes: ReadonlyArray<ActionShape | undefined>): Map<string, string[][]> {
  const names = new Map<string, string[][]>([[own.tableName, [[ATTR.id]]]]);
  for (const shape of shapes) {
    if (shape?.Key === undefined) continue;
    const table = shape.TableName ?? '';
    names.set(table, [...(names.get(table) ?? []), Object.keys(shape.Key)]);
  }
  return names;
}

// The item an action touches. A Put states no key: it is projected on the key names seen
// for its table; failing that the whole item stands in, which still catches exact repeats.
function refOf(shape: ActionShape, keyNames: Map<string, string[][]>): ItemRef {
  const table = shape.TableName ?? '';
  if (shape.Key !== undefined) return { tableName: table, key: shape.Key };
  const item = shape.Item ?? {};
  for (const names of keyNames.get(table) ?? []) {
    const key = projectKey(item, names);
    if (key !== undefined) return { tableName: table, key };
  }
  return { tableName: table, key: item };
}

/**
 * Checks the handler's actions plus the idempotency action against the
 * `TransactWriteItems` limits: action count, one action per item (keys
 * compared canonically), the idempotency record untouched by the handler,
 * and the estimated aggregate size. Returns the commit's footprint (the
 * items it touches, its action count and estimated bytes: what group commit
 * packs by), worked out on the way, so the actions are walked once.
 * @throws TransactionLimitError naming the rule that is broken.
 */
export function checkTransactionLimits(own: OwnAction, actions: readonly TransactItem[], key?: string): CommitFootprint {
  const context: ErrorContext = key === undefined ? {} : { key };
  checkActionCount(actions.length, 1, context);
  const shapes = actions.map(shapeOf);
  const keyNames = keyNamesByTable(own, shapes);
  const reserved: ItemRef = { tableName: own.tableName, key: { [ATTR.id]: own.id } };
  const seen = new Set<string>();
  const items = [itemIdentity(reserved.tableName, reserved.key)];
  let total = estimateActionSize({ TableName: own.tableName, Item: own.item });
  for (const shape of shapes) {
    if (shape === undefined) continue;
    const ref = refOf(shape, keyNames);
    checkDistinctItem(ref, seen, reserved, context);
    const identity = itemIdentity(ref.tableName, ref.key);
    seen.add(identity);
    items.push(identity);
    total += estimateActionSize(shape);
  }
  checkTransactionSize(total, context);
  return { items, actions: actions.length + 1, bytes: total };
}

/** What a record's commit occupies in a group: its items (canonical identities), actions and estimated bytes. */
export interface CommitFootprint {
  readonly items: string[];
  readonly actions: number;
  readonly bytes: number;
}
