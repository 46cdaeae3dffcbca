/**
 * Issue 34 item 7: package.json's description (what npm search shows) names
 * every source the README's opening line names.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const SOURCES = ['SQS', 'EventBridge', 'Kinesis', 'DynamoDB Streams', 'Kafka'];

describe('package.json description', () => {
  it('names every source the README names', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const { description } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { description: string };
    // The README's opening paragraph is the source of truth; each name there must be in the description.
    const opening = (readme.split('\n\n').find((p) => p.startsWith('**')) ?? '').replace(/\s+/g, ' ');
    expect(SOURCES.filter((s) => opening.includes(s))).toEqual(SOURCES);
    expect(SOURCES.filter((s) => !description.includes(s))).toEqual([]);
  });
});
