/**
 * The conditional `UpdateItem` parameters behind `transition()` and
 * `versionedUpdate()`, built once and used both for a single request and as
 * a transaction action, so the two forms can never drift apart. Every name
 * and value goes through a generated placeholder: reserved words such as
 * `status` and names with dots or dashes work as they are.
 */
import { Expression } from '../../stores/dynamodb/expression-builder.js';
import {
  DEFAULT_STATE_ATTRIBUTE,
  DEFAULT_VERSION_ATTRIBUTE,
  validateStateInput,
  type TransitionInput,
  type VersionedUpdateInput,
} from './transition.js';

/** DynamoDB allows at most 100 operands in an `IN` list. */
export const MAX_FROM_STATES = 100;

/** DocumentClient-shaped `Update` parameters (plain values, not AttributeValues). */
export interface StateUpdate {
  readonly TableName: string;
  readonly Key: Readonly<Record<string, unknown>>;
  readonly UpdateExpression: string;
  readonly ConditionExpression: string;
  readonly ExpressionAttributeNames: Readonly<Record<string, string>>;
  readonly ExpressionAttributeValues: Readonly<Record<string, unknown>>;
  /** Always ALL_OLD: the refused item is what tells `already` from `conflict` without a second read. */
  readonly ReturnValuesOnConditionCheckFailure: 'ALL_OLD';
}

/**
 * Validates a transition and builds its update: condition
 * `attribute_exists(<first key>) AND #state IN (...)` (plus the version when
 * `expectVersion` is given), setting the state, the `set` attributes and
 * `version = if_not_exists(version, 0) + 1`.
 *
 * @throws TypeError naming the bad option.
 */
export function buildTransitionUpdate(input: TransitionInput): StateUpdate {
  const stateAttr = input.stateAttribute ?? DEFAULT_STATE_ATTRIBUTE;
  const versionAttr = input.versionAttribute ?? DEFAULT_VERSION_ATTRIBUTE;
  const states = validateTransition(input, stateAttr, versionAttr);
  const b = new StateExpression(input.key, versionAttr);
  const from = states.map((state, i) => b.value(`from${i}`, state));
  const conditions = [b.exists(), `${b.name(stateAttr, 'state')} IN (${from.join(', ')})`, ...b.versionCondition(input.expectVersion)];
  const sets = [`${b.name(stateAttr, 'state')} = ${b.value('to', input.to)}`, ...b.assignments(input.set ?? {}), b.bump()];
  return b.build(input.tableName, conditions, sets);
}

/**
 * Validates a versioned update and builds it: condition `attribute_exists(<first key>) AND #version = :expected` (for 0:
 * `attribute_not_exists(#version) OR #version = 0`), writing `set` and bumping the version.
 *
 * @throws TypeError naming the bad option.
 */
export function buildVersionedUpdate(input: VersionedUpdateInput): StateUpdate {
  const versionAttr = input.versionAttribute ?? DEFAULT_VERSION_ATTRIBUTE;
  if (typeof input.set !== 'object' || input.set === null) throw new TypeError('set must be an object of attribute values.');
  // With nothing to write, another writer's bump to expectVersion + 1 would read as `already`: a lost update acknowledged.
  if (Object.keys(input.set).length === 0) throw new TypeError('set must write at least one attribute.');
  if (input.expectVersion === undefined) throw new TypeError('expectVersion is required for versionedUpdate.');
  checkAttributeName('versionAttribute', versionAttr, input.key);
  validateStateInput(input, [versionAttr]);
  const b = new StateExpression(input.key, versionAttr);
  return b.build(input.tableName, [b.exists(), ...b.versionCondition(input.expectVersion)], [...b.assignments(input.set), b.bump()]);
}

/** @returns the `from` states as a list. */
function validateTransition(input: TransitionInput, stateAttr: string, versionAttr: string): readonly string[] {
  checkAttributeName('stateAttribute', stateAttr, input.key);
  checkAttributeName('versionAttribute', versionAttr, input.key);
  if (stateAttr === versionAttr) throw new TypeError(`stateAttribute and versionAttribute are both "${stateAttr}".`);
  const from: unknown = input.from;
  const list: readonly unknown[] = typeof from === 'string' ? [from] : Array.isArray(from) ? from : [];
  if (list.length === 0) throw new TypeError('from must be a state or a non-empty list of states.');
  if (list.length > MAX_FROM_STATES) throw new TypeError(`from lists ${list.length} states; DynamoDB allows ${MAX_FROM_STATES}.`);
  if (list.some((s) => typeof s !== 'string' || s.length === 0)) throw new TypeError('from must contain non-empty strings only.');
  if (typeof input.to !== 'string' || input.to.length === 0) throw new TypeError('to must be a non-empty string.');
  // `to` among `from` would apply a duplicate again (rewriting `set`, bumping the version) instead of reporting `already`.
  if (list.includes(input.to)) throw new TypeError(`to "${input.to}" is also in from; a transition must leave its state.`);
  validateStateInput(input, [stateAttr, versionAttr]);
  return list as readonly string[];
}

function checkAttributeName(option: string, name: unknown, key: unknown): void {
  if (typeof name !== 'string' || name.length === 0) throw new TypeError(`${option} must be a non-empty string.`);
  if (typeof key === 'object' && key !== null && Object.hasOwn(key, name)) {
    throw new TypeError(`${option} "${name}" is a key attribute; it cannot hold a state or version.`);
  }
}

/** The state clauses (existence, version check, version bump, `set` assignments) on top of the one placeholder builder. */
class StateExpression extends Expression {
  constructor(
    private readonly key: Readonly<Record<string, unknown>>,
    private readonly versionAttr: string,
  ) {
    super();
  }

  /** `attribute_exists` on the first key attribute: an update must never create the item. */
  exists(): string {
    const [first] = Object.keys(this.key);
    return `attribute_exists(${this.name(first ?? '', 'key')})`;
  }

  versionCondition(expectVersion: number | undefined): string[] {
    if (expectVersion === undefined) return [];
    const v = this.name(this.versionAttr, 'version');
    const expected = this.value('expected', expectVersion);
    // Version 0 is "never versioned": the bump below starts unversioned items at 1.
    return [expectVersion === 0 ? `(attribute_not_exists(${v}) OR ${v} = ${expected})` : `${v} = ${expected}`];
  }

  assignments(set: Readonly<Record<string, unknown>>): string[] {
    return Object.entries(set).map(([attr, value], i) => `${this.name(attr, `a${i}`)} = ${this.value(`a${i}`, value)}`);
  }

  bump(): string {
    const v = this.name(this.versionAttr, 'version');
    return `${v} = if_not_exists(${v}, ${this.value('zero', 0)}) + ${this.value('one', 1)}`;
  }

  build(table: string, conditions: readonly string[], sets: readonly string[]): StateUpdate {
    return {
      TableName: table,
      Key: { ...this.key },
      UpdateExpression: Expression.update(sets),
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeNames: this.attributeNames(),
      ExpressionAttributeValues: this.attributeValues(),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    };
  }
}
