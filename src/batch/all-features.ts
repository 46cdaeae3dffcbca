/**
 * Every optional part of the batch lifecycle (see features.ts), as the main
 * entry's middlewares use them. Never imported from the claim-only entry.
 */
import { DuplicateRate } from '../transaction/group-commit/duplicate-probe.js';
import type { BatchFeatures } from './features.js';
import { GroupCommitter } from '../transaction/group-commit/queue.js';
import { heartbeatPlan, keepLease } from '../engine/heartbeat.js';
import { metricsSink, safeMetrics } from '../observe/metrics.js';
import { asTransactional, runTransactional } from '../transaction/commit-step.js';
import type { CommitInput } from '../stores/types.js';

/** The transaction strategy, with group commit unless `commit: 'record'`. */
const transaction: BatchFeatures['transaction'] = {
  duplicateRate: (mode) => new DuplicateRate(mode),
  batch(store, mode, probe) {
    const transactional = asTransactional(store);
    const committer = GroupCommitter.for(transactional, mode, probe.rate);
    committer?.probe(probe.ids);
    const via = committer === undefined ? {} : { via: (input: CommitInput) => committer.commit(input) };
    return ({ owned, consumer, storeResult, onConflict, timeLeftMs, handler }) =>
      runTransactional(transactional, { ...owned, consumer }, { storeResult, onConflict, retry: { timeLeftMs }, ...via }, (tx) =>
        committer === undefined ? handler(tx) : committer.running(() => handler(tx)),
      );
  },
};

/** All of them: the transaction strategy, the lease heartbeat and the metrics. */
export const allFeatures: BatchFeatures = {
  transaction,
  heartbeat: { plan: heartbeatPlan, keep: keepLease },
  metrics: {
    sink(option) {
      const sink = metricsSink(option);
      return sink === false ? undefined : (line, early) => safeMetrics(sink, line, early);
    },
  },
};
