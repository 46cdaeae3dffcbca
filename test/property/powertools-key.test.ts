/**
 * `powertoolsKey` and `powertoolsHash` (src/stores/powertools/key.ts) against Powertools 2.35.0 itself: for any JSON
 * value, keys spelt in any order and case, our key is the one its `DynamoDBPersistenceLayer` derives
 * (`getHashedIdempotencyKey`, with its JMESPath selection), and our payload hash its `getHashedPayload`. The
 * devDependency is run here, never imported by src/. test/integration/powertools/key.test.ts reads the keys it writes
 * to its table.
 */
import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { powertoolsHash, powertoolsKey } from '../../src/stores/powertools/key.js';
import { seeded } from './seed.js';

/** Powertools' persistence layer with its key and payload hash reachable (both are its own, unchanged). */
class PowertoolsKeys extends DynamoDBPersistenceLayer {
  constructor(config: ConstructorParameters<typeof IdempotencyConfig>[0], keyPrefix: string) {
    super({ tableName: 'never-read' });
    this.configure({ config: new IdempotencyConfig(config), keyPrefix });
  }

  keyOf(data: unknown): string {
    return this.getHashedIdempotencyKey(data as Parameters<DynamoDBPersistenceLayer['deleteRecord']>[0]);
  }

  payloadHashOf(data: unknown): string {
    const hashed = Reflect.get(this, 'getHashedPayload') as (d: unknown) => string;
    return hashed.call(this, data);
  }
}

/** Object keys that collide without case, and ones that sort differently with it. */
const key = fc.constantFrom('a', 'A', 'b', 'B', 'orderNo', 'OrderNo', 'zeta', '_x', 'Ä', '10', '9', '__proto__');
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 5 }),
  ),
})).value;

describe('powertoolsKey: Powertools 2.35.0’s own idempotency key', () => {
  it('for any JSON value, whole (no eventKeyJmesPath), with md5 and with sha256', () => {
    fc.assert(
      fc.property(json, fc.constantFrom('md5', 'sha256'), (value, hashFunction) => {
        const powertools = new PowertoolsKeys({ hashFunction }, 'orders-fn');
        expect(powertoolsKey('orders-fn', value, hashFunction)).toBe(powertools.keyOf(value));
      }),
      seeded(300),
    );
  });

  it('for what eventKeyJmesPath selects from an SQS record’s JSON body (powertools_json)', () => {
    fc.assert(
      fc.property(fc.dictionary(key, json, { maxKeys: 4 }), json, (rest, orderNo) => {
        fc.pre(orderNo !== null);
        const record = { messageId: 'm-1', body: JSON.stringify({ ...rest, orderNo }) };
        const powertools = new PowertoolsKeys({ eventKeyJmesPath: 'powertools_json(body).orderNo' }, 'orders-fn');
        const selected = (JSON.parse(record.body) as { orderNo: unknown }).orderNo;
        expect(powertoolsKey('orders-fn', selected)).toBe(powertools.keyOf(record));
      }),
      seeded(200),
    );
  });

  it('for JMESPath multi-selects: a list, and a hash whose missing fields select null', () => {
    const record = { body: JSON.stringify({ customerId: 'c-7', orderNo: 42 }) };
    const list = new PowertoolsKeys({ eventKeyJmesPath: 'powertools_json(body).[customerId, orderNo]' }, 'p');
    expect(powertoolsKey('p', ['c-7', 42])).toBe(list.keyOf(record));
    const hash = new PowertoolsKeys({ eventKeyJmesPath: 'powertools_json(body).{order: orderNo, coupon: coupon}' }, 'p');
    expect(powertoolsKey('p', { order: 42, coupon: null })).toBe(hash.keyOf(record));
    // An absent field is not null to JSON.stringify: the mapping must say `?? null` (docs/migrating-from-powertools.md).
    expect(powertoolsKey('p', { order: 42, coupon: undefined })).not.toBe(hash.keyOf(record));
  });

  it('powertoolsHash is the payload validation hash (payloadValidationJmesPath)', () => {
    fc.assert(
      fc.property(json, (detail) => {
        const powertools = new PowertoolsKeys({ eventKeyJmesPath: 'id', payloadValidationJmesPath: 'detail' }, 'p');
        expect(powertoolsHash(detail)).toBe(powertools.payloadHashOf({ id: 'e-1', detail }));
      }),
      seeded(200),
    );
  });
});
