import { BatchExecuteStatementCommand, DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startDynamoDBLocal, LOCAL_CREDENTIALS, LOCAL_REGION } from '../infra/dynamodb-local.js';
import { createVariantTables } from '../bench/dynamo.js';

const ddb = await startDynamoDBLocal({ ignoreEnv: true });
try {
  const tables = await createVariantTables(ddb.endpoint, `p${Date.now()}`, { idempotency: 'ours', business: 'points' });
  const t = tables.idempotency!;
  const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: ddb.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }));
  for (const id of ['a', 'd', 'e', 'f']) await doc.send(new PutCommand({ TableName: t, Item: { id, status: 'COMPLETED', expiresAt: 1, attempts: 1, owner: 'tok' } }));
  const run = async (Statements: any[]) => { try { const out = await doc.send(new BatchExecuteStatementCommand({ Statements })); console.log(JSON.stringify(out.Responses)); } catch (e) { console.log('ERR', (e as Error).name, (e as Error).message); } };
  await run([
    { Statement: `INSERT INTO "${t}" VALUE {'id': ?, 'status': ?}`, Parameters: ['a', 'IN_PROGRESS'], ReturnValuesOnConditionCheckFailure: 'ALL_OLD' },
    { Statement: `INSERT INTO "${t}" VALUE {'id': ?, 'status': ?}`, Parameters: ['b', 'IN_PROGRESS'], ReturnValuesOnConditionCheckFailure: 'ALL_OLD' },
    { Statement: `UPDATE "${t}" SET "status"=? WHERE "id"=? AND "owner"=?`, Parameters: ['COMPLETED', 'd', 'wrong'], ReturnValuesOnConditionCheckFailure: 'ALL_OLD' },
    { Statement: `UPDATE "${t}" SET "status"=? WHERE "id"=? AND "owner"=?`, Parameters: ['COMPLETED', 'zz', 'tok'], ReturnValuesOnConditionCheckFailure: 'ALL_OLD' },
    { Statement: `UPDATE "${t}" SET "status"=? WHERE "id"=? AND "owner"=?`, Parameters: ['COMPLETED', 'e', 'tok'], ReturnValuesOnConditionCheckFailure: 'ALL_OLD' },
  ]);
  await run([{ Statement: `UPDATE "${t}" SET "status"=? WHERE "id"=? AND "owner"=? RETURNING ALL NEW *`, Parameters: ['COMPLETED', 'f', 'tok'] }]);
  await run([{ Statement: `INSERT INTO "${t}" VALUE {'id': ?, 'status': ?}`, Parameters: ['g', 'IN_PROGRESS'] }, { Statement: `INSERT INTO "${t}" VALUE {'id': ?, 'status': ?}`, Parameters: ['h', 'IN_PROGRESS'] }]);
  await run([{ Statement: `INSERT INTO "${t}" VALUE {'id': ?, 'status': ?}`, Parameters: ['g', 'IN_PROGRESS'] }, { Statement: `UPDATE "${t}" SET "status"=? WHERE "id"=?`, Parameters: [{j: 'x'.repeat(500000)}, 'i'] }]);
} finally { await ddb.stop(); }
