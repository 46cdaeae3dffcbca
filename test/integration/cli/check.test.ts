/**
 * `effectively-once check` against DynamoDB Local: a table as infra/tables.json
 * defines it passes; deliberately wrong ones (key name, key type, no TTL, TTL
 * on another attribute, an outbox table without a usable stream) fail with
 * exit code 1 and say why.
 */
import { describe, expect, it } from 'vitest';
import { tableDefinitions, type TableDefinition } from '../../../infra/tables.js';
import { freshTable, testDynamo } from '../../support/dynamodb.js';
import { runCli } from './support.js';

const good = tableDefinitions.idempotency;
const withTtl = (def: TableDefinition, AttributeName = 'expiresAt'): TableDefinition => ({
  ...def,
  TimeToLiveSpecification: { AttributeName, Enabled: true },
});
const keyed = (name: string, type: 'S' | 'N'): TableDefinition =>
  withTtl({
    AttributeDefinitions: [{ AttributeName: name, AttributeType: type }],
    KeySchema: [{ AttributeName: name, KeyType: 'HASH' }],
    BillingMode: 'PAY_PER_REQUEST',
  });
const { TimeToLiveSpecification: _ttl, ...noTtl } = good;

/** Runs `check` on a fresh table made from `def`; the marks by check, the exit code and the text. */
async function checked(def: TableDefinition, extra: string[] = []) {
  const table = await freshTable(testDynamo().client, def, 'check');
  const json = await runCli(['check', '--table', table, '--json', ...extra]);
  const text = await runCli(['check', '--table', table, ...extra]);
  const doc = JSON.parse(json.stdout) as { ok: boolean; checks: { check: string; mark: string; detail: string }[] };
  return {
    code: json.code,
    textCode: text.code,
    ok: doc.ok,
    marks: Object.fromEntries(doc.checks.map((c) => [c.check, c.mark])),
    text: text.stdout,
  };
}

describe('effectively-once check', () => {
  it('passes the idempotency table as infra/tables.json defines it (exit 0), one line per check', async () => {
    const run = await checked(good);
    expect(run).toMatchObject({ code: 0, textCode: 0, ok: true });
    expect(run.marks).toMatchObject({ 'key schema': 'pass', TTL: 'pass', 'billing mode': 'pass', replicas: 'pass' });
    expect(
      run.text
        .trim()
        .split('\n')
        .map((l) => l.split(/\s{2,}/).slice(0, 2)),
    ).toEqual([
      ['PASS', 'key schema'],
      ['PASS', 'TTL'],
      ['PASS', 'billing mode'],
      ['PASS', 'replicas'],
      [expect.stringMatching(/^(PASS|WARN)$/), 'PITR'],
    ]);
  });

  it('fails a wrong key name and a wrong key type (exit 1)', async () => {
    const name = await checked(keyed('pk', 'S'));
    const type = await checked(keyed('id', 'N'));
    expect([name.code, name.marks['key schema'], type.code, type.marks['key schema']]).toEqual([1, 'fail', 1, 'fail']);
    expect(type.text).toMatch(/^FAIL\s+key schema\s+id HASH N; /m);
  });

  it('fails a table without TTL, and one with TTL on another attribute (exit 1)', async () => {
    const none = await checked(noTtl);
    const other = await checked(withTtl(good, 'ttl'));
    expect([none.code, none.marks['TTL'], other.code, other.marks['TTL']]).toEqual([1, 'fail', 1, 'fail']);
    expect(other.text).toMatch(/^FAIL\s+TTL\s+on "ttl"/m);
  });

  it('--outbox: passes a NEW_IMAGE stream, fails KEYS_ONLY', async () => {
    const outbox = (StreamViewType: string) =>
      withTtl({ ...keyed('orderNo', 'S'), StreamSpecification: { StreamViewType } } as TableDefinition);
    const newImage = await checked(outbox('NEW_IMAGE'), ['--outbox']);
    const keysOnly = await checked(outbox('KEYS_ONLY'), ['--outbox']);
    expect([newImage.code, newImage.marks['stream'], keysOnly.code, keysOnly.marks['stream']]).toEqual([0, 'pass', 1, 'fail']);
  });

  it('a table that does not exist is an AWS error on stderr, exit 1', async () => {
    const run = await runCli(['check', '--table', 'no-such-table-anywhere']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^effectively-once check: .*no-such-table-anywhere/);
  });
});
