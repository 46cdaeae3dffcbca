import { describe, expect, it } from 'vitest';
import { BenchUsageError, benchDefaults, parseBenchArgs, parseMemorySizes, usage } from '../../../bench/args.js';

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
    // Ahead of the machine's other processes unless told not to.
    expect(parseBenchArgs([]).priority).toBe(true);
    expect(parseBenchArgs(['--no-priority']).priority).toBe(false);
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

describe('--memory (the Lambda-shaped sweep)', () => {
  it('is off by default: the one-process bench', () => {
    expect(parseBenchArgs([])).toMatchObject({ memory: [], checkQuota: false });
  });

  it('reads the sizes in MB, ascending, without repeats, with the options a sweep combines with', () => {
    const args = parseBenchArgs([
      '--aws',
      '--memory',
      '1769, 128,256,512,1024,256',
      '--events',
      '2000',
      '--warmup',
      '30',
      '--dup-rate',
      '0.01',
      '--no-cold-start',
      '--docs',
      'out.md',
    ]);
    expect(args).toMatchObject({
      memory: [128, 256, 512, 1024, 1769],
      aws: true,
      events: 2000,
      warmup: 30,
      duplicateRate: 0.01,
      coldStart: false,
      docs: 'out.md',
    });
    expect(parseBenchArgs(['--memory=10240']).memory).toEqual([10240]);
    expect(parseBenchArgs(['--memory', '128', '--check-quota']).checkQuota).toBe(true);
  });

  it('refuses what is not a Lambda memory size, naming the value', () => {
    expect(usageError(['--memory', '64']).message).toBe(
      '--memory: "64" is not a Lambda memory size (a whole number of MB from 128 to 10240).',
    );
    expect(usageError(['--memory', '128,20000']).message).toMatch(/"20000" is not a Lambda memory size/);
    expect(usageError(['--memory', '256.5']).message).toMatch(/"256.5" is not/);
    expect(usageError(['--memory', '1GB']).message).toMatch(/"1GB" is not/);
    expect(usageError(['--memory', '-128']).option).toBe('memory');
    expect(usageError(['--memory', '128,,256']).message).toMatch(/an empty size/);
    expect(usageError(['--memory', ',']).message).toMatch(/needs at least one size/);
    expect(usageError(['--memory']).option).toBe('memory');
  });

  it('--check-quota needs the sizes', () => {
    expect(usageError(['--check-quota']).option).toBe('check-quota');
  });

  it('--lmi takes vCPU counts and --in-flight the invocations in flight, both ascending; --in-flight needs --lmi', () => {
    expect(parseBenchArgs([]).lmi).toEqual([]);
    expect(parseBenchArgs(['--lmi', '2,1'])).toMatchObject({ lmi: [1, 2], inFlight: [8, 32, 64] });
    expect(parseBenchArgs(['--lmi', '1', '--in-flight', '64,8']).inFlight).toEqual([8, 64]);
    expect(parseBenchArgs(['--memory', '256', '--lmi', '1'])).toMatchObject({ memory: [256], lmi: [1] });
    expect(usageError(['--lmi', '0']).message).toBe('--lmi: "0" is not a vCPU count (a whole number from 1 to 16).');
    expect(usageError(['--lmi', '1', '--in-flight', '2000']).option).toBe('in-flight');
    expect(usageError(['--in-flight', '8']).message).toMatch(/--in-flight needs --lmi/);
    expect(usage).toContain('--lmi N,N');
    expect(usage).toContain('--in-flight N,N');
  });

  it('parseMemorySizes alone, and the help text documents the option', () => {
    expect(parseMemorySizes('512,128')).toEqual([128, 512]);
    expect(() => parseMemorySizes('127')).toThrow(BenchUsageError);
    expect(usage).toContain('--memory MB,MB');
    expect(usage).toContain('--check-quota');
  });
});
