import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/testing/index.js';
import { SqsQueueSimulator } from '../../../scripts/sim/index.js';

function standard(clock: ManualClock, extra: { maxReceiveCount?: number; dlq?: SqsQueueSimulator } = {}): SqsQueueSimulator {
  return new SqsQueueSimulator({
    clock,
    visibilityTimeoutMs: 30_000,
    ...(extra.maxReceiveCount === undefined ? {} : { maxReceiveCount: extra.maxReceiveCount }),
    ...(extra.dlq === undefined ? {} : { deadLetterQueue: extra.dlq }),
  });
}

describe('SqsQueueSimulator (standard)', () => {
  it('gives every send a new message id, even for the same body', () => {
    const queue = standard(new ManualClock());
    const a = queue.send('same');
    const b = queue.send('same');
    expect(a.messageId).not.toBe(b.messageId);
    expect(a.deduplicated).toBe(false);
    expect(queue.depth()).toBe(2);
  });

  it('hides a received message for the visibility timeout, then redelivers it with a higher receive count', () => {
    const clock = new ManualClock();
    const queue = standard(clock);
    const { messageId } = queue.send({ orderNo: 'o-1' });
    const [first] = queue.receive();
    expect(first?.messageId).toBe(messageId);
    expect(first?.attributes.ApproximateReceiveCount).toBe('1');
    expect(queue.inFlight()).toBe(1);
    expect(queue.depth()).toBe(0);
    clock.advance(29_999);
    expect(queue.receive()).toEqual([]);
    clock.advance(1);
    const [second] = queue.receive();
    expect(second?.messageId).toBe(messageId);
    expect(second?.attributes.ApproximateReceiveCount).toBe('2');
    expect(second?.receiptHandle).not.toBe(first?.receiptHandle);
    expect(second?.attributes.ApproximateFirstReceiveTimestamp).toBe(first?.attributes.ApproximateFirstReceiveTimestamp);
  });

  it('deletes with the latest receipt handle only; an older one is silently ignored', () => {
    const clock = new ManualClock();
    const queue = standard(clock);
    queue.send('x');
    const [first] = queue.receive();
    clock.advance(30_000);
    const [second] = queue.receive();
    expect(queue.delete(first?.receiptHandle ?? '')).toBe(false);
    expect(queue.size()).toBe(1);
    expect(queue.delete(second?.receiptHandle ?? '')).toBe(true);
    expect(queue.size()).toBe(0);
    expect(queue.delete(second?.receiptHandle ?? '')).toBe(false);
    expect(queue.stats()).toEqual({ sent: 1, deduplicated: 0, received: 2, deleted: 1, redriven: 0 });
  });

  it('moves a message to the DLQ once it was received maxReceiveCount times', () => {
    const clock = new ManualClock();
    const dlq = new SqsQueueSimulator({ name: 'test-dlq', clock });
    const queue = standard(clock, { maxReceiveCount: 3, dlq });
    const { messageId } = queue.send('poison');
    for (let i = 1; i <= 3; i += 1) {
      expect(queue.receive().map((r) => r.attributes.ApproximateReceiveCount)).toEqual([String(i)]);
      clock.advance(30_000);
    }
    expect(queue.receive()).toEqual([]);
    expect(queue.size()).toBe(0);
    expect(queue.stats().redriven).toBe(1);
    const [dead] = dlq.receive();
    expect(dead?.messageId).toBe(messageId);
    expect(dead?.body).toBe('poison');
    expect(dead?.attributes.DeadLetterQueueSourceArn).toBe(queue.arn);
  });

  it('returns at most maxMessages and rejects out-of-range values', () => {
    const queue = standard(new ManualClock());
    for (let i = 0; i < 12; i += 1) queue.send(String(i));
    expect(queue.receive(10)).toHaveLength(10);
    expect(queue.receive(10)).toHaveLength(2);
    expect(() => queue.receive(11)).toThrow(/maxMessages/);
    expect(() => queue.receive(0)).toThrow(TypeError);
  });

  it('reports the next time a hidden message becomes visible', () => {
    const clock = new ManualClock(1_000);
    const queue = standard(clock);
    expect(queue.nextVisibleAt()).toBeUndefined();
    queue.send('x');
    queue.receive();
    expect(queue.nextVisibleAt()).toBe(31_000);
  });
});

describe('SqsQueueSimulator (FIFO)', () => {
  function fifo(clock: ManualClock): SqsQueueSimulator {
    return new SqsQueueSimulator({ name: 'orders.fifo', clock, visibilityTimeoutMs: 30_000 });
  }

  it('delivers each group in send order and sets the FIFO attributes', () => {
    const queue = fifo(new ManualClock());
    queue.send('a1', { groupId: 'a', deduplicationId: 'a1' });
    queue.send('b1', { groupId: 'b', deduplicationId: 'b1' });
    queue.send('a2', { groupId: 'a', deduplicationId: 'a2' });
    const records = queue.receive(10);
    expect(records.map((r) => r.body)).toEqual(['a1', 'b1', 'a2']);
    expect(records[0]?.attributes.MessageGroupId).toBe('a');
    expect(records[0]?.attributes.MessageDeduplicationId).toBe('a1');
    expect(records[0]?.eventSourceARN).toMatch(/orders\.fifo$/);
    const sequences = records.map((r) => BigInt(r.attributes.SequenceNumber ?? '0'));
    expect(sequences[2]).toBeGreaterThan(sequences[0] ?? 0n);
  });

  it('locks a group while any of its messages is in flight, other groups go on', () => {
    const clock = new ManualClock();
    const queue = fifo(clock);
    queue.send('a1', { groupId: 'a', deduplicationId: 'a1' });
    queue.send('a2', { groupId: 'a', deduplicationId: 'a2' });
    queue.send('b1', { groupId: 'b', deduplicationId: 'b1' });
    const [a1] = queue.receive(1);
    expect(a1?.body).toBe('a1');
    // a2 waits behind a1 even though it is visible.
    expect(queue.receive(10).map((r) => r.body)).toEqual(['b1']);
    expect(queue.receive(10)).toEqual([]);
    queue.delete(a1?.receiptHandle ?? '');
    expect(queue.receive(10).map((r) => r.body)).toEqual(['a2']);
  });

  it('redelivers a failed head before the rest of its group after the visibility timeout', () => {
    const clock = new ManualClock();
    const queue = fifo(clock);
    queue.send('a1', { groupId: 'a', deduplicationId: 'a1' });
    queue.send('a2', { groupId: 'a', deduplicationId: 'a2' });
    const batch = queue.receive(10);
    expect(batch.map((r) => r.body)).toEqual(['a1', 'a2']);
    queue.delete(batch[1]?.receiptHandle ?? '');
    clock.advance(30_000);
    expect(queue.receive(10).map((r) => [r.body, r.attributes.ApproximateReceiveCount])).toEqual([['a1', '2']]);
  });

  it('drops a send with the same deduplication id within 5 minutes, accepts it after', () => {
    const clock = new ManualClock();
    const queue = fifo(clock);
    const first = queue.send('pay o-1', { groupId: 'o-1', deduplicationId: 'o-1' });
    const [record] = queue.receive();
    queue.delete(record?.receiptHandle ?? '');
    clock.advance(4 * 60_000);
    const again = queue.send('pay o-1', { groupId: 'o-1', deduplicationId: 'o-1' });
    expect(again).toEqual({ messageId: first.messageId, sequenceNumber: first.sequenceNumber, deduplicated: true });
    expect(queue.size()).toBe(0);
    clock.advance(60_000);
    const late = queue.send('pay o-1', { groupId: 'o-1', deduplicationId: 'o-1' });
    expect(late.deduplicated).toBe(false);
    expect(late.messageId).not.toBe(first.messageId);
    expect(queue.stats()).toMatchObject({ sent: 2, deduplicated: 1 });
  });

  it('deduplicates by body with content-based deduplication', () => {
    const queue = new SqsQueueSimulator({ name: 'cb.fifo', contentBasedDeduplication: true, clock: new ManualClock() });
    expect(queue.send('x', { groupId: 'g' }).deduplicated).toBe(false);
    expect(queue.send('x', { groupId: 'g' }).deduplicated).toBe(true);
    expect(queue.send('y', { groupId: 'g' }).deduplicated).toBe(false);
  });

  it('refuses to delete with a receipt handle whose visibility timeout expired', () => {
    const clock = new ManualClock();
    const queue = fifo(clock);
    queue.send('a1', { groupId: 'a', deduplicationId: 'a1' });
    const [record] = queue.receive();
    clock.advance(30_000);
    expect(queue.delete(record?.receiptHandle ?? '')).toBe(false);
    expect(queue.size()).toBe(1);
  });
});

describe('SqsQueueSimulator options', () => {
  it('names the wrong option in a TypeError', () => {
    expect(() => new SqsQueueSimulator({ name: 'x.fifo', fifo: false })).toThrow(/"name"/);
    expect(() => new SqsQueueSimulator({ maxReceiveCount: 3 })).toThrow(/"deadLetterQueue"/);
    const fifoDlq = new SqsQueueSimulator({ name: 'd.fifo' });
    expect(() => new SqsQueueSimulator({ maxReceiveCount: 3, deadLetterQueue: fifoDlq })).toThrow(/"deadLetterQueue"/);
    expect(() => new SqsQueueSimulator({ visibilityTimeoutMs: -1 })).toThrow(/"visibilityTimeoutMs"/);
    expect(() => new SqsQueueSimulator({ visibilty: 1 } as never)).toThrow(/unknown option "visibilty"/);
  });

  it('checks send options against the queue type', () => {
    const queue = new SqsQueueSimulator({ name: 'q.fifo' });
    expect(() => queue.send('x', { deduplicationId: 'd' })).toThrow(/"groupId"/);
    expect(() => queue.send('x', { groupId: 'g' })).toThrow(/"deduplicationId"/);
    expect(() => new SqsQueueSimulator().send('x', { deduplicationId: 'd' })).toThrow(/"deduplicationId"/);
  });
});
