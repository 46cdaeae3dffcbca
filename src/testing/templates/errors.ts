/**
 * What `createTablesFromTemplate` throws: `TemplateError` names the template, the table's logical id and the
 * expression it could not resolve, so a test fails at its setup with what to pass, never with a table made under
 * a wrong name. `Unresolved` is the resolvers' own signal, raised before they know which table asked; the table
 * reader turns it into a `TemplateError`.
 */
import { EffectivelyOnceError } from '../../engine/error-base.js';
import { TableSchemaMismatchError } from '../../stores/dynamodb/table-create.js';

/** Where a `TemplateError` is, and why. */
interface TemplateErrorDetails {
  readonly template: string;
  readonly logicalId?: string | undefined;
  readonly expression?: string | undefined;
  readonly cause?: unknown;
}

/**
 * A template, or a table it declares, cannot be read or created as declared: a file that is missing or does not
 * parse, a table name or property that needs a value only a deploy knows (`!ImportValue`, `${ssm:...}`, a parameter
 * without a default), or a definition DynamoDB refuses. The message says what to pass.
 *
 * @example
 * ```ts
 * import { TemplateError } from 'effectively-once/testing';
 * const explain = (err: unknown): string => (err instanceof TemplateError ? `${err.logicalId}: ${err.expression}` : String(err));
 * ```
 */
export class TemplateError extends EffectivelyOnceError {
  override readonly name = 'TemplateError';
  /** The template's path, or `template object` for one passed as an object. */
  readonly template: string;
  /** The table's logical id (`OrdersTable`), when the error is about one table. */
  readonly logicalId: string | undefined;
  /** The expression that could not be resolved, as written (`${ssm:/shop/prefix}`, `{"Fn::ImportValue":"prefix"}`). */
  readonly expression: string | undefined;

  constructor(message: string, details: TemplateErrorDetails) {
    super(message, details.cause === undefined ? {} : { cause: details.cause });
    this.template = details.template;
    this.logicalId = details.logicalId;
    this.expression = details.expression;
  }
}

/** An expression the resolvers cannot turn into a value; `hint` says why and what to pass (`pass parameters: ...`). */
export class Unresolved extends Error {
  override readonly name = 'Unresolved';
  constructor(
    readonly expression: string,
    readonly hint: string,
  ) {
    super(`${expression}: ${hint}`);
  }
}

/** An intrinsic function or a value as it is written in the template, short enough for a message. */
export function written(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

/**
 * A table the template declares exists with another schema. Still a `TableSchemaMismatchError` (the name users
 * catch, with `tableName` and `differences`), with a message that does not call it an idempotency table.
 */
export class TemplateTableMismatchError extends TableSchemaMismatchError {
  constructor(tableName: string, logicalId: string, differences: string[]) {
    super(tableName, differences);
    // The parent's message is about the idempotency table; this one is about the template's table.
    this.message = `Table ${tableName} (${logicalId}) exists with another schema than the template declares: ${differences.join('; ')}.`;
  }
}
