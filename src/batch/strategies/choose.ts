/**
 * The strategy steps a batch middleware of the main entry runs: those its
 * `strategy` option carries (what `claim()` or `transaction()` returns),
 * else those its name stands for (`'claim'`, the default, or
 * `'transaction'`).
 */
import type { LifecycleConfig } from '../../engine/middleware-options.js';
import { claimBatchStrategy } from './claim-steps.js';
import { pipelinedStrategy } from './pipelined.js';
import { transactionBatchStrategy } from './transaction.js';
import { carriedSteps, type BatchStrategy } from './types.js';

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
  if (config.strategy === 'transaction') return transactionBatchStrategy(settings);
  return config.claims === 'pipelined' ? pipelinedStrategy(settings) : claimBatchStrategy(settings);
}
