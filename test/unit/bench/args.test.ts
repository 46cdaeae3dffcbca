import { describe, expect, it } from 'vitest';
import { BenchUsageError, benchDefaults, parseBenchArgs } from '../../../bench/args.js';

function usageError(argv: string[]): BenchUsageError {
  try {
    parseBenchArgs(argv);
  } catch (err) {
    if (err instanceof BenchUsageError) return err;
    throw err;
  }
  throw new Error(`no error for ${argv.join(' ')}`);
}

describe('parseBenchArgs', () => {
  it('defaults to the issue workload and writes the docs report', () => {
    const args = parseBenchArgs([]);
    expect(args).toMatchObject({
      events: 5000,
      duplicateRate: 0.25,
      batch: 10,
      latencyMs: 0,
      seed: 1,
      only: [],
      units: false,
      json: false,
    });
    expect(args.docs).toBe(benchDefaults.docs);
    expect(args.coldStart).toBe(true);
    expect(args.correctness).toBe(true);
  });

  it('reads every option', () => {
    const args = parseBenchArgs([
      '--events',
      '500',
      '--dup-rate',
      '0.5',
      '--seed',
      '9',
      '--batch',
      '5',
      '--latency',
      '2.5',
      '--warmup',
      '0',
      '--import-samples',
      '3',
      '--only',
      'ours-claim, ours-state',
      '--units',
      '--no-cold-start',
      '--no-correctness',
      '--docs',
      'out.md',
      '--json',
    ]);
    expect(args).toMatchObject({
      events: 500,
      duplicateRate: 0.5,
      seed: 9,
      batch: 5,
      latencyMs: 2.5,
      warmup: 0,
      importSamples: 3,
      only: ['ours-claim', 'ours-state'],
      units: true,
      coldStart: false,
      correctness: false,
      docs: 'out.md',
      json: true,
    });
    expect(parseBenchArgs(['--no-docs']).docs).toBeUndefined();
  });

  it('names the option at fault', () => {
    expect(usageError(['--events', '0']).option).toBe('events');
    expect(usageError(['--events', '1.5']).message).toMatch(/--events must be an integer/);
    expect(usageError(['--latency=-1']).option).toBe('latency');
    expect(usageError(['--dup-rate', 'lots']).option).toBe('dup-rate');
    expect(usageError(['--batch', '']).option).toBe('batch');
    expect(usageError(['--only', 'ours-claim,nope']).message).toMatch(/unknown variant nope/);
    expect(usageError(['--docs', 'x.md', '--no-docs']).option).toBe('docs');
  });

  it('turns the parser’s own errors (unknown option, missing value) into usage errors', () => {
    expect(usageError(['--rounds', '3']).message).toMatch(/rounds/);
    expect(usageError(['--events'])).toBeInstanceOf(TypeError);
  });
});
