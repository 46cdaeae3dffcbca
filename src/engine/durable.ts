/**
 * Lambda durable functions, recognised by the shape of their context, never by importing the SDK. A durable execution
 * is replayed from the start after every wait, so a claim is keyed to the execution (docs/durable-functions.md).
 */
import { resumeOwnClaim } from './claim-decide.js';
import type { Context } from 'aws-lambda';

/**
 * The lease of a durable execution's claim, ms: 366 days, the longest a durable execution may run. Nothing renews the
 * claim during a wait of any length, so the lease must outlast the execution, or another execution could take the key
 * over and apply the effect twice. A stopped execution holds its key until then (`npx effectively-once forget` frees
 * it), or set a shorter `durable.leaseMs` on `idempotent()` (the function's execution timeout + a margin).
 */
export const DURABLE_LEASE_MS = 366 * 24 * 60 * 60 * 1000;

/** What this library reads of a Lambda context. */
export type LambdaContextLike = Partial<Pick<Context, 'functionName' | 'getRemainingTimeInMillis'>>;

/** What this library reads of a durable function's `DurableContext`. */
export interface DurableContextLike {
  readonly executionContext: { readonly durableExecutionArn: string };
  /** The invocation's Lambda context (its function name, its remaining time). */
  readonly lambdaContext?: unknown;
  readonly step: (...args: never[]) => unknown;
}

/**
 * Whether `value` is a durable function's context: it names its execution
 * (`executionContext.durableExecutionArn`) and has `step`. Checked by shape,
 * so the SDK is never loaded here.
 */
export function isDurableContext(value: unknown): value is DurableContextLike {
  if (typeof value !== 'object' || value === null) return false;
  const { executionContext, step } = value as { executionContext?: unknown; step?: unknown };
  if (typeof executionContext !== 'object' || executionContext === null || typeof step !== 'function') return false;
  const arn = (executionContext as { durableExecutionArn?: unknown }).durableExecutionArn;
  return typeof arn === 'string' && arn.length > 0;
}

/** The durable execution a call belongs to: what its claim is keyed to. */
export interface DurableExecution {
  readonly arn: string;
  /**
   * Written as the claim's `messageId`, so a replay of this execution knows
   * the IN_PROGRESS claim as its own (`durable:` + the ARN; an SQS message
   * id or an EventBridge event id never starts so).
   */
  readonly marker: string;
  /** The lease of its claims, ms: it spans the whole execution, waits included (see `DURABLE_LEASE_MS`). */
  readonly leaseMs: number;
  /** How a replay takes its own claim back (claim-decide.ts). */
  readonly resume: typeof resumeOwnClaim;
}

/**
 * The durable execution of `context` (a `DurableContext`), or `undefined`
 * for any other context (a plain Lambda one, none). `leaseMs` overrides the
 * execution's lease (default `DURABLE_LEASE_MS`).
 */
export function durableExecutionOf(context: unknown, leaseMs?: number): DurableExecution | undefined {
  if (!isDurableContext(context)) return undefined;
  const arn = context.executionContext.durableExecutionArn;
  return { arn, marker: `durable:${arn}`, leaseMs: leaseMs ?? DURABLE_LEASE_MS, resume: resumeOwnClaim };
}

/**
 * The Lambda context behind `context`: a durable function's handler gets a
 * `DurableContext` where a Lambda one is expected (it holds the Lambda
 * context as `lambdaContext`); any other context is returned as it is.
 */
export function lambdaContextOf<T>(context: T): T | LambdaContextLike {
  if (!isDurableContext(context)) return context;
  const inner = context.lambdaContext;
  return typeof inner === 'object' && inner !== null ? (inner as LambdaContextLike) : context;
}
