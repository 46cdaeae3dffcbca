/**
 * A DynamoDB Local for `serverless invoke local`: starts one (or uses
 * DYNAMODB_ENDPOINT), creates the tables under the names serverless.yml gives
 * them for a stage, seeds the order the sample events in `events/` pay, and
 * keeps running until Ctrl-C.
 *
 *   npx tsx scripts/local-dynamodb.ts [--stage dev] [--region eu-west-1]
 *
 * DynamoDB Local keeps one database per access key and region; the functions
 * connect with the region `invoke local` sets (serverless.yml's, default
 * eu-west-1), so the tables are created in that region.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { LOCAL_CREDENTIALS, startDynamoDBLocal } from '../infra/dynamodb-local.js';
import { createTable, tableDefinitions } from '../infra/tables.js';
import { helpText, parseFlags, UsageError } from './shared/flags.js';

// The order events/payments.json pays and events/points.json awards points for.
const SAMPLE_ORDER = { orderNo: 'o-000001', customerId: 'c-00001', amount: 120, status: 'PENDING', version: 1 };

const cli = {
  usage: 'npx tsx scripts/local-dynamodb.ts [options]',
  helpCommand: 'npx tsx scripts/local-dynamodb.ts --help',
  summary: `Starts DynamoDB Local (or uses DYNAMODB_ENDPOINT), creates the tables of a
stage, seeds the sample order and keeps running until Ctrl-C.`,
  flags: {
    stage: { type: 'string', help: 'serverless stage the table names are for', default: 'dev', pattern: /^[a-zA-Z0-9-]+$/, value: 'NAME' },
    region: {
      type: 'string',
      help: 'region `invoke local` connects with',
      default: 'eu-west-1',
      pattern: /^[a-zA-Z0-9-]+$/,
      value: 'REGION',
    },
  },
} as const;

/** The stage and region asked for; help or a bad command line ends the process. */
function options(argv: readonly string[]): { readonly stage: string; readonly region: string } {
  try {
    const parsed = parseFlags(cli, argv);
    if (!parsed.help) return parsed.values;
    process.stdout.write(helpText(cli));
    process.exit(0);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\n\n${helpText(cli)}`);
    process.exit(2);
  }
}

async function main(): Promise<void> {
  const { stage, region } = options(process.argv.slice(2));
  const prefix = `effectively-once-${stage}`;
  const ddb = await startDynamoDBLocal();
  const client = new DynamoDBClient({ endpoint: ddb.endpoint, region, credentials: LOCAL_CREDENTIALS });
  const stop = async () => {
    client.destroy();
    await ddb.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  for (const [name, def] of Object.entries(tableDefinitions)) await createTable(client, `${prefix}-${name}`, def);
  await DynamoDBDocumentClient.from(client).send(new PutCommand({ TableName: `${prefix}-orders`, Item: SAMPLE_ORDER }));
  process.stdout.write(
    `DynamoDB Local at ${ddb.endpoint}${ddb.pid === undefined ? '' : ` (pid ${ddb.pid})`}, tables ${prefix}-* in ${region}, ` +
      `order ${SAMPLE_ORDER.orderNo} PENDING.\nIn another terminal:\n\n` +
      `  export DYNAMODB_ENDPOINT=${ddb.endpoint}\n` +
      '  npx serverless invoke local -f payments -p events/payments.json -e PUBLISH_TARGET=stdout\n' +
      '  npx serverless invoke local -f points -p events/points.json\n' +
      '  npx serverless invoke local -f notifications -p events/notifications.json\n' +
      '  npx serverless invoke local -f sweeper -p events/sweeper.json\n\nCtrl-C stops DynamoDB Local.\n',
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
