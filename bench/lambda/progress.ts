/**
 * The sweep's progress lines and their time left. A round (one batch through
 * every variant) takes longer the smaller the size, as its CPU runs at the
 * size's share: the estimate splits the rounds seen so far into CPU time
 * (stretched by 1 / share) and the rest (the latency floor, DynamoDB Local),
 * and predicts each size left from that. Pure functions.
 */
import { cpuShare } from '../cgroup.js';

/** Rounds seen at one size: their wall time and the Node CPU the workers reported. */
export interface RoundsSeen {
  readonly memoryMb: number;
  readonly rounds: number;
  readonly wallMs: number;
  readonly cpuMs: number;
}

/** One round's predicted ms at `memoryMb` from the rounds seen at another size. */
export function predictRoundMs(seen: RoundsSeen, memoryMb: number): number {
  if (seen.rounds === 0) return Number.NaN;
  const wall = seen.wallMs / seen.rounds;
  const cpu = seen.cpuMs / seen.rounds;
  const stretchedCpu = cpu / cpuShare(seen.memoryMb);
  const rest = Math.max(0, wall - stretchedCpu);
  return rest + Math.min(wall, stretchedCpu) * (cpuShare(seen.memoryMb) / cpuShare(memoryMb));
}

/** Where the sweep stands. */
export interface SweepPosition {
  readonly sizes: readonly number[];
  /** Index into `sizes` of the size running now. */
  readonly sizeIndex: number;
  readonly roundsPerSize: number;
  /** Rounds done at the size running now. */
  readonly roundsDone: number;
  /** The rounds seen at the size running now (or, before it has any, at the last size). */
  readonly seen: RoundsSeen;
}

/** ms left: the rest of this size, then every later size, each from the rounds seen. */
export function etaMs(p: SweepPosition): number {
  const current = p.sizes[p.sizeIndex];
  if (current === undefined || p.seen.rounds === 0) return Number.NaN;
  let left = Math.max(0, p.roundsPerSize - p.roundsDone) * predictRoundMs(p.seen, current);
  for (const size of p.sizes.slice(p.sizeIndex + 1)) left += p.roundsPerSize * predictRoundMs(p.seen, size);
  return left;
}

/** `1 h 2 min`, `3 min 20 s`, `45 s`; `?` when unknown. */
export function duration(ms: number): string {
  if (!Number.isFinite(ms)) return '?';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min ${s % 60} s`;
  return `${Math.floor(min / 60)} h ${min % 60} min`;
}
