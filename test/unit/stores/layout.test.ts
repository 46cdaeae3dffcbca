import { describe, expect, it } from 'vitest';
import { ATTR, INFLIGHT_SHARDS, inflightShard } from '../../../src/stores/dynamodb/layout.js';

describe('table layout', () => {
  it('names every attribute as its field (the conditions and the items agree) and spreads the index over 8 shards', () => {
    for (const [name, attr] of Object.entries(ATTR)) expect(attr).toBe(name);
    expect(INFLIGHT_SHARDS).toBe(8);
  });
});

describe('inflightShard', () => {
  it('is deterministic and within p0..p{shards-1}', () => {
    for (let i = 0; i < 200; i++) {
      const shard = inflightShard(`c#${i}`, 8);
      expect(shard).toBe(inflightShard(`c#${i}`, 8));
      expect(shard).toMatch(/^p[0-7]$/);
    }
  });

  it('spreads ids over every shard', () => {
    const used = new Set(Array.from({ length: 400 }, (_, i) => inflightShard(`c#key-${i}`, 8)));
    expect(used.size).toBe(8);
  });
});
