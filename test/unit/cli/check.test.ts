/**
 * Issue 34 item 6: `effectively-once check` decides from DescribeTable,
 * DescribeTimeToLive and DescribeContinuousBackups. Global tables cannot be
 * made on DynamoDB Local, so the replica cases are hand-built descriptions
 * shaped as DescribeTable returns them.
 */
import type { TableDescription } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { GLOBAL_TABLE_WARNING, tableChecks, type TableFacts } from '../../../cli/check.js';

const goodTable: TableDescription = {
  TableName: 'idempotency',
  KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
  AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
  BillingModeSummary: { BillingMode: 'PAY_PER_REQUEST' },
};
const good: TableFacts = {
  table: goodTable,
  ttl: { TimeToLiveStatus: 'ENABLED', AttributeName: 'expiresAt' },
  backups: { ContinuousBackupsStatus: 'ENABLED', PointInTimeRecoveryDescription: { PointInTimeRecoveryStatus: 'ENABLED' } },
};
const marks = (facts: TableFacts, outbox = false) => Object.fromEntries(tableChecks(facts, { outbox }).map((c) => [c.check, c.mark]));
const detail = (facts: TableFacts, check: string) => tableChecks(facts).find((c) => c.check === check)?.detail ?? '';

/** Two replicas as DescribeTable shows a global table (version 2019.11.21). */
const replicated = (consistency?: 'STRONG' | 'EVENTUAL'): TableDescription => ({
  ...goodTable,
  GlobalTableVersion: '2019.11.21',
  Replicas: [
    { RegionName: 'eu-west-1', ReplicaStatus: 'ACTIVE' },
    { RegionName: 'us-east-1', ReplicaStatus: 'ACTIVE' },
  ],
  ...(consistency === undefined ? {} : { MultiRegionConsistency: consistency }),
});

describe('tableChecks', () => {
  it('passes a table as infra/tables.json defines it', () => {
    expect(marks(good)).toEqual({ 'key schema': 'pass', TTL: 'pass', 'billing mode': 'pass', replicas: 'pass', PITR: 'pass' });
  });

  it('fails a wrong key name, a wrong key type, and a sort key', () => {
    const withKey = (table: Partial<TableDescription>): TableFacts => ({ ...good, table: { ...goodTable, ...table } });
    const wrongName = withKey({
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
    });
    const wrongType = withKey({ AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'N' }] });
    const sortKey = withKey({
      KeySchema: [
        { AttributeName: 'id', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'id', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
    });
    expect([wrongName, wrongType, sortKey].map((f) => marks(f)['key schema'])).toEqual(['fail', 'fail', 'fail']);
    expect(detail(wrongType, 'key schema')).toMatch(/^id HASH N; .*"id" \(HASH, string\)/);
  });

  it('fails TTL off or on another attribute; warns when it cannot be read', () => {
    const off = { ...good, ttl: { TimeToLiveStatus: 'DISABLED' as const } };
    const other = { ...good, ttl: { TimeToLiveStatus: 'ENABLED' as const, AttributeName: 'ttl' } };
    const denied = { ...good, ttl: { unreadable: 'AccessDeniedException: not authorized' } };
    expect([off, other, denied].map((f) => marks(f)['TTL'])).toEqual(['fail', 'fail', 'warn']);
    expect(detail(other, 'TTL')).toMatch(/on "ttl".*grows forever/);
  });

  it('warns on a provisioned table and on PITR off or unreadable', () => {
    const provisioned = {
      ...good,
      table: { ...goodTable, BillingModeSummary: undefined, ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 5 } },
    };
    const noPitr = {
      ...good,
      backups: {
        ContinuousBackupsStatus: 'ENABLED' as const,
        PointInTimeRecoveryDescription: { PointInTimeRecoveryStatus: 'DISABLED' as const },
      },
    };
    const denied = { ...good, backups: { unreadable: 'AccessDeniedException: no' } };
    expect([marks(provisioned)['billing mode'], marks(noPitr)['PITR'], marks(denied)['PITR']]).toEqual(['warn', 'warn', 'warn']);
  });

  it('warns on a multi-Region eventually consistent global table (with or without the field), passes multi-Region strong consistency', () => {
    const eventual = { ...good, table: replicated('EVENTUAL') };
    const unspecified = { ...good, table: replicated() };
    const strong = { ...good, table: replicated('STRONG') };
    expect([eventual, unspecified, strong].map((f) => marks(f)['replicas'])).toEqual(['warn', 'warn', 'pass']);
    expect(detail(eventual, 'replicas')).toBe(`eu-west-1, us-east-1; ${GLOBAL_TABLE_WARNING}`);
    expect(GLOBAL_TABLE_WARNING).toBe(
      "claims are per Region on a multi-Region eventually consistent global table; route a key's messages to one Region or use multi-Region strong consistency",
    );
  });

  it('--outbox: checks the stream view type instead of the key schema and replicas', () => {
    const stream = (StreamViewType?: 'NEW_IMAGE' | 'NEW_AND_OLD_IMAGES' | 'KEYS_ONLY' | 'OLD_IMAGE') => ({
      ...good,
      table: {
        ...goodTable,
        KeySchema: [{ AttributeName: 'orderNo', KeyType: 'HASH' as const }],
        ...(StreamViewType === undefined ? {} : { StreamSpecification: { StreamEnabled: true, StreamViewType } }),
      },
    });
    const views = [stream('NEW_IMAGE'), stream('NEW_AND_OLD_IMAGES'), stream('KEYS_ONLY'), stream('OLD_IMAGE'), stream()];
    expect(views.map((f) => marks(f, true)['stream'])).toEqual(['pass', 'pass', 'fail', 'fail', 'fail']);
    expect(Object.keys(marks(stream('NEW_IMAGE'), true))).toEqual(['TTL', 'billing mode', 'stream', 'PITR']);
  });
});
