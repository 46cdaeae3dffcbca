import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { buildTransitionUpdate, buildVersionedUpdate } from '../../../src/strategies/transaction/state-expressions.js';
import { decideTransition, decideVersionedUpdate, sameValue, versionOf } from '../../../src/strategies/transaction/transition.js';

describe('decideTransition', () => {
  const spec = { from: 'PENDING', to: 'PAID' } as const;

  it('no item is missing', () => {
    expect(decideTransition(undefined, spec)).toEqual({ kind: 'missing' });
  });

  it('an item already in the target state is already (a duplicate)', () => {
    const item = { pk: 'o1', status: 'PAID', version: 2 };
    expect(decideTransition(item, spec)).toEqual({ kind: 'already', item });
  });

  it('an item in another state is a conflict carrying the item', () => {
    const item = { pk: 'o1', status: 'CANCELLED' };
    expect(decideTransition(item, spec)).toEqual({ kind: 'conflict', item });
  });

  it('an item that seems to satisfy the condition is a conflict, never acknowledged', () => {
    expect(decideTransition({ pk: 'o1', status: 'PENDING' }, spec).kind).toBe('conflict');
  });

  it('with expectVersion, already only once the version has moved past it', () => {
    const at = (version: number) => ({ pk: 'o1', status: 'PAID', version });
    expect(decideTransition(at(3), { ...spec, expectVersion: 2 }).kind).toBe('already');
    expect(decideTransition(at(2), { ...spec, expectVersion: 2 }).kind).toBe('conflict');
    expect(decideTransition(at(1), { ...spec, expectVersion: 2 }).kind).toBe('conflict');
    expect(decideTransition({ pk: 'o1', status: 'PENDING', version: 3 }, { ...spec, expectVersion: 2 }).kind).toBe('conflict');
  });

  it('honours custom state and version attributes', () => {
    const item = { pk: 'o1', phase: 'PAID', rev: 5 };
    const custom = { ...spec, stateAttribute: 'phase', versionAttribute: 'rev', expectVersion: 4 };
    expect(decideTransition(item, custom).kind).toBe('already');
  });
});

describe('decideVersionedUpdate', () => {
  const spec = { expectVersion: 2, set: { total: 10, tags: new Set(['a', 'b']) } };

  it('no item is missing', () => {
    expect(decideVersionedUpdate(undefined, spec)).toEqual({ kind: 'missing' });
  });

  it('one version later holding every set value is already', () => {
    const item = { pk: 'c', version: 3, total: 10, tags: new Set(['b', 'a']), other: 1 };
    expect(decideVersionedUpdate(item, spec)).toEqual({ kind: 'already', item });
  });

  it('one version later with other values is a conflict', () => {
    expect(decideVersionedUpdate({ pk: 'c', version: 3, total: 11, tags: new Set(['a', 'b']) }, spec).kind).toBe('conflict');
  });

  it('any other version is a conflict, even with the same values', () => {
    expect(decideVersionedUpdate({ pk: 'c', version: 4, total: 10, tags: new Set(['a', 'b']) }, spec).kind).toBe('conflict');
    expect(decideVersionedUpdate({ pk: 'c', version: 1, total: 10, tags: new Set(['a', 'b']) }, spec).kind).toBe('conflict');
  });

  it('a stored map that looks like a wrapped number is not that number: never already for an update not applied', () => {
    const item = { pk: 'c', version: 3, total: { value: '10' }, tags: new Set(['a', 'b']) };
    expect(decideVersionedUpdate(item, spec).kind).toBe('conflict');
    const wrapped = { pk: 'c', version: 3, total: NumberValue.from('10'), tags: new Set(['a', 'b']) };
    expect(decideVersionedUpdate(wrapped, spec).kind).toBe('already');
    expect(decideVersionedUpdate(wrapped, { expectVersion: 2, set: { total: { value: '10' } } }).kind).toBe('conflict');
  });

  it('an unversioned item counts as version 0', () => {
    expect(decideVersionedUpdate({ pk: 'c', total: 1 }, { expectVersion: 0, set: { total: 1 } }).kind).toBe('conflict');
    expect(decideVersionedUpdate({ pk: 'c', version: 1, total: 1 }, { expectVersion: 0, set: { total: 1 } }).kind).toBe('already');
  });
});

describe('versionOf and sameValue', () => {
  it('reads versions: missing is 0, numbers and wrapped numbers as numbers, other types undefined', () => {
    expect(versionOf({})).toBe(0);
    expect(versionOf({ version: 7 })).toBe(7);
    expect(versionOf({ version: NumberValue.from('8') })).toBe(8);
    expect(versionOf({ version: { value: '8' } })).toBeUndefined(); // a map, not a number
    expect(versionOf({ version: '7' })).toBeUndefined();
  });

  it('compares DynamoDB values structurally', () => {
    expect(sameValue({ a: [1, { b: 'x' }] }, { a: [1, { b: 'x' }] })).toBe(true);
    expect(sameValue({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameValue(new Uint8Array([1, 2]), Buffer.from([1, 2]))).toBe(true);
    expect(sameValue(10n, 10)).toBe(true);
    expect(sameValue([1, 2], [2, 1])).toBe(false);
    expect(sameValue(new Set([1]), new Set([1, 2]))).toBe(false);
    expect(sameValue('1', 1)).toBe(false);
    expect(sameValue(null, undefined)).toBe(false);
  });

  it('tells a wrapped number (NumberValue) from a plain map of the same shape, and compares numbers exactly', () => {
    expect(sameValue(NumberValue.from('2'), 2)).toBe(true);
    expect(sameValue(NumberValue.from('2.50'), 2.5)).toBe(true);
    expect(sameValue({ value: '2' }, 2)).toBe(false);
    expect(sameValue({ value: '2' }, NumberValue.from('2'))).toBe(false);
    expect(sameValue(NumberValue.from('2'), { value: '2' })).toBe(false);
    expect(sameValue({ value: '2' }, { value: '2' })).toBe(true);
    expect(sameValue(NumberValue.from('12345678901234567891'), 12345678901234567890n)).toBe(false);
  });
});

describe('state update expressions', () => {
  it('builds a transition with placeholders for every name and value', () => {
    const u = buildTransitionUpdate({
      tableName: 'orders',
      key: { pk: 'o1', sk: 'x' },
      from: ['NEW', 'PENDING'],
      to: 'PAID',
      set: { 'paid-at': 5 },
      expectVersion: 3,
    });
    expect(u.ConditionExpression).toBe('attribute_exists(#key) AND #state IN (:from0, :from1) AND #version = :expected');
    expect(u.UpdateExpression).toBe('SET #state = :to, #a0 = :a0, #version = if_not_exists(#version, :zero) + :one');
    expect(u.ExpressionAttributeNames).toEqual({ '#key': 'pk', '#state': 'status', '#version': 'version', '#a0': 'paid-at' });
    expect(u.ExpressionAttributeValues).toEqual({
      ':from0': 'NEW',
      ':from1': 'PENDING',
      ':expected': 3,
      ':to': 'PAID',
      ':a0': 5,
      ':zero': 0,
      ':one': 1,
    });
    expect(u.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
  });

  it('expectVersion 0 also matches an unversioned item', () => {
    const u = buildVersionedUpdate({ tableName: 't', key: { pk: 'a' }, expectVersion: 0, set: { x: 1 } });
    expect(u.ConditionExpression).toBe('attribute_exists(#key) AND (attribute_not_exists(#version) OR #version = :expected)');
  });

  it('refuses bad input with a TypeError naming it', () => {
    const base = { tableName: 'orders', key: { pk: 'o1' }, from: 'PENDING', to: 'PAID' };
    expect(() => buildTransitionUpdate({ ...base, from: [] })).toThrow(/from/);
    expect(() => buildTransitionUpdate({ ...base, to: '' })).toThrow(/\bto\b/);
    expect(() => buildTransitionUpdate({ ...base, set: { status: 'X' } })).toThrow(/set\.status/);
    expect(() => buildTransitionUpdate({ ...base, set: { version: 9 } })).toThrow(/set\.version/);
    expect(() => buildTransitionUpdate({ ...base, set: { pk: 'o2' } })).toThrow(/set\.pk/);
    expect(() => buildTransitionUpdate({ ...base, set: { x: undefined } })).toThrow(/set\.x/);
    expect(() => buildTransitionUpdate({ ...base, key: {} })).toThrow(/key/);
    expect(() => buildTransitionUpdate({ ...base, tableName: '' })).toThrow(/tableName/);
    // The name it had before 1.0 is told what it is now.
    const { tableName: _, ...before } = base;
    expect(() => buildTransitionUpdate({ ...before, table: 'orders' } as unknown as typeof base)).toThrow(/"table" is now "tableName"/);
    expect(() => buildTransitionUpdate({ ...base, expectVersion: -1 })).toThrow(/expectVersion/);
    expect(() => buildTransitionUpdate({ ...base, stateAttribute: 'pk' })).toThrow(/stateAttribute/);
    expect(() => buildTransitionUpdate({ ...base, stateAttribute: 'v', versionAttribute: 'v' })).toThrow(/versionAttribute/);
    const vu = { tableName: 't', key: { pk: 'a' }, expectVersion: 1, set: { x: 1 } };
    expect(() => buildVersionedUpdate({ ...vu, set: { version: 2 } })).toThrow(/set\.version/);
    expect(() => buildVersionedUpdate({ ...vu, expectVersion: 1.5 })).toThrow(/expectVersion/);
    expect(() => buildVersionedUpdate({ ...vu, versionAttribute: 'pk' })).toThrow(/versionAttribute/);
  });
});
