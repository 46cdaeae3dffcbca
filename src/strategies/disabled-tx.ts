/**
 * The `tx` handed to per-record handlers when the strategy is not
 * `transaction()`. Every builder method throws when called: writes added here
 * would never be sent, and a silently dropped write is a lost effect. Anything
 * else (`JSON.stringify(ctx)`, `${ctx.tx}`, `util.inspect`, `console.log`)
 * sees an empty object, so logging a handler's context never fails a record.
 */
import type { TransactionBuilder } from './transaction/builder.js';

/**
 * The builder's public members; the type makes adding one to the builder
 * without listing it here a compile error. The getters throw when read.
 */
const BUILDER_MEMBERS: Record<keyof TransactionBuilder, 'method' | 'getter'> = {
  put: 'method',
  update: 'method',
  delete: 'method',
  conditionCheck: 'method',
  transition: 'method',
  versionedUpdate: 'method',
  outbox: 'method',
  items: 'method',
  size: 'getter',
  estimatedBytes: 'getter',
};

const isMember = (property: string | symbol): property is keyof TransactionBuilder =>
  typeof property === 'string' && Object.hasOwn(BUILDER_MEMBERS, property);

/** A TransactionBuilder whose every method throws a TypeError explaining why. */
export function disabledTransaction(reason: string): TransactionBuilder {
  return new Proxy({} as TransactionBuilder, {
    get(target, property, receiver) {
      if (!isMember(property)) return Reflect.get(target, property, receiver);
      if (BUILDER_MEMBERS[property] === 'getter') throw new TypeError(`tx.${property} is not available: ${reason}`);
      return () => {
        throw new TypeError(`tx.${property}() is not available: ${reason}`);
      };
    },
  });
}
