/**
 * Issue 31's targets for the Lambda-shaped sweep, checked against a run and
 * shown, never asserted (timing is not a pass/fail test).
 */
import type { TargetCheck } from '../results.js';
import { atLeast, atMost, x } from '../targets.js';
import type { SizeVariantResult } from './figures.js';
import type { SweepColdStart, SizeResult } from './results.js';

/** The claim strategy's default: no `strategy` option, the library chooses (from the memory size). */
export const DEFAULT_CLAIM = 'ours-default';

function at(sizes: readonly SizeResult[], memoryMb: number, id: string): SizeVariantResult | undefined {
  return sizes.find((s) => s.memoryMb === memoryMb)?.variants.find((v) => v.id === id);
}

export function checkSweepTargets(sizes: readonly SizeResult[], coldStart: SweepColdStart | undefined): TargetCheck[] {
  const rate = (memoryMb: number, id: string) => at(sizes, memoryMb, id)?.ratios?.recordsPerSecond;
  const defaults = sizes.map((s) => ({ memoryMb: s.memoryMb, ratio: at(sizes, s.memoryMb, DEFAULT_CLAIM)?.ratios?.recordsPerSecond }));
  const finite = defaults.filter((d): d is { memoryMb: number; ratio: number } => typeof d.ratio === 'number' && Number.isFinite(d.ratio));
  const lowest = finite.reduce<{ memoryMb: number; ratio: number } | undefined>(
    (low, d) => (low === undefined || d.ratio < low.ratio ? d : low),
    undefined,
  );
  const cold256 = coldStart?.sizes.find((c) => c.memoryMb === 256);
  const checks: TargetCheck[] = [
    atLeast('256 MB: claim default ≥ 1.4x Powertools records/s', rate(256, DEFAULT_CLAIM), 1.4, x),
    atMost("256 MB: claim default ≤ 0.75x Powertools' $ per million deliveries", at(sizes, 256, DEFAULT_CLAIM)?.ratios?.usd, 0.75, x),
    atLeast('256 MB: transaction ≥ 2.0x Powertools records/s', rate(256, 'ours-transaction'), 2.0, x),
    atLeast('256 MB: state machine ≥ 2.5x Powertools (order update) records/s', rate(256, 'ours-state'), 2.5, x),
    atLeast('1,769 MB: claim default ≥ 0.95x Powertools records/s', rate(1769, DEFAULT_CLAIM), 0.95, x),
    atMost("1,769 MB: claim default p99 ≤ 1.2x Powertools'", at(sizes, 1769, DEFAULT_CLAIM)?.ratios?.p99, 1.2, x),
    {
      ...atLeast('every size: claim default ≥ 0.9x Powertools records/s', lowest?.ratio, 0.9, x),
      ...(lowest === undefined ? {} : { measured: `lowest ${x(lowest.ratio)} at ${lowest.memoryMb} MB` }),
    },
    atMost("256 MB cold start: the README claim handler's init ≤ 0.9x Powertools'", cold256?.initRatio, 0.9, x),
  ];
  const problems = sizes.flatMap((s) => s.variants.filter((v) => v.notExactlyOnce !== undefined).map((v) => `${v.id} at ${s.memoryMb} MB`));
  const measured = sizes.reduce((n, s) => n + s.variants.length, 0);
  checks.push({
    target: 'every variant applies every event exactly once in every run (effects read back)',
    measured: problems.length === 0 ? `${measured} variant runs, all exactly once` : `not exactly once: ${problems.join(', ')}`,
    met: measured === 0 ? null : problems.length === 0,
    shortfall: problems.length === 0 ? undefined : `${problems.length} of ${measured}`,
  });
  return checks;
}
