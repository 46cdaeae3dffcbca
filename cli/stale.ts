/**
 * `stale`: IN_PROGRESS claims whose lease ended long ago, read through the
 * sweeper's sparse `inflight-by-lease` index. Only stores built with
 * `trackInflight: true` put their claims there.
 */
import { DEFAULT_STALE_LIMIT } from '../src/stores/dynamodb/stale.js';
import { parseDuration, parsePositiveInt, stringFlag, type Flags } from './args.js';
import { EXIT, type Command, type CommandContext } from './command.js';
import { staleText } from './format.js';

/** Same grace as the reference sweeper: a lease 15 minutes past is no slow handler. */
const DEFAULT_OLDER_THAN = '15m';

function staleFlags(flags: Flags): { olderThanMs: number; limit: number } {
  const olderThan = stringFlag(flags, 'older-than') ?? DEFAULT_OLDER_THAN;
  const limit = stringFlag(flags, 'limit');
  return {
    olderThanMs: parseDuration(olderThan, 'older-than'),
    limit: limit === undefined ? DEFAULT_STALE_LIMIT : parsePositiveInt(limit, 'limit'),
  };
}

async function stale(ctx: CommandContext): Promise<number> {
  const { olderThanMs, limit } = staleFlags(ctx.flags);
  const now = ctx.io.now();
  const leaseEndedBefore = now - olderThanMs;
  const claims = await ctx.store.staleClaims({ leaseEndedBefore, limit });
  if (ctx.where.json) {
    const doc = { leaseEndedBefore: new Date(leaseEndedBefore).toISOString(), truncated: claims.length >= limit, claims };
    ctx.io.stdout(`${JSON.stringify(doc)}\n`);
  } else {
    ctx.io.stdout(staleText(claims, now, limit));
  }
  return EXIT.ok;
}

export const staleCommand: Command = {
  name: 'stale',
  summary: 'list claims whose lease ended long ago (crashed consumers)',
  options: { 'older-than': { type: 'string' }, limit: { type: 'string' } },
  usage: `effectively-once stale --table T [--older-than 15m] [--limit 100] [--json]
  Lists IN_PROGRESS claims whose lease ended more than --older-than ago, oldest first, through the
  inflight-by-lease index (claims written by stores with trackInflight: true). Read-only.`,
  check: (flags) => void staleFlags(flags),
  run: stale,
};
