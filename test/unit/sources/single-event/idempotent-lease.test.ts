/**
 * `idempotent()`'s lease has the middlewares' shape (`{ marginMs, floorMs,
 * capMs }`): from the remaining time of a Lambda context among the
 * arguments, else the fixed `floorMs`; the heartbeat is `strategy: claim({ heartbeat })`, as for the middlewares.
 */
import { describe, expect, it } from 'vitest';
import { idempotent } from '../../../../src/index.js';
import { ManualClock, MemoryIdempotencyStore } from '../../../../src/testing/index.js';

const lambdaContext = (remainingMs: number) => ({ functionName: 'f', awsRequestId: 'r', getRemainingTimeInMillis: () => remainingMs });

describe('idempotent() lease', () => {
  it('without a Lambda context the lease is floorMs (default 60 s)', async () => {
    const clock = new ManualClock();
    const store = new MemoryIdempotencyStore({ clock });
    let seen: number | undefined;
    const once = idempotent(
      async (id: string) => {
        seen = (await store.get(store.recordId('c', id)))?.leaseUntil;
      },
      { store, consumer: 'c', key: (id) => id },
    );
    await once('a');
    expect(seen).toBe(clock.now() + 60_000);
    const short = idempotent(
      async (id: string) => {
        seen = (await store.get(store.recordId('c', id)))?.leaseUntil;
      },
      { store, consumer: 'c', key: (id) => id, lease: { floorMs: 2_000 } },
    );
    await short('b');
    expect(seen).toBe(clock.now() + 2_000);
  });

  it('with a Lambda context among the arguments: remaining time + marginMs, within floorMs and capMs', async () => {
    const clock = new ManualClock();
    const store = new MemoryIdempotencyStore({ clock });
    let seen: number | undefined;
    const handler = idempotent(
      async (event: { id: string }, _context: ReturnType<typeof lambdaContext>) => {
        seen = (await store.get(store.recordId('c', event.id)))?.leaseUntil;
      },
      { store, consumer: 'c', key: (event) => event.id, lease: { marginMs: 1_000, floorMs: 5_000, capMs: 100_000 } },
    );
    await handler({ id: 'mid' }, lambdaContext(40_000));
    expect(seen).toBe(clock.now() + 41_000);
    await handler({ id: 'low' }, lambdaContext(1_000));
    expect(seen).toBe(clock.now() + 5_000);
    await handler({ id: 'high' }, lambdaContext(900_000));
    expect(seen).toBe(clock.now() + 100_000);
  });
});
