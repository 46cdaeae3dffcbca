import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/testing/index.js';
import { freshTable, testDynamo } from '../../support/dynamodb.js';
import { closedPort, completed, localEnv, runCli, writer } from './support.js';

let table: string;

beforeAll(async () => {
  table = await freshTable(testDynamo().client, undefined, 'cli');
  await completed(writer(table, new ManualClock(Date.now())), 'payments', 'o-1');
});

describe('effectively-once: clear errors', () => {
  it('a missing table names the table, the region and the endpoint', async () => {
    const run = await runCli(['inspect', '--table', 'no-such-table', '--id', 'payments#o-1']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`table no-such-table not found in region us-east-1 (endpoint ${localEnv()['DYNAMODB_ENDPOINT']})`);
  });

  it('on a loopback endpoint with no region set, the message names the region used there (us-east-1)', async () => {
    const { AWS_REGION: _region, ...noRegion } = localEnv();
    const run = await runCli(['inspect', '--table', 'nope', '--id', 'payments#o-1'], { env: noRegion });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`table nope not found in region us-east-1 (endpoint ${localEnv()['DYNAMODB_ENDPOINT']})`);
    expect(run.stderr).not.toContain('none set');
  });

  it('a wrong region is a table not found in that region', async () => {
    // DynamoDB Local, like DynamoDB, keeps each region's tables apart.
    const run = await runCli(['stale', '--table', table, '--region', 'eu-west-3']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`table ${table} not found in region eu-west-3`);
  });

  it('an endpoint where nothing listens says it cannot be reached', async () => {
    const endpoint = `http://127.0.0.1:${await closedPort()}`;
    const run = await runCli(['forget', '--table', table, '--id', 'payments#o-1', '--yes', '--endpoint', endpoint]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`cannot reach DynamoDB at ${endpoint} (ECONNREFUSED)`);
    // And nothing was deleted through the right endpoint either.
    const still = await runCli(['inspect', '--table', table, '--id', 'payments#o-1']);
    expect(still.code).toBe(0);
  });
});
