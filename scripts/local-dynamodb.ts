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

// The order events/payments.json pays and events/points.json awards points for.
const SAMPLE_ORDER = { orderNo: 'o-000001', customerId: 'c-00001', amount: 120, status: 'PENDING', version: 1 };

function flag(argv: readonly string[], name: string, fallback: string): string {
  const i = argv.indexOf(name);
  const value = i === -1 ? fallback : argv[i + 1];
  if (value === undefined || !/^[a-zA-Z0-9-]+$/.test(value)) {
    process.stderr.write('Usage: npx tsx scripts/local-dynamodb.ts [--stage <name>] [--region <region>]\n');
    process.exit(2);
  }
  return value;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const prefix = `effectively-once-${flag(argv, '--stage', 'dev')}`;
  const region = flag(argv, '--region', 'eu-west-1');
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
