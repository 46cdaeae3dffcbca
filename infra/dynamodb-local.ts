/**
 * DynamoDB Local for the test setup, `npm start`, the chaos run and the bench:
 * the package's own launcher (src/testing/dynamodb-local.ts, shipped in
 * `effectively-once/testing`), so there is one launcher and users test their
 * handlers on exactly what this project's tests run on. When
 * `DYNAMODB_ENDPOINT` is set, nothing is started and that endpoint is used.
 */
export {
  type DynamoDBLocal as DynamoDBLocalHandle,
  type DynamoDBLocalOptions as StartDynamoDBLocalOptions,
  DynamoDBLocalStartError,
  freePort,
  startDynamoDBLocal,
  waitForDynamoDB,
} from '../src/testing/dynamodb-local.js';

/** Local endpoints accept any credentials; the SDK still needs some. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;
export const LOCAL_REGION = 'us-east-1';
/** The account id in local ARNs (the one local AWS emulators use). */
export const LOCAL_ACCOUNT = '000000000000';
