/**
 * One idempotency table definition (src/stores/dynamodb/table.ts): the
 * reference service's infra/tables.json (which serverless.yml reads) and the
 * CloudFormation block in docs/operations.md must equal it.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { tableDefinitions } from '../../../infra/tables.js';
import { idempotencyTable } from '../../../src/stores/dynamodb/table.js';

const repo = (path: string): string => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

describe('the idempotency table definition', () => {
  it('is the one infra/tables.json (and so serverless.yml) uses', () => {
    expect(tableDefinitions.idempotency).toEqual(idempotencyTable);
  });

  it("is the CloudFormation block in docs/operations.md, apart from the table's name", () => {
    const section = repo('docs/operations.md').split('## The idempotency table')[1] ?? '';
    const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block).toBeDefined();
    const { Type, Properties } = parse(block ?? '').Resources.IdempotencyTable;
    const { TableName, ...definition } = Properties;
    expect(Type).toBe('AWS::DynamoDB::Table');
    expect(TableName).toBe('idempotency');
    expect(definition).toEqual(idempotencyTable);
  });
});
