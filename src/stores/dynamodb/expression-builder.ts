/**
 * The one builder of DynamoDB expressions, used by the idempotency store's
 * requests (src/stores/dynamodb/expressions.ts) and by `transition()` /
 * `versionedUpdate()` (src/strategies/transaction/state-expressions.ts). Pure: it only collects
 * placeholders and joins clauses, so the requests built on it stay plain
 * DocumentClient inputs that can be read and reviewed.
 */

/** The `ExpressionAttributeNames` / `ExpressionAttributeValues` pair of a request. */
export interface ExpressionAttributes {
  readonly ExpressionAttributeNames: Readonly<Record<string, string>>;
  /** Absent when the expression uses no value: DynamoDB rejects an empty map. */
  readonly ExpressionAttributeValues?: Readonly<Record<string, unknown>>;
}

/**
 * Collects the names and values an expression uses while its strings are
 * assembled. Every attribute goes through a `#name` placeholder (`status`,
 * `owner`, `result` are reserved words; user attributes may hold dots or
 * dashes), and only the placeholders used are sent, because DynamoDB rejects
 * unused ones. Using a placeholder twice is fine: it is registered once.
 */
export class Expression {
  readonly #names: Record<string, string> = {};
  readonly #values: Record<string, unknown> = {};

  /** The `#placeholder` of `attribute`; the placeholder defaults to the attribute name itself. */
  name(attribute: string, placeholder: string = attribute): string {
    this.#names[`#${placeholder}`] = attribute;
    return `#${placeholder}`;
  }

  /** The `:label` placeholder of `value`. */
  value(label: string, value: unknown): string {
    this.#values[`:${label}`] = value;
    return `:${label}`;
  }

  /** `#attribute = :label`, the comparison or `SET` entry that gives `attribute` the value `value`. */
  assign(attribute: string, label: string, value: unknown): string {
    return `${this.name(attribute)} = ${this.value(label, value)}`;
  }

  /** A copy of the names used so far. */
  attributeNames(): Record<string, string> {
    return { ...this.#names };
  }

  /** A copy of the values used so far (possibly empty). */
  attributeValues(): Record<string, unknown> {
    return { ...this.#values };
  }

  /** Names and values for a request; the values map is left out when empty. */
  attributes(): ExpressionAttributes {
    const names = this.attributeNames();
    return Object.keys(this.#values).length === 0
      ? { ExpressionAttributeNames: names }
      : { ExpressionAttributeNames: names, ExpressionAttributeValues: this.attributeValues() };
  }

  /** `SET a, b REMOVE c, d`: a clause with no entries is left out. */
  static update(set: readonly string[], remove: readonly string[] = []): string {
    const clauses = [set.length > 0 ? `SET ${set.join(', ')}` : '', remove.length > 0 ? `REMOVE ${remove.join(', ')}` : ''];
    return clauses.filter((c) => c !== '').join(' ');
  }
}
