#!/usr/bin/env node
/**
 * The operator CLI, `npx effectively-once <command>`: inspect, forget and list
 * stale idempotency records in a table, check that a table can hold claims, and create the table. `main()` is the whole program with
 * its outside world injected; the last lines run it when this file is the bin.
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { DynamoDBIdempotencyStore } from '../src/stores/dynamodb/store.js';
import { connectionArgs, parseFlags, UsageError, type ConnectionArgs, type Flags } from './args.js';
import { checkCommand } from './check.js';
import { cliClients, regionInUse } from './client.js';
import { EXIT, type Command } from './command.js';
import { explainAwsError } from './errors.js';
import { forgetCommand } from './forget.js';
import { inspectCommand } from './inspect.js';
import { processIO, type CliIO } from './io.js';
import { staleCommand } from './stale.js';
import { splitAction, tableCommand } from './table.js';

const COMMANDS: readonly Command[] = [inspectCommand, forgetCommand, staleCommand, checkCommand, tableCommand];

const USAGE = `usage: effectively-once <command> [flags]

commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(8)} ${c.summary}`).join('\n')}

flags of every command:
  --table T       the idempotency table (or IDEMPOTENCY_TABLE)
  --region R      AWS region (or AWS_REGION / AWS_DEFAULT_REGION)
  --endpoint URL  DynamoDB endpoint, e.g. DynamoDB Local (or DYNAMODB_ENDPOINT)
  --json          one JSON document per result
  --help          this text, or a command's own with <command> --help

exit codes: 0 done, 1 not found / refused / AWS error, 2 usage error
`;

async function runCommand(command: Command, argv: readonly string[], io: CliIO): Promise<number> {
  const { action, rest } = command.actions === undefined ? { action: undefined, rest: argv } : splitAction(argv, command.actions);
  const flags: Flags = { ...parseFlags(rest, command.options), action };
  if (flags['help'] === true) {
    io.stdout(`${command.usage}\n`);
    return EXIT.ok;
  }
  command.check?.(flags);
  const given: ConnectionArgs = connectionArgs(flags, io.env);
  const clients = cliClients(given, io.env);
  // What the client really uses (DynamoDB Local's region on a loopback endpoint, or the profile's), for every message.
  const where: ConnectionArgs = { ...given, region: (await regionInUse(clients.client)) ?? given.region };
  try {
    const store = new DynamoDBIdempotencyStore({ client: clients.doc, tableName: where.table, clock: { now: io.now } });
    return await command.run({ flags, where, clients, store, io });
  } catch (err) {
    if (err instanceof UsageError) throw err;
    io.stderr(`effectively-once ${command.name}: ${explainAwsError(err, where, clients.standIn)}\n`);
    return EXIT.failed;
  } finally {
    clients.client.destroy();
  }
}

/**
 * Runs the CLI on `argv` (without `node` and the script) and returns the exit code.
 */
export async function main(argv: readonly string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.stderr : io.stdout)(USAGE);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined) {
    io.stderr(`effectively-once: unknown command ${JSON.stringify(name)}\n\n${USAGE}`);
    return EXIT.usage;
  }
  try {
    return await runCommand(command, rest, io);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr(`effectively-once ${command.name}: ${err.message}\n\n${command.usage}\n`);
    return EXIT.usage;
  }
}

// Run only as the bin (npx resolves a symlink to this file), never on import.
function isBin(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return pathToFileURL(realpathSync(script)).href === import.meta.url;
  } catch {
    return false;
  }
}

if (isBin()) {
  process.exitCode = await main(process.argv.slice(2), processIO());
}
