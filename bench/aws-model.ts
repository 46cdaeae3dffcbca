/**
 * `npm run bench -- --aws`: the model of AWS the headline figures are taken
 * on. Every parameter is in this file (unit rules, prices, Lambda's memory
 * size) or, for the latency per operation class, in
 * bench/latency-model.ts (group commit's probe policy is
 * derived from the same figures, so they are kept in one place), so anyone
 * can change one and rerun; docs/benchmarks.md prints them from here. The
 * functions are pure: the latency floor's middleware (latency.ts) and the
 * unit counting (aws-units.ts) use them.
 *
 * Latency: a Lambda-side measurement, not DynamoDB Local's CPU.
 * alexdebrie/dynamodb-performance-testing timed 400 invocations per
 * operation from a Lambda function in the table's region; its p50 / p99 are
 * fitted here to a lognormal per operation class. Every request then takes
 * at least a value drawn from its class (the time DynamoDB Local spent on it
 * counts inside that floor).
 */
import { dynamoLatency, fitLognormal, transactPercentiles, type Lognormal } from './latency-model.js';

export type { Lognormal, Percentiles } from './latency-model.js';
export { fitLognormal, transactPercentiles };

export const awsModel = {
  source: {
    name: 'alexdebrie/dynamodb-performance-testing',
    url: 'https://github.com/alexdebrie/dynamodb-performance-testing',
    what: '400 invocations per operation, timed from a Lambda function (client side: SDK, network and DynamoDB)',
  },
  /**
   * Single-item requests (GetItem, PutItem, UpdateItem, DeleteItem; Query, Scan and ExecuteStatement are
   * given the same class) and TransactWriteItems / TransactGetItems (and ExecuteTransaction) by item count,
   * linear in between. Kept in bench/latency-model.ts; group commit's probe policy
   * reads a table derived from the same figures (bench/latency-table.ts): change them there, then regenerate it.
   */
  latency: dynamoLatency,
  /** DynamoDB's billing rules (on-demand), as its developer guide and pricing page state them. */
  units: {
    writeUnitBytes: 1024,
    readUnitBytes: 4096,
    /** Transactional writes and reads: two underlying operations (prepare and commit) per item. */
    transactionalFactor: 2,
    /**
     * A cancelled TransactWriteItems: AWS documents two underlying writes per
     * item and names no exception for a cancelled one, so it is charged like a
     * committed one (the conservative reading; ours is the strategy it costs).
     */
    cancelledTransactionFactor: 2,
    eventuallyConsistentFactor: 0.5,
  },
  prices: {
    region: 'us-east-1',
    checked: '2026-12-01',
    /** On-demand, per million write request units (since the 50 % cut of 2024-11-01). */
    writeRequestUnitUsdPerMillion: 0.625,
    readRequestUnitUsdPerMillion: 0.125,
    /** Lambda x86, first pricing tier. */
    lambdaUsdPerGbSecond: 0.0000166667,
    lambdaUsdPerMillionRequests: 0.2,
    sources: [
      'https://aws.amazon.com/dynamodb/pricing/on-demand/',
      'https://aws.amazon.com/lambda/pricing/',
      'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html (capacity management for transactions)',
      'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/WorkingWithItems.html (capacity units consumed by conditional writes)',
    ],
  },
  /**
   * Lambda Managed Instances: the function runs on EC2 instances of the
   * account, many invocations at once per execution environment; the bill is
   * the instances (EC2 on-demand + a management fee) and the requests, not
   * each invocation's duration.
   */
  lmi: {
    /** ExecutionEnvironmentMemoryGiBPerVCpu: 2 to 8 GiB per vCPU; the model takes the smallest (the function's memory = vCPUs × this). */
    memoryGiBPerVcpu: 2,
    /** The EC2 instance the vCPU-hour is priced from: general purpose, on-demand, Linux, us-east-1. */
    instance: 'm7g.large',
    instanceVcpus: 2,
    instanceUsdPerHour: 0.0816,
    instancePriceChecked: '2026-06-17',
    /** The compute management fee: 15 % of the EC2 on-demand instance price. */
    managementFee: 0.15,
    requestsUsdPerMillion: 0.2,
    sources: [
      'https://aws.amazon.com/lambda/pricing/ (Lambda Managed Instances: $0.20 per million requests, compute management fee 15 % of the EC2 on-demand price)',
      'https://aws.amazon.com/ec2/pricing/on-demand/ (m7g.large, Linux, us-east-1: $0.0816 per hour, as quoted 2026-06-17 by factualminds.com/blog/amazon-ec2-on-demand-pricing-instance-families-2026)',
      'https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-nodejs-runtime.html (worker threads, one init per thread, 64 concurrent requests per vCPU by default)',
      'https://docs.aws.amazon.com/lambda/latest/api/API_LambdaManagedInstancesCapacityProviderConfig.html (ExecutionEnvironmentMemoryGiBPerVCpu 2.0 to 8.0)',
    ],
  },
  lambda: {
    /** serverless.yml `memorySize` (a test checks they agree). */
    memoryMb: 256,
    /** Lambda gives one full vCPU at 1,769 MB and CPU in proportion to memory below it. */
    fullVcpuMemoryMb: 1769,
    billingGranularityMs: 1,
  },
} as const;

/** A standard normal draw from two uniforms of `random` (Box–Muller). */
export function standardNormal(random: () => number): number {
  const u1 = 1 - random(); // (0, 1]: ln is finite
  const u2 = random();
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

export function drawLognormal(random: () => number, dist: Lognormal): number {
  return Math.exp(dist.mu + dist.sigma * standardNormal(random));
}

/** How the model times one request: a single-item draw, a transaction of n items, the slowest of n single draws, or no floor. */
export type ModelledOperation =
  | { readonly kind: 'single' }
  | { readonly kind: 'transact'; readonly items: number }
  | { readonly kind: 'batch'; readonly items: number }
  | { readonly kind: 'none' };

const SINGLE = new Set(['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query', 'Scan', 'ExecuteStatement']);

function count(list: unknown): number {
  return Array.isArray(list) ? list.length : 0;
}

/** Items per table of a BatchGetItem (`Keys`) or BatchWriteItem (the requests), summed. */
function batchItems(requestItems: unknown): number {
  if (typeof requestItems !== 'object' || requestItems === null) return 0;
  return Object.values(requestItems).reduce<number>(
    (sum, v) => sum + (Array.isArray(v) ? v.length : count((v as { Keys?: unknown }).Keys)),
    0,
  );
}

/** The class of a request, from its command name (`PutItemCommand` or `PutItem`) and its input. */
export function modelledOperation(commandName: string, input: Record<string, unknown>): ModelledOperation {
  const name = commandName.replace(/Command$/, '');
  if (SINGLE.has(name)) return { kind: 'single' };
  switch (name) {
    case 'TransactWriteItems':
    case 'TransactGetItems':
      return { kind: 'transact', items: count(input['TransactItems']) };
    case 'ExecuteTransaction':
      return { kind: 'transact', items: count(input['TransactStatements']) };
    case 'BatchGetItem':
    case 'BatchWriteItem':
      return { kind: 'batch', items: batchItems(input['RequestItems']) };
    case 'BatchExecuteStatement':
      return { kind: 'batch', items: count(input['Statements']) };
    default:
      return { kind: 'none' };
  }
}

const singleDist = fitLognormal(awsModel.latency.single);

/**
 * The floor of one request, ms: one draw of its class; a batch operation
 * has no Lambda-side figure, so it is modelled conservatively as the slowest
 * of one single-item draw per item.
 */
export function drawFloorMs(random: () => number, op: ModelledOperation): number {
  switch (op.kind) {
    case 'none':
      return 0;
    case 'single':
      return drawLognormal(random, singleDist);
    case 'transact':
      return drawLognormal(random, fitLognormal(transactPercentiles(op.items)));
    case 'batch': {
      let slowest = 0;
      for (let i = 0; i < Math.max(1, op.items); i += 1) slowest = Math.max(slowest, drawLognormal(random, singleDist));
      return slowest;
    }
  }
}

/** What is left to wait once `spentMs` (DynamoDB Local's answer) has passed of a `floorMs` floor. */
export function floorDelayMs(floorMs: number, spentMs: number): number {
  return Math.max(0, floorMs - spentMs);
}

/** How much slower Node's CPU work runs at `memoryMb` than with a full vCPU (0 at or above 1,769 MB). */
export function cpuSlowdown(memoryMb: number = awsModel.lambda.memoryMb): number {
  return Math.max(0, awsModel.lambda.fullVcpuMemoryMb / memoryMb - 1);
}

/**
 * Modelled Lambda duration of a batch at the service's memory size: wall time
 * plus the Node CPU spent, slowed to the memory's share of a vCPU. An upper
 * bound: it assumes no CPU work overlaps a wait.
 */
export function lambdaMs(wallMs: number, cpuMs: number, memoryMb: number = awsModel.lambda.memoryMb): number {
  return wallMs + cpuMs * cpuSlowdown(memoryMb);
}

/** Capacity units a run consumed, and its batches (Lambda invocations) with their billed ms. */
export interface CostInputs {
  readonly writeUnits: number;
  readonly readUnits: number;
  readonly invocations: number;
  /** Sum over invocations of the modelled duration, each rounded up to the billing granularity. */
  readonly billedMs: number;
  readonly deliveries: number;
  /** The function's memory size, MB (default: the service's, `awsModel.lambda.memoryMb`). */
  readonly memoryMb?: number;
}

/** On-demand DynamoDB units plus Lambda GB-s (at the memory size) and requests, in dollars per million deliveries. */
export function usdPerMillionDeliveries(c: CostInputs): number {
  const p = awsModel.prices;
  const dynamo = (c.writeUnits * p.writeRequestUnitUsdPerMillion + c.readUnits * p.readRequestUnitUsdPerMillion) / 1e6;
  const gbSeconds = ((c.memoryMb ?? awsModel.lambda.memoryMb) / 1024) * (c.billedMs / 1000);
  const lambda = gbSeconds * p.lambdaUsdPerGbSecond + (c.invocations * p.lambdaUsdPerMillionRequests) / 1e6;
  return c.deliveries === 0 ? Number.NaN : ((dynamo + lambda) / c.deliveries) * 1e6;
}

/** One invocation's billed ms: the modelled duration rounded up to the billing granularity. */
export function billedMs(modelledMs: number): number {
  const g = awsModel.lambda.billingGranularityMs;
  return Math.ceil(modelledMs / g) * g;
}

/** Lambda Managed Instances: the instance's price per vCPU-hour, the management fee included. */
export function lmiUsdPerVcpuHour(): number {
  const m = awsModel.lmi;
  return (m.instanceUsdPerHour / m.instanceVcpus) * (1 + m.managementFee);
}

/** What a Lambda Managed Instances run consumed: deliveries acknowledged, vCPU-seconds of instance, invocations and units. */
export interface LmiCostInputs {
  readonly deliveries: number;
  /** vCPUs given × wall seconds: what the instances are billed for. */
  readonly vcpuSeconds: number;
  readonly invocations: number;
  readonly writeUnits: number;
  readonly readUnits: number;
}

/** Instance vCPU-hours + requests + DynamoDB on-demand units, in dollars per million deliveries; `instance` is that part alone. */
export function lmiUsdPerMillionDeliveries(c: LmiCostInputs): { total: number; instance: number } {
  if (c.deliveries === 0) return { total: Number.NaN, instance: Number.NaN };
  const p = awsModel.prices;
  const instance = (c.vcpuSeconds / 3600) * lmiUsdPerVcpuHour();
  const requests = (c.invocations * awsModel.lmi.requestsUsdPerMillion) / 1e6;
  const dynamo = (c.writeUnits * p.writeRequestUnitUsdPerMillion + c.readUnits * p.readRequestUnitUsdPerMillion) / 1e6;
  const perMillion = (usd: number) => (usd / c.deliveries) * 1e6;
  return { total: perMillion(instance + requests + dynamo), instance: perMillion(instance) };
}
