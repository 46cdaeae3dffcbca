/**
 * A stand-in for a test runner: starts DynamoDB Local through the kit, prints
 * `ready <java pid> <endpoint>` and waits to be killed
 * (test/integration/testing/dynamodb-local-kit.test.ts kills it).
 */
import { startDynamoDBLocal } from '../../../src/testing/index.js';

const local = await startDynamoDBLocal({ ignoreEnv: true });
process.stdout.write(`ready ${local.pid} ${local.endpoint}\n`);
setInterval(() => {}, 60_000);
