/**
 * State machine decisions, pure. When a conditional update fails, DynamoDB
 * hands back the item as it was (`ReturnValuesOnConditionCheckFailure:
 * 'ALL_OLD'`); these functions turn that item into an outcome, so a
 * duplicate is told from a conflict without a second read.
 */

import { canonicalNumber, numericText } from '../../engine/numbers.js';

/** Default attribute holding the state. */
export const DEFAULT_STATE_ATTRIBUTE = 'status';
/** Default attribute holding the version counter. */
export const DEFAULT_VERSION_ATTRIBUTE = 'version';

/** The update was written. `item` is the item after it (`ReturnValues: 'ALL_NEW'`). */
export interface AppliedOutcome<TItem> {
  readonly kind: 'applied';
  readonly item: TItem;
}
/** The effect is already there (a duplicate delivery): acknowledge, do nothing. `item` is the current item. */
export interface AlreadyOutcome<TItem> {
  readonly kind: 'already';
  readonly item: TItem;
}
/** The item is in another state or at another version: nothing was written. `item` is the current item. */
export interface ConflictOutcome<TItem> {
  readonly kind: 'conflict';
  readonly item: TItem;
}
/** No item under that key: nothing was written (neither helper creates items). */
export interface MissingOutcome {
  readonly kind: 'missing';
}

/** Why a conditional state update was not applied. */
export type RefusedOutcome<TItem> = AlreadyOutcome<TItem> | ConflictOutcome<TItem> | MissingOutcome;

/** Result of `transition()` / `versionedUpdate()`, discriminated on `kind`. Only `applied` wrote anything. */
export type StateOutcome<TItem> = AppliedOutcome<TItem> | RefusedOutcome<TItem>;

/** What {@link decideTransition} needs to know about the requested transition. */
export interface TransitionSpec {
  /** State(s) the item may be in for the transition to apply (at least one). */
  readonly from: string | readonly string[];
  /** Target state. */
  readonly to: string;
  /** Also require this version. 0 matches an item that has no version attribute yet. */
  readonly expectVersion?: number;
  /** Attribute holding the state. Default `status`. */
  readonly stateAttribute?: string;
  /** Attribute holding the version. Default `version`. */
  readonly versionAttribute?: string;
}

/** Input of `transition()`, `transitionAction()` and `tx.transition()`. */
export interface TransitionInput extends TransitionSpec {
  /** Table name. */
  readonly tableName: string;
  /** Full primary key. Its first attribute is the one `attribute_exists` checks. */
  readonly key: Readonly<Record<string, unknown>>;
  /** Other attributes to write with the transition (top-level names; not the key, state or version). */
  readonly set?: Readonly<Record<string, unknown>>;
}

/** What {@link decideVersionedUpdate} needs to know about the requested update. */
export interface VersionedUpdateSpec {
  /** The version the caller read. 0 matches an item that has no version attribute yet. */
  readonly expectVersion: number;
  /** Attributes to write (top-level names; not the key or version). */
  readonly set: Readonly<Record<string, unknown>>;
  /** Attribute holding the version. Default `version`. */
  readonly versionAttribute?: string;
}

/** Input of `versionedUpdate()`, `versionedUpdateAction()` and `tx.versionedUpdate()`. */
export interface VersionedUpdateInput extends VersionedUpdateSpec {
  /** Table name. */
  readonly tableName: string;
  /** Full primary key. Its first attribute is the one `attribute_exists` checks. */
  readonly key: Readonly<Record<string, unknown>>;
}

/**
 * The version an item is at: its version attribute, or 0 when it has none
 * (the helpers write `if_not_exists(version, 0) + 1`, so an unversioned item
 * is version 0). A non-numeric version is `undefined`: it matches nothing.
 */
export function versionOf(item: Readonly<Record<string, unknown>>, versionAttribute = DEFAULT_VERSION_ATTRIBUTE): number | undefined {
  const v = item[versionAttribute];
  if (v === undefined) return 0;
  if (typeof v === 'number') return v;
  const text = numericText(v);
  return text === undefined ? undefined : Number(text);
}

/**
 * Decides a refused transition from the item DynamoDB returned with the failed condition:
 * - no item → `missing`;
 * - item in `to` → `already` (a duplicate), unless `expectVersion` is given and the item's version has not moved past
 *   it (then `to` is someone else's write, not the caller's) → `conflict`;
 * - anything else → `conflict`, an item that seems to satisfy the condition included (a version stored with another
 *   type): never acknowledge what was not applied.
 */
export function decideTransition<TItem extends Readonly<Record<string, unknown>>>(
  item: TItem | undefined,
  spec: TransitionSpec,
): RefusedOutcome<TItem> {
  if (item === undefined) return { kind: 'missing' };
  const state = item[spec.stateAttribute ?? DEFAULT_STATE_ATTRIBUTE];
  if (state !== spec.to) return { kind: 'conflict', item };
  if (spec.expectVersion === undefined) return { kind: 'already', item };
  const version = versionOf(item, spec.versionAttribute);
  return version !== undefined && version > spec.expectVersion ? { kind: 'already', item } : { kind: 'conflict', item };
}

/**
 * Decides a refused versioned update from the item DynamoDB returned.
 *
 * `already` only when the item is exactly one version past `expectVersion`
 * AND holds every requested `set` value: that is what our own earlier write
 * looks like when nothing else happened since. Any later version means other
 * writes followed, and equal values then may be a coincidence → `conflict`.
 */
export function decideVersionedUpdate<TItem extends Readonly<Record<string, unknown>>>(
  item: TItem | undefined,
  spec: VersionedUpdateSpec,
): RefusedOutcome<TItem> {
  if (item === undefined) return { kind: 'missing' };
  if (versionOf(item, spec.versionAttribute) !== spec.expectVersion + 1) return { kind: 'conflict', item };
  const holdsAll = Object.entries(spec.set).every(([name, value]) => sameValue(item[name], value));
  return holdsAll ? { kind: 'already', item } : { kind: 'conflict', item };
}

/**
 * Deep equality for DynamoDB values as the DocumentClient reads them back:
 * sets compare as sets, binary by bytes, numbers by exact decimal value (a
 * bigint, a number and a `NumberValue` holding the same value are equal; no
 * float rounding), maps by their own keys. A plain map is never a number,
 * whatever its keys (`{ value: '2' }` is not `2`).
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const na = numericText(a);
  const nb = numericText(b);
  if (na !== undefined || nb !== undefined) return na !== undefined && nb !== undefined && canonicalNumber(a) === canonicalNumber(b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.from(a).equals(Buffer.from(b));
  if (a instanceof Set && b instanceof Set) return a.size === b.size && [...a].every((x) => [...b].some((y) => sameValue(x, y)));
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    // DynamoDB drops undefined map entries, so they do not count as differences.
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) => sameValue(a[k], b[k]));
  }
  return false;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Set) && !(v instanceof Uint8Array);
}

/** The message for a missing `tableName`; one left on the name it had before 1.0 (`table`) is told so. */
function tableNameMessage(input: object): string {
  return Object.hasOwn(input, 'table')
    ? 'tableName must be a non-empty string (the option "table" is now "tableName").'
    : 'tableName must be a non-empty string.';
}

/**
 * Checks the parts both helpers share; throws a `TypeError` naming the option.
 * `protectedNames` are attributes `set` may not write (the key attributes are
 * added here): they are managed by the helper itself.
 */
export function validateStateInput(input: TransitionInput | VersionedUpdateInput, protectedNames: readonly string[]): void {
  if (typeof input.tableName !== 'string' || input.tableName.length === 0) throw new TypeError(tableNameMessage(input));
  const key = input.key;
  if (typeof key !== 'object' || key === null || Object.keys(key).length === 0) {
    throw new TypeError('key must be an object with at least one key attribute.');
  }
  const exp = input.expectVersion;
  if (exp !== undefined && (typeof exp !== 'number' || !Number.isSafeInteger(exp) || exp < 0)) {
    throw new TypeError(`expectVersion must be a non-negative integer, got ${String(exp)}.`);
  }
  const managed = new Set([...protectedNames, ...Object.keys(key)]);
  for (const [name, value] of Object.entries(input.set ?? {})) {
    if (managed.has(name)) throw new TypeError(`set.${name} is not allowed: the helper manages "${name}" itself.`);
    // An undefined value would marshall to nothing and fail at DynamoDB with an unclear message.
    if (value === undefined) throw new TypeError(`set.${name} is undefined; omit it instead.`);
  }
}
