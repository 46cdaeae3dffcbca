/**
 * One invocation's view of the Lambda context: how a handler wrapper (`eventBridgeHandler`, `eachRecord`) finds the state of
 * the invocation that called it, with no registry and no mark on the caller's objects (Middy's `request.internal` is
 * not reachable from the handler). Another invocation given the same context object gets a view of its own.
 */

/**
 * The caller's context, read and written through (a middleware after ours
 * that sets `callbackWaitsForEmptyEventLoop` sets it on the real one), that
 * also answers `slot` with `state`. `copied`: `slot` is an own enumerable
 * property of the view, so a copy a later middleware makes (`{ ...context }`)
 * still leads to the invocation; else only the view itself does.
 */
export function contextWith<C extends object>(context: C, slot: symbol, state: unknown, copied = false): C {
  // A method runs on the context itself: a class's private fields are not on the proxy.
  const bound = new Map<unknown, unknown>();
  // A proxy may report a property its target lacks only while the target can take new ones.
  const listed = copied && Object.isExtensible(context);
  return new Proxy(context, {
    get(target, property) {
      if (property === slot) return state;
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const own = Reflect.getOwnPropertyDescriptor(target, property);
      // A proxy must answer a frozen property with its own value.
      if (own !== undefined && own.configurable === false && own.writable === false) return value;
      if (!bound.has(value)) bound.set(value, value.bind(target));
      return bound.get(value);
    },
    ownKeys: (target) => (listed ? [...Reflect.ownKeys(target), slot] : Reflect.ownKeys(target)),
    getOwnPropertyDescriptor(target, property) {
      if (listed && property === slot) return { value: state, enumerable: true, configurable: true, writable: false };
      return Reflect.getOwnPropertyDescriptor(target, property);
    },
  });
}

/** What `slot` holds on a context (or a copy of one) {@link contextWith} made; `undefined` elsewhere. */
export function stateOf<T>(context: unknown, slot: symbol): T | undefined {
  if (typeof context !== 'object' || context === null) return undefined;
  return (context as Record<symbol, T | undefined>)[slot];
}
