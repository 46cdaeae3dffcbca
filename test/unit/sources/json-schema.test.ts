/**
 * jsonBody(record, schema) / jsonBodyAsync with hand-written Standard Schema
 * v1 objects (no validation library): typed output, issues in the error,
 * asynchronous schemas refused by the synchronous helper.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { InvalidRecordError, jsonBody, jsonBodyAsync } from '../../../src/index.js';
import { BodyParseError, SchemaValidationError } from '../../../src/engine/errors.js';
import type { StandardSchemaResult, StandardSchemaV1 } from '../../../src/engine/standard-schema.js';

interface Order {
  readonly orderNo: string;
}

function check(value: unknown): StandardSchemaResult<Order> {
  const v = value as { orderNo?: unknown } | null;
  if (typeof v?.orderNo === 'string') return { value: { orderNo: v.orderNo.toUpperCase() } };
  return { issues: [{ message: 'expected a string', path: ['order', { key: 'orderNo' }] }, { message: 'bad shape' }] };
}

const sync: StandardSchemaV1<unknown, Order> = { '~standard': { version: 1, vendor: 'test', validate: check } };
const async: StandardSchemaV1<unknown, Order> = { '~standard': { version: 1, vendor: 'test', validate: async (v) => check(v) } };
const rec = (body: string) => ({ messageId: 'm-1', body });

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('did not throw');
}

describe('jsonBody with a schema', () => {
  it("returns the schema's output, typed", () => {
    const order = jsonBody(rec('{"orderNo":"a-1"}'), sync);
    expectTypeOf(order).toEqualTypeOf<Order>();
    expect(order).toEqual({ orderNo: 'A-1' });
  });

  it('a body failing the schema throws SchemaValidationError with the issues, an InvalidRecordError', () => {
    const err = caught(() => jsonBody(rec('{"orderNo":1}'), sync));
    expect(err).toBeInstanceOf(SchemaValidationError);
    expect(err).toBeInstanceOf(InvalidRecordError);
    const e = err as SchemaValidationError;
    expect(e.name).toBe('SchemaValidationError');
    expect(e.issues).toHaveLength(2);
    expect(e.message).toBe('Message m-1: body does not match the schema (order.orderNo: expected a string; bad shape).');
    expect(e.toJSON()).toMatchObject({ name: 'SchemaValidationError', issues: e.issues });
  });

  it('a body that is not JSON is still a BodyParseError', () => {
    expect(caught(() => jsonBody(rec('{'), sync))).toBeInstanceOf(BodyParseError);
  });

  it('an asynchronous schema is refused with a TypeError pointing to jsonBodyAsync', () => {
    const err = caught(() => jsonBody(rec('{"orderNo":"a"}'), async));
    expect(err).toBeInstanceOf(TypeError);
    expect((err as Error).message).toContain('jsonBodyAsync');
  });

  it('something that is not a Standard Schema is a TypeError', () => {
    const notSchema = { parse: () => 1 } as unknown as StandardSchemaV1<unknown, Order>;
    expect(caught(() => jsonBody(rec('{}'), notSchema))).toBeInstanceOf(TypeError);
  });

  it('without a schema it parses as before', () => {
    expect(jsonBody<{ a: number }>(rec('{"a":1}'))).toEqual({ a: 1 });
  });
});

describe('jsonBodyAsync', () => {
  it('validates with an asynchronous or synchronous schema', async () => {
    await expect(jsonBodyAsync(rec('{"orderNo":"b"}'), async)).resolves.toEqual({ orderNo: 'B' });
    await expect(jsonBodyAsync(rec('{"orderNo":"c"}'), sync)).resolves.toEqual({ orderNo: 'C' });
  });

  it('rejects with SchemaValidationError or BodyParseError', async () => {
    await expect(jsonBodyAsync(rec('{}'), async)).rejects.toBeInstanceOf(SchemaValidationError);
    await expect(jsonBodyAsync(rec('nope'), async)).rejects.toBeInstanceOf(BodyParseError);
  });
});
