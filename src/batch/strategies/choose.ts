/**
 * The strategy steps the resolved options ask for: the claim strategy (batch
 * or pipelined claims) or the transaction strategy. Used by the main
 * entry's sources, which serve every strategy.
 */
import type { LifecycleConfig } from '../../engine/middleware-options.js';
import { claimBatchStrategy } from './claim-steps.js';
import { pipelinedStrategy } from './pipelined.js';
import { transactionBatchStrategy } from './transaction.js';
import type { BatchStrategy } from './types.js';

/** The steps for `config` (`strategy`, `claims`), built once per middleware; `owner` names the middleware in errors. */
export function strategySteps(
  owner: string,
  config: LifecycleConfig<never> & { readonly claims?: 'batch' | 'pipelined' | undefined },
): BatchStrategy {
  if (config.strategy === 'transaction') return transactionBatchStrategy(config);
  const settings = { ...config, owner };
  return config.claims === 'pipelined' ? pipelinedStrategy(settings) : claimBatchStrategy(settings);
}
