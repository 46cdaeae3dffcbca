import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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

/**
 * What AWS answers, behind a loopback tunnel (`ssh -L`, `aws ssm start-session` port forwarding), to keys it does not
 * know or a signature scoped to another region: DynamoDB's JSON error, status 400. No AWS account here, so a stand-in.
 */
async function awsRefusing(type: 'UnrecognizedClientException' | 'InvalidSignatureException', message: string): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'r-1' });
      res.end(JSON.stringify({ __type: `com.amazon.coral.service#${type}`, message }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const endpointOf = (server: Server): string => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

describe('effectively-once on a loopback endpoint that is a tunnel to AWS', () => {
  it('with nothing set, AWS refuses the stand-in keys: the message says it is not DynamoDB Local and what to set', async () => {
    const server = await awsRefusing('UnrecognizedClientException', 'The security token included in the request is invalid.');
    try {
      const endpoint = endpointOf(server);
      const run = await runCli(['inspect', '--table', 'idempotency', '--id', 'payments#o-1', '--endpoint', endpoint], { env: {} });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`${endpoint} refused the stand-in keys the CLI uses on a loopback endpoint for DynamoDB Local`);
      expect(run.stderr).toContain('UnrecognizedClientException: The security token included in the request is invalid.');
      expect(run.stderr).toContain(
        'set AWS_PROFILE (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY) and pass --region (us-east-1 was assumed)',
      );
    } finally {
      server.close();
    }
  });

  it('with keys set but no region, a signature scoped to us-east-1 is refused: the message says to pass --region', async () => {
    const server = await awsRefusing('InvalidSignatureException', "Credential should be scoped to a valid region, not 'us-east-1'.");
    try {
      const env = { AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' };
      const run = await runCli(['stale', '--table', 'idempotency', '--endpoint', endpointOf(server)], { env });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('the AWS credentials were rejected (InvalidSignatureException)');
      expect(run.stderr).toContain('On a loopback endpoint the CLI signs for us-east-1 unless told: pass --region');
      expect(run.stderr).not.toContain('stand-in keys');
    } finally {
      server.close();
    }
  });
});
