/**
 * `table create`: creates the idempotency table from the package's one
 * definition (src/stores/dynamodb/table.ts), the same one the testing kit's
 * `createIdempotencyTable` and the CloudFormation block in docs/operations.md
 * use. Idempotent: a table that exists with that schema is fine (exit 0), one
 * with another schema is refused with what differs (exit 1).
 */
import { createIdempotencyTable, TableSchemaMismatchError } from '../src/stores/dynamodb/table-create.js';
import { UsageError } from './args.js';
import { EXIT, type Command, type CommandContext } from './command.js';

const ACTIONS = ['create'] as const;

/**
 * A command whose first argument is an action (`table create`): the action, and the flags after it.
 * @throws UsageError when the action is missing or unknown.
 */
export function splitAction(argv: readonly string[], actions: readonly string[]): { action: string | undefined; rest: readonly string[] } {
  const [first, ...rest] = argv;
  if (first === undefined || first.startsWith('-')) return { action: undefined, rest: argv };
  if (!actions.includes(first)) throw new UsageError(`unknown action ${JSON.stringify(first)}; expected one of: ${actions.join(', ')}.`);
  return { action: first, rest };
}

async function run(ctx: CommandContext): Promise<number> {
  const { flags, where, clients, io } = ctx;
  const stream = flags['stream'] === true;
  try {
    const outcome = await createIdempotencyTable(clients.client, where.table, { stream });
    if (where.json) io.stdout(`${JSON.stringify({ table: where.table, outcome, stream })}\n`);
    else if (outcome === 'created') {
      io.stdout(
        `created table ${where.table}: key id (S), TTL on expiresAt, index inflight-by-lease${stream ? ', stream NEW_IMAGE' : ''}\n`,
      );
    } else io.stdout(`table ${where.table} already exists with the idempotency schema; nothing changed\n`);
    return EXIT.ok;
  } catch (err) {
    if (!(err instanceof TableSchemaMismatchError)) throw err;
    io.stderr(`effectively-once table: ${err.message}\n`);
    return EXIT.failed;
  }
}

/** `effectively-once table create --table NAME [--stream]`. */
export const tableCommand: Command = {
  name: 'table',
  summary: 'create the idempotency table (table create --table NAME [--stream])',
  actions: ACTIONS,
  options: { stream: { type: 'boolean' } },
  usage: `usage: effectively-once table create --table NAME [--stream] [--region R] [--endpoint URL]

Creates the idempotency table: partition key id (S), TTL on expiresAt,
on-demand billing, and the sparse inflight-by-lease index the stale command
queries. --stream adds a NEW_IMAGE stream (for an outbox in the same table).
A table that already exists with this schema is left as it is (exit 0); one
with another schema is an error naming what differs (exit 1). For DynamoDB
Local: --endpoint http://localhost:8000 (any credentials, e.g.
AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local, and a region).`,
  check: (flags) => {
    if (flags['action'] !== 'create') throw new UsageError('an action is required: table create --table NAME.');
  },
  run,
};
