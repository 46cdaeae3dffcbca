/**
 * The per-invocation store Lambda's Node.js runtime provides on Lambda
 * Managed Instances (`globalThis.awslambda.InvokeStore`, the interface of
 * AWS's `@aws/lambda-invoke-store`): with `AWS_LAMBDA_MAX_CONCURRENCY` set,
 * libraries such as Powertools keep each invocation's state in it, and the
 * runtime runs every invocation inside its own context (an
 * AsyncLocalStorage), its request id set. The bench's environment thread
 * installs it before the function's init and runs each invocation in it, as
 * the runtime does.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** The runtime's own keys, which a library may read but not set. */
const PROTECTED_KEYS = {
  REQUEST_ID: Symbol.for('_AWS_LAMBDA_REQUEST_ID'),
  X_RAY_TRACE_ID: Symbol.for('_AWS_LAMBDA_X_RAY_TRACE_ID'),
  TENANT_ID: Symbol.for('_AWS_LAMBDA_TENANT_ID'),
  TRACEPARENT: Symbol.for('_AWS_LAMBDA_TRACEPARENT'),
  TRACESTATE: Symbol.for('_AWS_LAMBDA_TRACESTATE'),
  BAGGAGE: Symbol.for('_AWS_LAMBDA_BAGGAGE'),
} as const;

type InvokeContext = Record<string | symbol, unknown>;

/** One invocation's values, in an AsyncLocalStorage: many invocations in flight, each sees its own. */
export class RuntimeInvokeStore {
  static readonly PROTECTED_KEYS = PROTECTED_KEYS;
  readonly #als = new AsyncLocalStorage<InvokeContext>();

  getContext(): InvokeContext | undefined {
    return this.#als.getStore();
  }

  hasContext(): boolean {
    return this.#als.getStore() !== undefined;
  }

  get(key: string | symbol): unknown {
    return this.#als.getStore()?.[key];
  }

  set(key: string | symbol, value: unknown): void {
    if ((Object.values(PROTECTED_KEYS) as symbol[]).includes(key as symbol))
      throw new Error(`Cannot modify protected Lambda context field: ${String(key)}`);
    const store = this.#als.getStore();
    if (store === undefined) throw new Error('No context available');
    store[key] = value;
  }

  run<T>(context: InvokeContext, fn: () => T): T {
    return this.#als.run(context, fn);
  }

  getRequestId(): string {
    return (this.get(PROTECTED_KEYS.REQUEST_ID) as string | undefined) ?? '-';
  }

  getXRayTraceId(): string | undefined {
    return this.get(PROTECTED_KEYS.X_RAY_TRACE_ID) as string | undefined;
  }

  getTenantId(): string | undefined {
    return this.get(PROTECTED_KEYS.TENANT_ID) as string | undefined;
  }

  /** Runs `fn` as the invocation `requestId`, as the runtime runs each one. */
  runInvocation<T>(requestId: string, fn: () => T): T {
    return this.run({ [PROTECTED_KEYS.REQUEST_ID]: requestId }, fn);
  }
}

/** Installs the store where the runtime puts it (`globalThis.awslambda.InvokeStore`), before the function's init. */
export function installInvokeStore(): RuntimeInvokeStore {
  const g = globalThis as { awslambda?: { InvokeStore?: unknown } };
  g.awslambda ??= {};
  const store = new RuntimeInvokeStore();
  g.awslambda.InvokeStore = store;
  return store;
}
