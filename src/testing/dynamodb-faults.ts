/**
 * Fault injection for a DynamoDB client, as middleware on its own stack: throttling, transaction conflicts, network
 * errors before or after the write reached the table ("after": the write happened, the caller sees an error and the
 * SDK retries it), and latency, by seeded chance or at named calls. It sits below the SDK's retry layer, so the
 * library sees only what the SDK would leave in a real region.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { chanceOf, Occurrences } from './chance.js';
import { SimulationError } from './errors.js';
import { checkpoint } from './invocation.js';
import { checkOptions, type OptionRules } from '../engine/options.js';
import { intIn } from './rules.js';

const FAULT_KINDS = ['throttle', 'transaction-conflict', 'network-before', 'network-after', 'latency'] as const;

/** What an injected fault does. */
export type DynamoDBFaultKind = (typeof FAULT_KINDS)[number];

/** One rule: which requests get which fault. */
export interface DynamoDBFaultRule {
  readonly fault: DynamoDBFaultKind;
  /**
   * Chance (0..1) per matching request attempt. Decided by hashing the seed
   * with the command, the item key and the attempt's number for that key, so
   * a seed gives the same decisions whatever the scheduling.
   */
  readonly probability?: number;
  /** Or the matching attempts that get the fault, by 1-based number across the client's life. */
  readonly calls?: readonly number[];
  /** Only these commands, by name without `Command` (e.g. `UpdateItem`, `TransactWriteItems`); default all. */
  readonly commands?: readonly string[];
  /** For `latency`: the added delay in ms (default 20). */
  readonly latencyMs?: number;
}

/** Options of {@link injectDynamoDBFaults}. */
export interface DynamoDBFaultOptions {
  readonly rules: readonly DynamoDBFaultRule[];
  /** Seed of the `probability` decisions (default 1). */
  readonly seed?: number;
}

/** Counts per fault kind. */
export type FaultCounts = Readonly<Record<DynamoDBFaultKind, number>>;

/** A live injector on one client. */
export interface DynamoDBFaultInjector {
  /** Faults injected so far (each retry attempt counts), by kind. */
  injected(): FaultCounts;
  /** Injected errors that reached the caller after the SDK's own retries, by kind. */
  surfaced(): FaultCounts;
  /** Takes the middleware off the client. */
  remove(): void;
}

/** The slice of an AWS SDK v3 client the injector needs: its middleware stack (a `DynamoDBDocumentClient` shares its client's). */
export type MiddlewareClient = Pick<DynamoDBClient, 'middlewareStack'>;

/** The error behind every injected fault, whatever name it wears for the SDK. */
export class InjectedDynamoDBFault extends SimulationError {
  /** The name the SDK and the library classify by, e.g. `ProvisionedThroughputExceededException`. */
  override readonly name: string;
  /** The kind of fault, also when `name` says e.g. `ProvisionedThroughputExceededException`. */
  readonly fault: DynamoDBFaultKind;
  readonly command: string;
  /** Whether the request reached the table before the error (`network-after`). */
  readonly written: boolean;
  // SDK-style fields, so the SDK's retry classification and the library's error checks see a real-looking error.
  readonly $fault: 'client' | 'server';
  readonly $metadata: { readonly httpStatusCode?: number; readonly attempts?: number };
  readonly code?: string;
  readonly CancellationReasons?: ReadonlyArray<{ readonly Code: string }>;

  constructor(fault: DynamoDBFaultKind, command: string, input: Record<string, unknown>) {
    super(`${MESSAGES[fault]} (injected into ${command})`);
    this.fault = fault;
    this.command = command;
    this.written = fault === 'network-after';
    this.name = wireName(fault, command);
    this.$fault = fault === 'throttle' || fault === 'transaction-conflict' ? 'client' : 'server';
    this.$metadata = fault.startsWith('network') ? {} : { httpStatusCode: 400 };
    if (fault.startsWith('network')) this.code = 'ECONNRESET';
    if (this.name === 'TransactionCanceledException') this.CancellationReasons = conflictReasons(input);
  }
}

const MESSAGES: Readonly<Record<DynamoDBFaultKind, string>> = {
  throttle: 'The level of configured provisioned throughput for the table was exceeded',
  'transaction-conflict': 'Transaction cancelled: TransactionConflict, the item is being changed by another transaction',
  'network-before': 'socket hang up before the request reached DynamoDB',
  'network-after': 'socket hang up after DynamoDB applied the request (the response was lost)',
  latency: 'latency',
};

function wireName(fault: DynamoDBFaultKind, command: string): string {
  if (fault === 'throttle') return 'ProvisionedThroughputExceededException';
  if (fault === 'transaction-conflict')
    return command === 'TransactWriteItems' ? 'TransactionCanceledException' : 'TransactionConflictException';
  return 'Error';
}

// One reason per action, as DynamoDB returns them: the first action conflicted, the others did not run.
function conflictReasons(input: Record<string, unknown>): Array<{ Code: string }> {
  const actions = Array.isArray(input['TransactItems']) ? input['TransactItems'].length : 1;
  return Array.from({ length: Math.max(1, actions) }, (_, i) => ({ Code: i === 0 ? 'TransactionConflict' : 'None' }));
}

/**
 * The key of a Put's (marshalled) item: `id` (idempotency records) or `pk`
 * (business and outbox items), else the whole item. Never the whole item of
 * a claim: it holds a random owner token and the time, so a seed would
 * decide anew in every run.
 */
function putKey(item: unknown): unknown {
  if (typeof item !== 'object' || item === null) return item;
  const attrs = item as Record<string, unknown>;
  return attrs['id'] ?? attrs['pk'] ?? item;
}

/** A stable label for the item a request touches (marshalled input). */
function itemLabel(input: Record<string, unknown>): string {
  const key = input['Key'] ?? (input['Item'] === undefined ? undefined : putKey(input['Item']));
  if (key !== undefined) return `${String(input['TableName'])}|${JSON.stringify(key)}`;
  const actions = input['TransactItems'];
  if (Array.isArray(actions)) {
    return actions
      .map((a: Record<string, { TableName?: string; Key?: unknown; Item?: Record<string, unknown> }>) => {
        const op = Object.values(a)[0];
        return `${op?.TableName ?? ''}|${JSON.stringify(op?.Key ?? op?.Item?.['id'] ?? op?.Item?.['pk'] ?? '')}`;
      })
      .join(';');
  }
  return JSON.stringify(input);
}

const ruleRules: OptionRules = {
  fault: { expected: `one of ${FAULT_KINDS.join(', ')}`, required: true, check: (v) => FAULT_KINDS.includes(v as DynamoDBFaultKind) },
  probability: { expected: 'a number from 0 to 1', check: (v) => typeof v === 'number' && v >= 0 && v <= 1 },
  calls: { expected: 'an array of integers >= 1', check: (v) => Array.isArray(v) && v.every((n) => Number.isInteger(n) && n >= 1) },
  commands: { expected: 'an array of command names', check: (v) => Array.isArray(v) && v.every((c) => typeof c === 'string') },
  latencyMs: intIn(0, 600_000),
};

function checkRules(options: DynamoDBFaultOptions): void {
  checkOptions('injectDynamoDBFaults', options, {
    rules: { expected: 'an array of fault rules', required: true, check: (v) => Array.isArray(v) },
    seed: intIn(0, 2 ** 32 - 1),
  });
  options.rules.forEach((rule, i) => {
    checkOptions(`injectDynamoDBFaults rules[${i}]`, rule, ruleRules);
    if ((rule.probability === undefined) === (rule.calls === undefined)) {
      throw new TypeError(
        `injectDynamoDBFaults rules[${i}]: give either "probability" or "calls", not ${rule.probability === undefined ? 'neither' : 'both'}.`,
      );
    }
  });
}

const zero = () => Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as Record<DynamoDBFaultKind, number>;

let injectorSeq = 0;

type Next = (args: { input: Record<string, unknown> }) => Promise<unknown>;

/**
 * Adds fault injection to `client` (see the module comment). Every request
 * also passes a {@link checkpoint} before it is sent and after it returns, so
 * the leftovers of a crashed or timed-out simulated invocation stop there.
 *
 * @throws TypeError for a rule with an unknown fault, a probability outside 0..1, or neither/both of `probability` and `calls`.
 *
 * @example
 * ```ts
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { injectDynamoDBFaults } from 'effectively-once/testing';
 * const client = new DynamoDBClient({ endpoint: 'http://127.0.0.1:8000', region: 'us-east-1' });
 * const faults = injectDynamoDBFaults(client, {
 *   seed: 7,
 *   rules: [
 *     { fault: 'throttle', probability: 0.05 },
 *     { fault: 'network-after', commands: ['UpdateItem'], calls: [1] }, // the first UpdateItem lands, then "fails"
 *   ],
 * });
 * console.log(faults.injected().throttle); // 0 before any request
 * ```
 */
export function injectDynamoDBFaults(client: MiddlewareClient, options: DynamoDBFaultOptions): DynamoDBFaultInjector {
  checkRules(options);
  const seed = options.seed ?? 1;
  const injected = zero();
  const surfaced = zero();
  const attemptsPerItem = new Occurrences();
  const callsPerRule = options.rules.map(() => 0);
  injectorSeq += 1;
  const names = { attempt: `effectivelyOnceFaults${injectorSeq}`, outcome: `effectivelyOnceFaultsSurfaced${injectorSeq}` };

  function pick(command: string, input: Record<string, unknown>): DynamoDBFaultRule[] {
    const label = `${command}|${itemLabel(input)}`;
    const attempt = attemptsPerItem.next(label);
    return options.rules.filter((rule, i) => {
      if (rule.commands !== undefined && !rule.commands.includes(command)) return false;
      callsPerRule[i] = (callsPerRule[i] ?? 0) + 1;
      if (rule.calls !== undefined) return rule.calls.includes(callsPerRule[i] ?? 0);
      return chanceOf(seed, `${i}|${label}|${attempt}`) < (rule.probability ?? 0);
    });
  }

  // Below the retry layer: runs once per attempt.
  const perAttempt = (next: Next, context: { commandName?: string }) => async (args: { input: Record<string, unknown> }) => {
    const command = String(context.commandName ?? 'unknown').replace(/Command$/, '');
    await checkpoint();
    const rules = pick(command, args.input);
    for (const rule of rules.filter((r) => r.fault === 'latency')) {
      injected.latency += 1;
      await new Promise((resolve) => setTimeout(resolve, rule.latencyMs ?? 20));
    }
    const failure = rules.find((r) => r.fault !== 'latency');
    if (failure !== undefined && failure.fault !== 'network-after') {
      injected[failure.fault] += 1;
      throw new InjectedDynamoDBFault(failure.fault, command, args.input);
    }
    const result = await next(args);
    await checkpoint();
    if (failure !== undefined) {
      injected['network-after'] += 1;
      throw new InjectedDynamoDBFault('network-after', command, args.input);
    }
    return result;
  };

  // Above the retry layer: what the caller finally gets.
  const perCall = (next: Next) => async (args: { input: Record<string, unknown> }) => {
    try {
      return await next(args);
    } catch (err) {
      if (err instanceof InjectedDynamoDBFault) surfaced[err.fault] += 1;
      throw err;
    }
  };

  // The SDK's middleware types are generic per step; these two are written against the runtime contract.
  client.middlewareStack.add(perAttempt as never, { step: 'deserialize', name: names.attempt, priority: 'high' });
  client.middlewareStack.add(perCall as never, { step: 'initialize', name: names.outcome, priority: 'high' });
  return {
    injected: () => ({ ...injected }),
    surfaced: () => ({ ...surfaced }),
    remove: () => {
      client.middlewareStack.remove(names.attempt);
      client.middlewareStack.remove(names.outcome);
    },
  };
}
