/**
 * The Standard Schema v1 interface (standardschema.dev), declared here in our
 * own words so no validation library becomes a dependency: any schema that
 * carries a `~standard` property of this shape (zod >= 3.24, valibot >= 1,
 * arktype >= 2) validates a record body.
 */

/** One segment of an issue's path, as an object. */
export interface StandardSchemaPathSegment {
  readonly key: PropertyKey;
}

/** One validation problem reported by a schema. */
export interface StandardSchemaIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | StandardSchemaPathSegment> | undefined;
}

/** What `validate` returns: the output value, or the issues. */
export type StandardSchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardSchemaIssue> };

/** The `~standard` property of a Standard Schema v1 schema. */
export interface StandardSchemaProps<Input, Output> {
  readonly version: 1;
  readonly vendor: string;
  readonly validate: (value: unknown) => StandardSchemaResult<Output> | Promise<StandardSchemaResult<Output>>;
  readonly types?: { readonly input: Input; readonly output: Output } | undefined;
}

/**
 * Any Standard Schema v1 schema: what `jsonBody(record, schema)` validates with.
 *
 * @example
 * ```ts
 * import type { StandardSchemaV1 } from 'effectively-once';
 * // Hand-written; a zod, valibot or arktype schema has the same shape.
 * const orderNo: StandardSchemaV1<unknown, string> = {
 *   '~standard': {
 *     version: 1,
 *     vendor: 'example',
 *     validate: (v) => (typeof v === 'string' ? { value: v } : { issues: [{ message: 'expected a string' }] }),
 *   },
 * };
 * ```
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaProps<Input, Output>;
}

/** Whether a value looks like a Standard Schema v1 schema (checked before use: a wrong argument is a TypeError). */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as { '~standard'?: unknown })['~standard'];
  return typeof props === 'object' && props !== null && typeof (props as { validate?: unknown }).validate === 'function';
}

/** One line per issue, `path: message`, for error messages and logs. */
export function describeIssues(issues: ReadonlyArray<StandardSchemaIssue>, max = 5): string {
  const lines = issues.slice(0, max).map((issue) => {
    const path = (issue.path ?? []).map((s) => String(typeof s === 'object' && s !== null ? s.key : s)).join('.');
    return path === '' ? issue.message : `${path}: ${issue.message}`;
  });
  const more = issues.length > max ? `; and ${issues.length - max} more` : '';
  return `${lines.join('; ')}${more}`;
}
