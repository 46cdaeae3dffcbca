/**
 * The transaction builder a handler receives as `tx`: it collects DocumentClient-shaped actions and enforces the
 * `TransactWriteItems` limits as each is added, so a broken limit throws at the offending `tx.put(...)` line. Sending
 * is the store's job; nothing here touches a client.
 */
import { ItemTooLargeError, type ErrorContext } from '../../engine/errors.js';
import { MAX_ITEM_BYTES, itemSize } from '../../engine/size.js';
import { transitionAction, versionedUpdateAction } from './state.js';
import {
  checkActionCount,
  checkDistinctItem,
  checkTransactionSize,
  estimateActionSize,
  itemIdentity,
  projectKey,
  type ItemRef,
} from '../../engine/transaction-limits.js';
import type { TransitionInput, VersionedUpdateInput } from './transition.js';
import { systemClock } from '../../engine/clock.js';
import { outboxItem, type OutboxEvent, type OutboxOptions } from './outbox/item.js';
import type { TransactItem } from '../../engine/store.js';
import {
  requireKey,
  requireTable,
  validateOptions,
  type TransactConditionCheckInput,
  type TransactDeleteInput,
  type TransactionBuilderOptions,
  type TransactPutInput,
  type TransactUpdateInput,
} from './options.js';

/** A `Put` whose table's key names are not known yet, so its identity waits. */
type PendingPut = Required<Omit<ActionTarget, 'key'>>;

/**
 * Collects a handler's writes for one `TransactWriteItems` and checks its
 * limits as they are added: at most `100 - reservedActions` actions, no two
 * on the same item, not the reserved item, an estimated 4 MB in all, and no
 * `Put` item over 400 KB. A method that throws leaves the builder unchanged.
 * The middleware's `tx` is closed once the handler settled: adding to it then
 * throws a `TypeError` (a write the handler did not await would be lost).
 *
 * @example
 * ```ts
 * import { TransactionBuilder } from 'effectively-once';
 * const tx = new TransactionBuilder()
 *   .put({ TableName: 'points', Item: { pk: 'user-1#order-1', points: 10 }, ConditionExpression: 'attribute_not_exists(pk)' })
 *   .transition({ tableName: 'orders', key: { pk: 'order-1' }, from: 'PENDING', to: 'PAID' });
 * console.log(tx.size); // 2
 * ```
 */
export class TransactionBuilder {
  readonly #actions: TransactItem[] = [];
  readonly #identities = new Set<string>();
  /** `tx.outbox()` events so far, by table and name. */
  readonly #outboxNames = new Set<string>();
  readonly #keyNames = new Map<string, readonly string[]>();
  readonly #pending: PendingPut[] = [];
  readonly #options: TransactionBuilderOptions;
  #bytes = 0;

  /** @throws TypeError for a bad option, naming it. */
  constructor(options: TransactionBuilderOptions = {}) {
    validateOptions(options);
    this.#options = options;
    for (const [table, names] of Object.entries(options.keySchema ?? {})) this.#keyNames.set(table, [...names]);
    if (options.reservedItem !== undefined && !this.#keyNames.has(options.reservedItem.tableName)) {
      this.#keyNames.set(options.reservedItem.tableName, Object.keys(options.reservedItem.key));
    }
  }

  /** Adds a `Put`. @throws TransactionLimitError, ItemTooLargeError, or TypeError for a malformed input. */
  put(input: TransactPutInput): this {
    requireOpen(this, 'put');
    requireTable('put', input.TableName);
    const item = input.Item;
    if (typeof item !== 'object' || item === null) throw new TypeError('tx.put(): Item must be an object.');
    const size = itemSize(item);
    if (size > MAX_ITEM_BYTES) {
      throw new ItemTooLargeError(
        `tx.put() on ${input.TableName}: the item is ${size} bytes, over 400 KB.`,
        size,
        MAX_ITEM_BYTES,
        this.#context(),
      );
    }
    return this.#add({ Put: this.#withReturnValues(input) }, input, { table: input.TableName, item });
  }

  /** Adds an `Update`. @throws TransactionLimitError, or TypeError for a malformed input. */
  update(input: TransactUpdateInput): this {
    requireOpen(this, 'update');
    requireTable('update', input.TableName);
    if (typeof input.UpdateExpression !== 'string') throw new TypeError('tx.update(): UpdateExpression is required.');
    return this.#add({ Update: this.#withReturnValues(input) }, input, { table: input.TableName, key: requireKey('update', input.Key) });
  }

  /** Adds a `Delete`. @throws TransactionLimitError, or TypeError for a malformed input. */
  delete(input: TransactDeleteInput): this {
    requireOpen(this, 'delete');
    requireTable('delete', input.TableName);
    return this.#add({ Delete: this.#withReturnValues(input) }, input, { table: input.TableName, key: requireKey('delete', input.Key) });
  }

  /** Adds a `ConditionCheck` (a condition on an item this transaction does not write). @throws TransactionLimitError, TypeError. */
  conditionCheck(input: TransactConditionCheckInput): this {
    requireOpen(this, 'conditionCheck');
    requireTable('conditionCheck', input.TableName);
    if (typeof input.ConditionExpression !== 'string') throw new TypeError('tx.conditionCheck(): ConditionExpression is required.');
    const key = requireKey('conditionCheck', input.Key);
    return this.#add({ ConditionCheck: this.#withReturnValues(input) }, input, { table: input.TableName, key });
  }

  /** Adds a state transition (see `transition()`); decode a refusal with `transitionFailure()`. @throws TransactionLimitError, TypeError. */
  transition(input: TransitionInput): this {
    requireOpen(this, 'transition');
    const action = transitionAction(input);
    return this.#add(action, action.Update ?? {}, { table: input.tableName, key: input.key });
  }

  /** Adds an optimistic-lock update (see `versionedUpdate()`); decode a refusal with `versionedUpdateFailure()`. @throws TransactionLimitError, TypeError. */
  versionedUpdate(input: VersionedUpdateInput): this {
    requireOpen(this, 'versionedUpdate');
    const action = versionedUpdateAction(input);
    return this.#add(action, action.Update ?? {}, { table: input.tableName, key: input.key });
  }

  /**
   * Adds an outbox item: a conditional `Put` (`attribute_not_exists`) of the
   * event into `options.tableName`, committed with the business writes and the
   * idempotency record, for `outboxRelay()` to publish from the table's
   * stream. Its id comes from the consumer, the business key and the event's
   * name, so a re-run cannot add a second item. A table with a sort key needs
   * `sortKeyAttribute` (the commit fails with a TypeError naming the missing key attribute otherwise).
   * @throws TypeError for a bad event/option or a builder without consumer and business key; ItemTooLargeError, TransactionLimitError.
   */
  outbox(event: OutboxEvent, options: OutboxOptions): this {
    requireOpen(this, 'outbox');
    const { consumer, businessKey, clock = systemClock } = this.#options;
    if (consumer === undefined || businessKey === undefined) {
      throw new TypeError(
        'tx.outbox(): this builder has no consumer and business key to derive the outbox id from (pass both to new TransactionBuilder()).',
      );
    }
    const item = outboxItem(event, options, { consumer, businessKey, now: clock.now() });
    // The same name twice gives the same id: say so here, not as DynamoDB's "multiple operations on one item".
    const name = options.name ?? event.detailType;
    if (this.#outboxNames.has(`${options.tableName}\u0000${name}`)) {
      throw new TypeError(
        `tx.outbox(): this record already emits an event named ${JSON.stringify(name)} to ${options.tableName}; give each event of a record its own \`name\`.`,
      );
    }
    const keyAttribute = options.keyAttribute ?? 'pk';
    this.put({
      TableName: options.tableName,
      Item: item,
      ConditionExpression: 'attribute_not_exists(#k)',
      ExpressionAttributeNames: { '#k': keyAttribute },
    });
    this.#outboxNames.add(`${options.tableName}\u0000${name}`);
    return this;
  }

  /** The actions so far, in the order added (a cancellation reason's index is a position here). */
  items(): readonly TransactItem[] {
    return [...this.#actions];
  }

  /** Number of actions so far. */
  get size(): number {
    return this.#actions.length;
  }

  /** Estimated request bytes of the actions so far (without `reservedBytes`). */
  get estimatedBytes(): number {
    return this.#bytes;
  }

  /** Runs every check on the candidate, then records it: a throw leaves the builder as it was. */
  #add(action: TransactItem, shape: Parameters<typeof estimateActionSize>[0], target: ActionTarget): this {
    const context = this.#context();
    checkActionCount(this.#actions.length + 1, this.#options.reservedActions ?? 1, context);
    const { refs, learned, stillPending } = this.#resolve(target);
    const seen = new Set(this.#identities);
    for (const ref of refs) {
      checkDistinctItem(ref, seen, this.#options.reservedItem, context);
      seen.add(itemIdentity(ref.tableName, ref.key));
    }
    const bytes = estimateActionSize(shape);
    checkTransactionSize(this.#bytes + bytes + (this.#options.reservedBytes ?? 0), context);
    this.#actions.push(action);
    this.#bytes += bytes;
    for (const identity of seen) this.#identities.add(identity);
    if (learned !== undefined) this.#keyNames.set(target.table, learned);
    this.#pending.splice(0, this.#pending.length, ...stillPending);
    return this;
  }

  /**
   * Which item identities the candidate makes known: its own (when its key is
   * known) and, if it teaches its table's key names, those of earlier `Put`s
   * on that table that were waiting for them.
   */
  #resolve(target: ActionTarget): { refs: ItemRef[]; learned?: readonly string[]; stillPending: PendingPut[] } {
    const known = this.#keyNames.get(target.table);
    const learned = known === undefined && target.key !== undefined ? Object.keys(target.key) : undefined;
    const names = known ?? learned;
    const refs: ItemRef[] = [];
    const stillPending: PendingPut[] = [];
    for (const put of this.#pending) {
      const key = put.table === target.table && names !== undefined ? projectKey(put.item, names) : undefined;
      if (key === undefined) stillPending.push(put);
      else refs.push({ tableName: put.table, key });
    }
    const own = target.key ?? (names === undefined || target.item === undefined ? undefined : projectKey(target.item, names));
    if (own !== undefined) refs.push({ tableName: target.table, key: own });
    else if (target.item !== undefined) stillPending.push({ table: target.table, item: target.item });
    return learned === undefined ? { refs, stillPending } : { refs, learned, stillPending };
  }

  #withReturnValues<T extends Pick<TransactPutInput, 'ConditionExpression' | 'ReturnValuesOnConditionCheckFailure'>>(input: T): T {
    const mode = this.#options.returnValuesOnConditionCheckFailure;
    if (mode === undefined || input.ConditionExpression === undefined || input.ReturnValuesOnConditionCheckFailure !== undefined) {
      return { ...input };
    }
    return { ...input, ReturnValuesOnConditionCheckFailure: mode };
  }

  #context(): ErrorContext {
    return this.#options.businessKey === undefined ? {} : { key: this.#options.businessKey };
  }
}

/** Builders whose transaction was already committed (or abandoned): adding to them is a lost write. */
const closedBuilders = new WeakSet<TransactionBuilder>();

function requireOpen(tx: TransactionBuilder, method: string): void {
  if (closedBuilders.has(tx)) {
    throw new TypeError(
      `tx.${method}(): the handler already returned, so this write would never be committed (a promise the handler did not await?).`,
    );
  }
}

/**
 * Internal (not exported from the package): refuses every later addition to
 * `tx`. The lifecycle calls it once the handler settled, before committing, so
 * a write from a promise the handler did not await throws instead of being
 * dropped silently while the idempotency record commits without it.
 */
export function closeTransactionBuilder(tx: TransactionBuilder): void {
  closedBuilders.add(tx);
}

/** What an action touches: a key, or for a `Put` the whole item. */
interface ActionTarget {
  readonly table: string;
  readonly key?: Readonly<Record<string, unknown>>;
  readonly item?: Readonly<Record<string, unknown>>;
}
