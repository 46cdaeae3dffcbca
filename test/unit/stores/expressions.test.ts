import { describe, expect, it } from 'vitest';
import {
  claimPutRequest,
  claimRequest,
  commitPut,
  completeRequest,
  markFailedRequest,
  releaseDeleteRequest,
} from '../../../src/stores/dynamodb/expressions.js';
import { encodeResult } from '../../../src/stores/dynamodb/records.js';

const now = 1_700_000_000_500;

// DynamoDB rejects names/values that an expression does not use, so every placeholder must appear.
function placeholdersAreUsed(input: {
  ConditionExpression?: string | undefined;
  UpdateExpression?: string | undefined;
  ExpressionAttributeNames?: Record<string, string> | undefined;
  ExpressionAttributeValues?: Record<string, unknown> | undefined;
}): void {
  const text = `${input.ConditionExpression ?? ''} ${input.UpdateExpression ?? ''}`;
  for (const p of [...Object.keys(input.ExpressionAttributeNames ?? {}), ...Object.keys(input.ExpressionAttributeValues ?? {})]) {
    expect(text).toMatch(new RegExp(`${p}\\b`));
  }
}

describe('claimPutRequest', () => {
  const params = { tableName: 't', id: 'c#k', token: 'tok', now, leaseMs: 30_000, retentionMs: 1_000, messageId: 'm-1' };

  it('puts only where no item exists, and returns the item that refused it', () => {
    const put = claimPutRequest(params);
    expect(put.ConditionExpression).toBe('attribute_not_exists(#id)');
    expect(put.ExpressionAttributeNames).toEqual({ '#id': 'id' });
    expect(put.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
  });

  it('writes what the conditional update sets on a key without an item (attempts 1, no unset attributes)', () => {
    const update = claimRequest({ ...params, trackInflight: true });
    const values = update.ExpressionAttributeValues ?? {};
    expect(claimPutRequest({ ...params, trackInflight: true }).Item).toEqual({
      id: 'c#k',
      status: values[':inProgress'],
      owner: values[':token'],
      leaseUntil: values[':leaseUntil'],
      expiresAt: values[':expiresAt'],
      claimedAt: values[':now'],
      attempts: 1,
      messageId: values[':messageId'],
      inflight: values[':shard'],
    });
    expect(claimPutRequest(params).Item).not.toHaveProperty('inflight');
  });
});

describe('claimRequest', () => {
  const input = claimRequest({ tableName: 't', id: 'c#k', token: 'tok', now, leaseMs: 30_000, retentionMs: 1_000 });

  it('allows no item, expired retention, FAILED, or an expired lease', () => {
    expect(input.ConditionExpression).toBe(
      'attribute_not_exists(#id) OR #expiresAt <= :nowSec OR #status = :failed OR (#status = :inProgress AND #leaseUntil <= :now)',
    );
    expect(input.ExpressionAttributeValues).toMatchObject({ ':nowSec': 1_700_000_000, ':now': now, ':leaseUntil': now + 30_000 });
  });

  it('sets the TTL to the later of retention and lease end', () => {
    expect(input.ExpressionAttributeValues?.[':expiresAt']).toBe(Math.ceil((now + 30_000) / 1000));
  });

  it('increments attempts and removes leftovers of an older record, including unset optional attributes', () => {
    expect(input.UpdateExpression).toContain('#attempts = if_not_exists(#attempts, :zero) + :one');
    expect(input.UpdateExpression).toMatch(/REMOVE #result, #lastError, #completedAt, #payloadHash, #messageId$/);
    expect(input.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
    placeholdersAreUsed(input);
  });
});

describe('fenced writes', () => {
  const params = { tableName: 't', id: 'c#k', token: 'tok', now, retentionMs: 1_000 };

  it.each([
    ['complete', completeRequest(params)],
    ['delete', releaseDeleteRequest(params)],
    ['mark-failed', markFailedRequest(params, 'Error: x')],
  ])('%s is conditioned on IN_PROGRESS and the owner token', (_name, input) => {
    expect(input.ConditionExpression).toBe('#status = :inProgress AND #owner = :token');
    expect(input.ExpressionAttributeValues).toMatchObject({ ':token': 'tok', ':inProgress': 'IN_PROGRESS' });
    expect(input.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
    placeholdersAreUsed(input);
  });

  it('complete leaves the in-flight index and stores the result only when asked', () => {
    expect(completeRequest(params).UpdateExpression).toMatch(/REMOVE #inflight, #leaseUntil$/);
    expect(completeRequest(params).UpdateExpression).not.toContain('#result');
    expect(completeRequest({ ...params, result: encodeResult(undefined) }).ExpressionAttributeValues?.[':result']).toEqual({});
    expect(completeRequest({ ...params, result: encodeResult(null) }).ExpressionAttributeValues?.[':result']).toEqual({ j: 'null' });
  });
});

describe('commitPut', () => {
  it('uses the same "key is free" condition as a claim', () => {
    const put = commitPut('t', { id: 'c#k' }, now);
    const claim = claimRequest({ tableName: 't', id: 'c#k', token: 'x', now, leaseMs: 1, retentionMs: 1 });
    expect(put.ConditionExpression).toBe(claim.ConditionExpression);
    placeholdersAreUsed(put);
  });
});
