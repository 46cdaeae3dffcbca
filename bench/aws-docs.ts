/**
 * `--aws`: the model's description in the Markdown section, generated from
 * aws-model.ts so that the docs always state the parameters the run used.
 */
import { cpuSlowdown, fitLognormal, transactPercentiles, type Percentiles } from './aws-model.js';
import type { AwsRunInfo } from './results.js';

const ms = (n: number) => n.toFixed(2);

function latencyRow(label: string, p: Percentiles): string {
  const { mu, sigma } = fitLognormal(p);
  return `| ${label} | ${ms(p.p50Ms)} | ${ms(p.p99Ms)} | ${mu.toFixed(3)} | ${sigma.toFixed(3)} |`;
}

/**
 * The model's parameters, source and prices, as Markdown lines; `latencyOnly`
 * leaves out the cost at the service's one memory size and the modelled
 * Lambda ms (the `--memory` sweep measures both at each size).
 */
export function awsModelLines(info: AwsRunInfo, latencyOnly = false): string[] {
  const m = info.model;
  const t = m.latency.transact;
  return [
    `Model (every parameter in [bench/aws-model.ts](../bench/aws-model.ts), the latency figures in [bench/latency-model.ts](../bench/latency-model.ts), from which group commit's duplicate probe's table is printed too; change one and rerun): every DynamoDB request takes at least a latency drawn, from a seeded generator per variant, ` +
      `from a lognormal fitted to its operation class (mu = ln p50, sigma = (ln p99 − ln p50) / ${m.latency.z99}); the time DynamoDB Local took counts inside that floor, ` +
      `only the rest is waited after its answer. Source: [${m.source.name}](${m.source.url}), ${m.source.what}. Cores: ${info.pinning}.`,
    '',
    '| operation class | p50 ms | p99 ms | mu | sigma |',
    '| --- | --- | --- | --- | --- |',
    latencyRow('GetItem, PutItem, UpdateItem, DeleteItem (Query, Scan, ExecuteStatement alike)', m.latency.single),
    latencyRow(`TransactWriteItems / TransactGetItems, ${t.fewItems} items or fewer`, t.few),
    latencyRow('… 10 items (linear in the item count)', transactPercentiles(10)),
    latencyRow('… 20 items', transactPercentiles(20)),
    latencyRow(`… ${t.manyItems} items (linear beyond)`, t.many),
    '| BatchGetItem, BatchWriteItem, BatchExecuteStatement (no Lambda-side figure) | the slowest of one single-item draw per item | | | |',
    ...(latencyOnly ? [] : costLines(info)),
  ];
}

function costLines(info: AwsRunInfo): string[] {
  const m = info.model;
  const p = m.prices;
  const u = m.units;
  return [
    '',
    `Cost, **$ / M deliveries**: DynamoDB on-demand in ${p.region} at $${p.writeRequestUnitUsdPerMillion} per million write request units and $${p.readRequestUnitUsdPerMillion} per million read request units, ` +
      `plus Lambda x86 at $${p.lambdaUsdPerGbSecond} per GB-s and $${p.lambdaUsdPerMillionRequests.toFixed(2)} per million requests at ${m.lambda.memoryMb} MB ` +
      `(serverless.yml), each batch billed for its modelled duration (below), rounded up to ${m.lambda.billingGranularityMs} ms; prices checked ${p.checked}: ${p.sources.join('; ')}. ` +
      `Units are counted from the requests each variant sends (bench/aws-units.ts), not from DynamoDB Local: 1 WRU per started ${u.writeUnitBytes / 1024} KB written, ` +
      `a refused conditional write charged like a write (the existing item's size where returned, else 1), transactional writes ${u.transactionalFactor}x per item ` +
      `(ConditionCheck included), a cancelled transaction ${u.cancelledTransactionFactor}x (AWS documents two underlying writes per item and no exception for a cancelled one); ` +
      `reads per started ${u.readUnitBytes / 1024} KB, eventually consistent ${u.eventuallyConsistentFactor}, strongly consistent 1, transactional ${u.transactionalFactor}.`,
    '',
    `**Lambda ms/batch @${m.lambda.memoryMb} MB**: the measured p50 batch ms + Node CPU ms per batch × (${m.lambda.fullVcpuMemoryMb}/${m.lambda.memoryMb} − 1 = ${cpuSlowdown().toFixed(2)}): ` +
      `a ${m.lambda.memoryMb} MB function has ${((m.lambda.memoryMb / m.lambda.fullVcpuMemoryMb) * 100).toFixed(0)} % of a vCPU. An upper bound: it assumes no CPU work overlaps a wait.`,
  ];
}
