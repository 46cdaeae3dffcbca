import { describe, expect, it } from 'vitest';
import { Expression } from '../../../src/stores/dynamodb/expression-builder.js';

describe('Expression (the one placeholder builder)', () => {
  it('registers each name and value once, under the placeholder it returns', () => {
    const e = new Expression();
    expect(e.name('status')).toBe('#status');
    expect(e.name('order.state', 'state')).toBe('#state');
    expect(e.name('status')).toBe('#status');
    expect(e.value('now', 5)).toBe(':now');
    expect(e.attributes()).toEqual({
      ExpressionAttributeNames: { '#status': 'status', '#state': 'order.state' },
      ExpressionAttributeValues: { ':now': 5 },
    });
  });

  it('assign: `#attribute = :label`, both registered as name and value would register them', () => {
    const e = new Expression();
    expect(e.assign('status', 'done', 'COMPLETED')).toBe('#status = :done');
    expect(e.attributes()).toEqual({
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':done': 'COMPLETED' },
    });
  });

  it('leaves the values map out when no value is used (DynamoDB rejects an empty one)', () => {
    const e = new Expression();
    e.name('id');
    expect(e.attributes()).toEqual({ ExpressionAttributeNames: { '#id': 'id' } });
    expect('ExpressionAttributeValues' in e.attributes()).toBe(false);
    expect(e.attributeValues()).toEqual({});
  });

  it('hands out copies, so a built request never changes afterwards', () => {
    const e = new Expression();
    const names = e.attributeNames();
    e.name('late');
    expect(names).toEqual({});
  });

  it('joins SET and REMOVE clauses, leaving out an empty one', () => {
    expect(Expression.update(['#a = :a', '#b = :b'], ['#c', '#d'])).toBe('SET #a = :a, #b = :b REMOVE #c, #d');
    expect(Expression.update(['#a = :a'])).toBe('SET #a = :a');
    expect(Expression.update([], ['#c'])).toBe('REMOVE #c');
  });
});
