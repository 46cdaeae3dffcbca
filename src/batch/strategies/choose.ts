/**
 * The strategy steps a batch middleware of the main entry runs: those its
 * `strategy` option carries (what `claim()` or `transaction()` returns),
 * else the claim strategy's batch claims (no `strategy`: the default).
 * Nothing here imports the transaction or pipelined steps: only
 * `transaction()` / `claim({ pipelined: true })` bring them in, so a
 * claim-only handler bundles neither.
 */
import type { LifecycleConfig } from '../../engine/middleware-options.js';
import { claimBatchStrategy } from '../../strategies/claim/steps.js';
import { BATCH_STEPS, type BatchStrategy, type StepsFactory } from '../../strategies/types.js';

/**
 * The steps for the resolved options, built once per middleware; `option`:
 * the `strategy` option as given; `owner` names the middleware in errors.
 */
export function strategySteps(
  owner: string,
  config: LifecycleConfig<never> & { readonly claims?: 'batch' | 'pipelined' | undefined },
  option?: unknown,
): BatchStrategy {
  const settings = { ...config, owner };
  const carried = carriedSteps(option);
  if (carried !== undefined) return carried(settings);
  // A strategy object written by hand carries no steps: only a plain claim can run on the ones this file has.
  if (config.strategy === 'transaction' || config.claims === 'pipelined') {
    const instead = config.strategy === 'transaction' ? 'transaction()' : 'claim({ pipelined: true })';
    throw new TypeError(
      `${owner}: option "strategy" was not made by ${instead}: write strategy: ${instead}, imported from 'effectively-once'.`,
    );
  }
  return claimBatchStrategy(settings);
}

/** The steps a `strategy` option carries, if it is a strategy object that carries any. */
export function carriedSteps(option: unknown): StepsFactory | undefined {
  if (typeof option !== 'object' || option === null) return undefined;
  const steps: unknown = (option as { readonly [BATCH_STEPS]?: unknown })[BATCH_STEPS];
  return typeof steps === 'function' ? (steps as StepsFactory) : undefined;
}
