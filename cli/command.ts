/**
 * What every command gets: the parsed flags, where the table is, the store
 * built on the CLI's own client, and the outside world.
 */
import type { DynamoDBIdempotencyStore } from '../src/stores/dynamodb/store.js';
import type { ConnectionArgs, Flags } from './args.js';
import type { CliClients } from './client.js';
import type { CliIO } from './io.js';

/** Exit codes: 0 done, 1 not found / refused / AWS error, 2 usage error. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** The context a command runs in. */
export interface CommandContext {
  readonly flags: Flags;
  readonly where: ConnectionArgs;
  readonly clients: CliClients;
  /** Reads go through the library's store, so the CLI sees records exactly as consumers do. */
  readonly store: DynamoDBIdempotencyStore;
  readonly io: CliIO;
}

/** One subcommand: its own flags, its help text and its body. */
export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly options: Readonly<Record<string, { readonly type: 'string' | 'boolean'; readonly short?: string }>>;
  readonly usage: string;
  /** Actions the command takes as its first argument (`table create`), passed on as the `action` flag. */
  readonly actions?: readonly string[];
  /** Checks the command's own flags before any client is built, so usage errors need no AWS. */
  readonly check?: (flags: Flags) => void;
  readonly run: (ctx: CommandContext) => Promise<number>;
}
