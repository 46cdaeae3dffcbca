/**
 * `serverless package` of the reference service, offline, and assertions on
 * the CloudFormation it generates: what must hold before anyone deploys it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { NOTIFICATIONS_CONSUMER } from '../../functions/notifications.js';
import { PAYMENTS_CONSUMER } from '../../functions/payments.js';
import { POINTS_CONSUMER } from '../../functions/points.js';
import { ORDER_EVENTS_SOURCE, ORDER_PAID } from '../../functions/shared/messages.js';
import { outcomeMetricNames } from '../../src/observe/emf.js';
import { metricsDefaults } from '../../src/observe/metrics.js';
import { tableDefinitions } from '../../infra/tables.js';
import {
  idsOfType,
  referencedIds,
  resource,
  roleStatements,
  serverlessPackage,
  targetId,
  type CfnTemplate,
} from '../support/cloudformation.js';
import { zipEntries } from '../support/zip.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const FUNCTIONS = ['payments', 'points', 'notifications', 'sweeper', 'outboxRelay'] as const;
/** The handler file of a function (its key in serverless.yml is camelCase). */
const fileOf = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

let outDir: string;
let template: CfnTemplate;

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'eo-package-'));
  template = await serverlessPackage(root, outDir);
}, 300_000);

afterAll(async () => {
  if (outDir !== undefined) await rm(outDir, { recursive: true, force: true });
});

const props = (id: string) => resource(template, id).Properties;
const fnId = (name: string) => `${name[0]?.toUpperCase()}${name.slice(1)}LambdaFunction`;
const tableIds = () => new Set(idsOfType(template, 'AWS::DynamoDB::Table'));
/** Event source mappings on an SQS queue (the other one reads the orders table's stream). */
const sqsMappings = () =>
  idsOfType(template, 'AWS::Lambda::EventSourceMapping').filter((id) => queueIds().has(targetId(props(id)['EventSourceArn']) ?? ''));
const queueIds = () => new Set(idsOfType(template, 'AWS::SQS::Queue'));

describe('serverless package: event sources and queues', () => {
  it('maps exactly the two queues, each reporting batch item failures', () => {
    const mappings = sqsMappings();
    expect(mappings).toHaveLength(2);
    for (const id of mappings) {
      const mapping = props(id);
      expect(queueIds().has(targetId(mapping['EventSourceArn']) ?? '')).toBe(true);
      expect(mapping['FunctionResponseTypes']).toEqual(['ReportBatchItemFailures']);
      expect(mapping['BatchSize']).toBe(10);
    }
  });

  it('caps the notifications mapping’s concurrency (protects the external provider)', () => {
    const id = idsOfType(template, 'AWS::Lambda::EventSourceMapping').find((m) => m.startsWith('Notifications'));
    const max = (props(id ?? '')['ScalingConfig'] as { MaximumConcurrency?: number } | undefined)?.MaximumConcurrency;
    expect(max).toBe(5);
  });

  it('gives every consumed queue a DLQ and a visibility timeout of at least 6x its function timeout', () => {
    for (const id of sqsMappings()) {
      const mapping = props(id);
      const queue = props(targetId(mapping['EventSourceArn']) ?? '');
      const fn = props(targetId(mapping['FunctionName']) ?? '');
      const redrive = queue['RedrivePolicy'] as { deadLetterTargetArn: unknown; maxReceiveCount: number };
      const dlq = targetId(redrive.deadLetterTargetArn) ?? '';
      expect(queueIds().has(dlq)).toBe(true);
      expect(redrive.maxReceiveCount).toBeGreaterThanOrEqual(1);
      // A FIFO queue needs a FIFO DLQ.
      expect(props(dlq)['FifoQueue'] ?? false).toBe(queue['FifoQueue'] ?? false);
      // AWS guidance: room for Lambda to retry a throttled batch before the messages reappear.
      expect(queue['VisibilityTimeout']).toBeGreaterThanOrEqual(6 * Number(fn['Timeout']));
    }
  });

  it('uses a FIFO payments queue without a batching window (FIFO does not allow one)', () => {
    expect(props('PaymentsQueue')['FifoQueue']).toBe(true);
    expect(props('PaymentsEventSourceMappingSQSPaymentsQueue')['MaximumBatchingWindowInSeconds']).toBeUndefined();
    expect(props('NotificationsQueue')['FifoQueue']).toBeUndefined();
  });

  it('alarms on the depth of every DLQ', () => {
    const redriveTargets = [...queueIds()]
      .map((id) => (props(id)['RedrivePolicy'] as { deadLetterTargetArn?: unknown } | undefined)?.deadLetterTargetArn)
      .filter((arn) => arn !== undefined)
      .map((arn) => targetId(arn));
    const dlqs = new Set([...redriveTargets, 'PointsDlq', 'OutboxRelayDlq']);
    expect(dlqs.size).toBe(4);
    const alarms = idsOfType(template, 'AWS::CloudWatch::Alarm').map(props);
    for (const dlq of dlqs) {
      const alarm = alarms.find((a) => (a['Dimensions'] as Array<{ Value: unknown }> | undefined)?.some((d) => targetId(d.Value) === dlq));
      expect(alarm, `alarm on ${dlq}`).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
      });
    }
  });

  it("alarms on the sweeper's StaleClaims metric under the namespace and dimension the sweeper writes", () => {
    const env = (props('SweeperLambdaFunction')['Environment'] as { Variables: Record<string, unknown> }).Variables;
    const alarm = idsOfType(template, 'AWS::CloudWatch::Alarm')
      .map(props)
      .find((a) => a['MetricName'] === 'StaleClaims');
    expect(alarm).toMatchObject({
      Namespace: env['METRICS_NAMESPACE'],
      Dimensions: [{ Name: 'Service', Value: env['METRICS_SERVICE'] }],
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });
});

describe('serverless package: alarms on the middleware metrics', () => {
  // Consumer and source of each function, as its middleware writes them in the EMF dimensions.
  const consumers = [
    { Consumer: PAYMENTS_CONSUMER, Source: 'sqs' },
    { Consumer: NOTIFICATIONS_CONSUMER, Source: 'sqs' },
    { Consumer: POINTS_CONSUMER, Source: 'eventbridge' },
  ];
  const dimensionsOf = (c: (typeof consumers)[number]) => [
    { Name: 'Consumer', Value: c.Consumer },
    { Name: 'Source', Value: c.Source },
  ];
  const alarms = () => idsOfType(template, 'AWS::CloudWatch::Alarm').map(props);

  it.each([outcomeMetricNames['lease-lost'], outcomeMetricNames.invalid])('alarms on %s > 0 for every consumer', (metric) => {
    for (const c of consumers) {
      const alarm = alarms().find((a) => a['MetricName'] === metric && JSON.stringify(a['Dimensions']) === JSON.stringify(dimensionsOf(c)));
      expect(alarm, `${metric} alarm for ${c.Consumer}`).toMatchObject({
        Namespace: metricsDefaults.namespace,
        Statistic: 'Sum',
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
      });
      expect(alarm?.['AlarmActions']).toEqual([{ Ref: 'AlarmTopic' }]);
    }
  });

  it('alarms on the payments duplicate rate by metric math over RecordsDuplicate and Records', () => {
    type Query = { Id: string; Expression?: string; ReturnData?: boolean; MetricStat?: { Metric: Record<string, unknown>; Stat: string } };
    const alarm = alarms().find((a) => JSON.stringify(a['Metrics'] ?? []).includes('RecordsDuplicate'));
    const queries = (alarm?.['Metrics'] ?? []) as Query[];
    const stat = (name: string) => queries.find((q) => q.MetricStat?.Metric['MetricName'] === name);
    for (const name of [outcomeMetricNames.duplicate, 'Records']) {
      expect(stat(name)?.MetricStat).toMatchObject({
        Metric: { Namespace: metricsDefaults.namespace, Dimensions: dimensionsOf(consumers[0] as (typeof consumers)[number]) },
        Stat: 'Sum',
      });
    }
    const returned = queries.filter((q) => q.ReturnData !== false);
    expect(returned).toHaveLength(1);
    expect(returned[0]?.Expression).toContain(`${stat(outcomeMetricNames.duplicate)?.Id} / ${stat('Records')?.Id}`);
    expect(alarm).toMatchObject({ ComparisonOperator: 'GreaterThanThreshold', AlarmActions: [{ Ref: 'AlarmTopic' }] });
  });
});

describe('serverless package: the outbox relay', () => {
  const streamMapping = () => {
    const ids = idsOfType(template, 'AWS::Lambda::EventSourceMapping').filter((id) => !sqsMappings().includes(id));
    expect(ids).toHaveLength(1);
    return props(ids[0] ?? '');
  };

  it('turns on the orders table stream (new images) and TTL on expiresAt for published outbox items', () => {
    expect(props('OrdersTable')['StreamSpecification']).toEqual({ StreamViewType: 'NEW_IMAGE' });
    expect(props('OrdersTable')['TimeToLiveSpecification']).toEqual({ AttributeName: 'expiresAt', Enabled: true });
  });

  it('maps the orders stream to the relay with partial failures, bisection, bounded retries and age, and an SQS on-failure destination', () => {
    const mapping = streamMapping();
    expect(mapping['EventSourceArn']).toEqual({ 'Fn::GetAtt': ['OrdersTable', 'StreamArn'] });
    expect(targetId(mapping['FunctionName'])).toBe('OutboxRelayLambdaFunction');
    expect(mapping).toMatchObject({
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      MaximumRecordAgeInSeconds: 43200,
      StartingPosition: 'TRIM_HORIZON',
    });
    const destination = (mapping['DestinationConfig'] as { OnFailure?: { Destination?: unknown } } | undefined)?.OnFailure?.Destination;
    expect(targetId(destination)).toBe('OutboxRelayDlq');
    expect(queueIds().has('OutboxRelayDlq')).toBe(true);
    // Only new outbox items invoke it.
    const filters = (mapping['FilterCriteria'] as { Filters: Array<{ Pattern: string }> }).Filters.map((f) => JSON.parse(f.Pattern));
    expect(filters).toEqual([{ eventName: ['INSERT'], dynamodb: { NewImage: { outboxId: { S: [{ exists: true }] } } } }]);
  });

  it('gives the relay the stream actions on the stream ARN only, the mark on the table, PutEvents on the bus, SendMessage on its DLQ', () => {
    const statements = roleStatements(template).filter((s) => s.role === 'OutboxRelayRole');
    const byAction = (prefix: string) => statements.filter((s) => s.actions.some((a) => a.startsWith(prefix)));
    const stream = byAction('dynamodb:').find((s) => s.actions.includes('dynamodb:GetRecords'));
    expect([...(stream?.actions ?? [])].sort()).toEqual([
      'dynamodb:DescribeStream',
      'dynamodb:GetRecords',
      'dynamodb:GetShardIterator',
      'dynamodb:ListStreams',
    ]);
    expect(stream?.resources).toEqual([{ 'Fn::GetAtt': ['OrdersTable', 'StreamArn'] }]);
    const table = byAction('dynamodb:').filter((s) => s !== stream);
    expect(table.map((s) => [s.actions, s.resources])).toEqual([[['dynamodb:UpdateItem'], [{ 'Fn::GetAtt': ['OrdersTable', 'Arn'] }]]]);
    expect(byAction('sqs:').map((s) => [s.actions, referencedIds(s.resources)])).toEqual([[['sqs:SendMessage'], ['OutboxRelayDlq']]]);
    const env = (props('OutboxRelayLambdaFunction')['Environment'] as { Variables: Record<string, unknown> }).Variables;
    expect(env['EVENT_BUS_NAME']).toEqual(expect.stringContaining('orders'));
  });
});

describe('serverless package: EventBridge and the points async invoke', () => {
  it('bounds the retries of points and sends failures to an SQS DLQ', () => {
    const [config] = idsOfType(template, 'AWS::Lambda::EventInvokeConfig')
      .map(props)
      .filter((c) => targetId(c['FunctionName']) === 'PointsLambdaFunction');
    expect(config).toBeDefined();
    expect(config?.['MaximumRetryAttempts']).toBe(2);
    expect(config?.['MaximumEventAgeInSeconds']).toEqual(expect.any(Number));
    const onFailure = (config?.['DestinationConfig'] as { OnFailure?: { Destination?: unknown } } | undefined)?.OnFailure;
    expect(queueIds().has(targetId(onFailure?.Destination) ?? '')).toBe(true);
  });

  it('routes OrderPaid, as payments publishes it, on the service bus to points', () => {
    const rules = idsOfType(template, 'AWS::Events::Rule').map(props);
    const rule = rules.find((r) => r['EventPattern'] !== undefined);
    expect(rule?.['EventPattern']).toEqual({ source: [ORDER_EVENTS_SOURCE], 'detail-type': [ORDER_PAID] });
    expect(resource(template, referencedIds(rule?.['EventBusName'])[0] ?? '').Type).toBe('AWS::Events::EventBus');
    const targets = rule?.['Targets'] as Array<{ Arn: unknown }>;
    expect(targets.map((t) => targetId(t.Arn))).toEqual(['PointsLambdaFunction']);
  });
});

describe('serverless package: DynamoDB tables', () => {
  it('builds the three tables from infra/tables.json, on demand, with PITR and SSE', () => {
    const byDefinition = { IdempotencyTable: 'idempotency', OrdersTable: 'orders', PointsTable: 'points' } as const;
    expect([...tableIds()].sort()).toEqual(Object.keys(byDefinition).sort());
    for (const [id, name] of Object.entries(byDefinition)) {
      const { TableName, ...rest } = props(id);
      expect(TableName).toEqual(expect.stringContaining(name));
      expect(rest).toEqual(tableDefinitions[name]);
      expect(rest).toMatchObject({
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
      });
    }
  });

  it('enables TTL on expiresAt and the sparse in-flight index on the idempotency table', () => {
    const table = props('IdempotencyTable');
    expect(table['TimeToLiveSpecification']).toEqual({ AttributeName: 'expiresAt', Enabled: true });
    const indexes = table['GlobalSecondaryIndexes'] as Array<{ IndexName: string; KeySchema: unknown }>;
    expect(indexes.find((i) => i.IndexName === 'inflight-by-lease')?.KeySchema).toEqual([
      { AttributeName: 'inflight', KeyType: 'HASH' },
      { AttributeName: 'leaseUntil', KeyType: 'RANGE' },
    ]);
  });
});

describe('serverless package: IAM', () => {
  it('gives every function its own role and creates no shared default role', () => {
    expect(template.Resources['IamRoleLambdaExecution']).toBeUndefined();
    const roles = FUNCTIONS.map((name) => targetId(props(fnId(name))['Role']));
    expect(new Set(roles).size).toBe(FUNCTIONS.length);
    for (const role of roles) {
      expect(resource(template, role ?? '').Type).toBe('AWS::IAM::Role');
      expect(props(role ?? '')['ManagedPolicyArns']).toBeUndefined();
    }
  });

  it('scopes every DynamoDB statement to table ARNs: no "*" action or resource', () => {
    const dynamo = roleStatements(template).filter((s) => s.actions.some((a) => a.startsWith('dynamodb:')));
    expect(dynamo.length).toBeGreaterThan(0);
    for (const statement of dynamo) {
      expect(statement.actions.filter((a) => a.includes('*'))).toEqual([]);
      for (const arn of statement.resources) {
        expect(typeof arn === 'string' ? arn : JSON.stringify(arn)).not.toContain('*');
        const ids = referencedIds(arn);
        expect(ids.length).toBeGreaterThan(0);
        expect(
          ids.every((id) => tableIds().has(id)),
          `${statement.role}: ${JSON.stringify(arn)}`,
        ).toBe(true);
      }
    }
  });

  it('grants each function only the DynamoDB actions its strategy uses', () => {
    const grants = (role: string) =>
      Object.fromEntries(
        roleStatements(template)
          .filter((s) => s.role === role && s.actions.some((a) => a.startsWith('dynamodb:')))
          .map((s) => [referencedIds(s.resources).join(','), [...s.actions].sort()]),
      );
    // Transaction strategy: the idempotency record's Put (BatchGetItem: group commit's duplicate probe); the transition's Update and the outbox item's Put.
    expect(grants('PaymentsRole')).toEqual({
      IdempotencyTable: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:PutItem'],
      OrdersTable: ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
    });
    expect(grants('PointsRole')).toEqual({
      IdempotencyTable: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:PutItem'],
      PointsTable: ['dynamodb:ConditionCheckItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
    });
    // Claim strategy: PutItem (a fresh key's claim), UpdateItem (takeover, completion), DeleteItem (release); a batch's
    // claims and completions as PartiQL INSERTs and UPDATEs, and BatchGetItem for the items its INSERTs met.
    expect(grants('NotificationsRole')).toEqual({
      IdempotencyTable: [
        'dynamodb:BatchGetItem',
        'dynamodb:DeleteItem',
        'dynamodb:PartiQLInsert',
        'dynamodb:PartiQLUpdate',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
      ],
    });
    expect(grants('SweeperRole')).toEqual({ IdempotencyTable: ['dynamodb:Query'] });
    const index = roleStatements(template).find((s) => s.role === 'SweeperRole' && s.actions.includes('dynamodb:Query'));
    expect(JSON.stringify(index?.resources)).toContain('/index/inflight-by-lease');
  });

  it('lets only the outbox relay publish, and only to the service bus', () => {
    const publishers = roleStatements(template).filter((s) => s.actions.some((a) => a.startsWith('events:')));
    expect(publishers.map((s) => [s.role, s.actions, referencedIds(s.resources)])).toEqual([
      ['OutboxRelayRole', ['events:PutEvents'], ['OrdersBus']],
    ]);
  });
});

describe('serverless package: SQS permanent failures and backoff', () => {
  it('lets notifications send only to its own DLQ, and change visibility only on its own queue (deadLetter, backoff)', () => {
    const grants = (action: string) =>
      roleStatements(template)
        .filter((s) => s.actions.includes(action))
        .map((s) => [s.role, referencedIds(s.resources)]);
    expect(grants('sqs:SendMessage').filter(([role]) => role === 'NotificationsRole')).toEqual([
      ['NotificationsRole', ['NotificationsDlq']],
    ]);
    expect(grants('sqs:ChangeMessageVisibility')).toEqual([['NotificationsRole', ['NotificationsQueue']]]);
    // The DLQ is found through the queue's redrive policy.
    expect(grants('sqs:GetQueueAttributes')).toEqual(expect.arrayContaining([['NotificationsRole', ['NotificationsQueue']]]));
  });
});

describe('serverless package: bundles', () => {
  it("runs every Lambda function of the stack on the Node line package.json's engines starts at, and bundles for it", async () => {
    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
    const major = /^>=(\d+)$/.exec(pkg.engines.node)?.[1];
    expect(major).toBe('22');
    const functions = idsOfType(template, 'AWS::Lambda::Function');
    expect(functions.length).toBeGreaterThanOrEqual(FUNCTIONS.length);
    for (const id of functions) expect(props(id)['Runtime'], id).toBe(`nodejs${major}.x`);
    const yml = parse(await readFile(join(root, 'serverless.yml'), 'utf8'), { logLevel: 'error' }) as {
      custom: { esbuild: { target: string } };
    };
    expect(yml.custom.esbuild.target).toBe(`node${major}`);
  });

  it('bundles each handler as CommonJS (.cjs) on nodejs22.x, leaving the runtime SDK out', async () => {
    for (const name of FUNCTIONS) {
      const fn = props(fnId(name));
      expect(fn['Runtime']).toBe('nodejs22.x');
      expect(fn['Handler']).toBe(`functions/${fileOf(name)}.handler`);
      const entries = zipEntries(await readFile(join(outDir, `${name}.zip`)));
      const code = entries.get(`functions/${fileOf(name)}.cjs`)?.toString('utf8');
      expect(code, `${name}.zip holds functions/${fileOf(name)}.cjs`).toBeDefined();
      expect([...entries.keys()].filter((path) => path.startsWith('node_modules/'))).toEqual([]);
      expect(code).toMatch(/require\("@aws-sdk\/lib-dynamodb"\)/);
    }
  });

  it('loads every bundle under plain Node and exports a handler function', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'eo-bundles-'));
    try {
      const files: string[] = [];
      for (const name of FUNCTIONS) {
        const code = zipEntries(await readFile(join(outDir, `${name}.zip`))).get(`functions/${fileOf(name)}.cjs`);
        const file = join(dir, `${name}.cjs`);
        await writeFile(file, code ?? '');
        files.push(file);
      }
      const script = `for (const f of ${JSON.stringify(files)}) { if (typeof require(f).handler !== 'function') throw new Error(f); }`;
      // NODE_PATH stands in for the SDK the Lambda runtime provides.
      await promisify(execFile)(process.execPath, ['-e', script], {
        env: { ...process.env, NODE_PATH: join(root, 'node_modules') },
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
