/**
 * `inspect`: prints one record, found by consumer and key (trying the plain
 * and the hashed form unless told which) or by id.
 */
import { EXIT, type Command, type CommandContext } from './command.js';
import { ambiguousText, notFoundText, recordJson, recordText } from './format.js';
import { candidates, lookup, TARGET_OPTIONS, type Lookup } from './lookup.js';

/**
 * Looks the record up and prints the outcome; shared by `inspect` and `forget`.
 * Returns the lookup so `forget` can go on with what was shown.
 */
export async function showRecord(ctx: CommandContext): Promise<Lookup> {
  const found = await lookup(ctx.store, candidates(ctx.flags));
  const { io, where } = ctx;
  if (found.kind === 'not-found') io.stderr(notFoundText(found.tried));
  else if (found.kind === 'ambiguous') io.stderr(ambiguousText(found.found));
  else io.stdout(where.json ? recordJson(found.record, found.form) : recordText(found.record, found.form));
  return found;
}

export const inspectCommand: Command = {
  name: 'inspect',
  summary: 'print one idempotency record',
  options: TARGET_OPTIONS,
  usage: `effectively-once inspect --table T (--consumer C --key K | --id ID) [--hash-keys | --plain-keys] [--json]
  Prints the record. Without --hash-keys/--plain-keys both forms of the key are tried and the output says which matched.`,
  check: (flags) => void candidates(flags),
  run: async (ctx) => ((await showRecord(ctx)).kind === 'found' ? EXIT.ok : EXIT.failed),
};
