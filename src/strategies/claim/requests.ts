/**
 * How the claim strategy talks to DynamoDB for one invocation's batch, chosen in `begin` from what that invocation
 * has. Never learned, never per container: it changes the requests, not what the handler or a middleware after ours
 * sees (the claimed records, every claim returned before the handler runs).
 *
 * - `batched`: the batch's claims in one request (`claimMany`: a PartiQL `BatchExecuteStatement`) and the finished
 *   records' completions in another once no handler runs (`completeMany`, coalesce.ts). Few requests, so little CPU:
 *   below a vCPU's share the SDK's work per request is most of a batch's duration.
 * - `per-record`: each claim a request of its own (a conditional `PutItem` that returns the record it met, so a
 *   duplicate is decided in the same round trip), and each record completed as soon as its own effect ends (with
 *   those that end within a few ms): no round trip waits for the slowest record of the batch. More requests, so more
 *   CPU; faster where CPU is not what the batch waits on.
 */

/** The request pattern of one batch: what its log line's `requests` says. */
export type ClaimRequests = 'batched' | 'per-record';

/**
 * From this memory size (MB) up, `per-record`; below it, `batched`. A Lambda function gets memory / 1,769 MB of one
 * vCPU: below about a third of one, the CPU a batch's requests cost is most of its duration and fewer requests win;
 * from it up, waiting three times for the slowest record of the batch costs more (docs/benchmarks.md).
 */
export const PER_RECORD_FROM_MB = 512;

/**
 * Set by Lambda on a function that runs on Lambda Managed Instances, where many invocations share each vCPU (the
 * Node.js runtime runs them in worker threads) and the memory size says nothing of the CPU one of them gets: there
 * CPU is what the instance's invocations compete for, so requests are always batched.
 */
const MANAGED_INSTANCES_ENV = 'AWS_LAMBDA_MAX_CONCURRENCY';

/**
 * The request pattern of an invocation with this `context.memoryLimitInMB` (a string on Lambda's context): read per
 * invocation, as is the environment (a test may stub it). Unknown (no context, not a whole number): `batched`.
 */
export function claimRequests(memoryLimitInMB: unknown): ClaimRequests {
  if (MANAGED_INSTANCES_ENV in process.env) return 'batched';
  const mb = typeof memoryLimitInMB === 'string' || typeof memoryLimitInMB === 'number' ? Number(memoryLimitInMB) : Number.NaN;
  return Number.isInteger(mb) && mb >= PER_RECORD_FROM_MB ? 'per-record' : 'batched';
}
