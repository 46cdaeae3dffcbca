/**
 * The `tx` handed to per-record handlers when the strategy is not
 * `transaction()`. Every builder method throws when called: writes added here
 * would never be sent, and a silently dropped write is a lost effect. Reading
 * is safe: `tx.size` and `tx.estimatedBytes` are 0 (nothing can be added), and
 * anything else (`JSON.stringify(ctx)`, `${ctx.tx}`, `util.inspect`,
 * `console.log`) sees an empty object, so logging or inspecting a handler's
 * context never fails a record.
 */
import type { TransactionBuilder } from './transaction/builder.js';

/** Each builder member: `'method'`, or what an empty builder's getter reads (typed as the getter is). */
type Members = {
  readonly [K in keyof TransactionBuilder]: TransactionBuilder[K] extends (...args: never[]) => unknown
    ? 'method'
    : { readonly empty: TransactionBuilder[K] };
};

/**
 * The builder's public members; the type makes adding one to the builder
 * without listing it here a compile error. The getters read as an empty builder's.
 */
const BUILDER_MEMBERS: Members = {
  put: 'method',
  update: 'method',
  delete: 'method',
  conditionCheck: 'method',
  transition: 'method',
  versionedUpdate: 'method',
  outbox: 'method',
  items: 'method',
  size: { empty: 0 },
  estimatedBytes: { empty: 0 },
};

const isMember = (property: string | symbol): property is keyof TransactionBuilder =>
  typeof property === 'string' && Object.hasOwn(BUILDER_MEMBERS, property);

/** A TransactionBuilder whose every method throws a TypeError explaining why. */
export function disabledTransaction(reason: string): TransactionBuilder {
  return new Proxy({} as TransactionBuilder, {
    get(target, property, receiver) {
      if (!isMember(property)) return Reflect.get(target, property, receiver);
      const member = BUILDER_MEMBERS[property];
      // A read changes nothing: it answers as an empty builder would (`size`, `estimatedBytes`: 0).
      if (member !== 'method') return member.empty;
      return () => {
        throw new TypeError(`tx.${property}() is not available: ${reason}`);
      };
    },
    has: (target, property) => isMember(property) || Reflect.has(target, property),
  });
}
