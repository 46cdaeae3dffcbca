import { describe, expect, expectTypeOf, it } from 'vitest';
import { helpText, parseFlags, UsageError, type FlagValues } from '../../../scripts/shared/flags.js';
import { usage as benchUsage } from '../../../bench/args.js';
import { chaosUsage } from '../../../scripts/chaos/options.js';
import { usage as startUsage } from '../../../scripts/local/options.js';

const cli = {
  usage: 'demo [options]',
  helpCommand: 'demo --help',
  summary: 'A demo.',
  flags: {
    count: { type: 'integer', help: 'how many', default: 3, min: 1, max: 9 },
    rate: { type: 'number', help: 'a share, 0..1', default: 0.5, min: 0, max: 1, value: 'R' },
    name: { type: 'string', help: 'a name', pattern: /^[a-z]+$/ },
    mode: { type: 'string', help: 'a mode', default: 'fast' },
    loud: { type: 'boolean', help: 'shout' },
  },
  footer: 'The end.',
} as const;

function usageError(argv: string[]): UsageError {
  try {
    parseFlags(cli, argv);
  } catch (err) {
    if (err instanceof UsageError) return err;
    throw err;
  }
  throw new Error(`no error for ${argv.join(' ')}`);
}

describe('parseFlags (the one command-line parser)', () => {
  it('gives typed values with the table defaults', () => {
    const parsed = parseFlags(cli, []);
    expect(parsed).toEqual({ help: false, values: { count: 3, rate: 0.5, name: undefined, mode: 'fast', loud: false } });
    expectTypeOf<FlagValues<typeof cli.flags>>().toEqualTypeOf<{
      readonly count: number;
      readonly rate: number;
      readonly name: string | undefined;
      readonly mode: string;
      readonly loud: boolean;
    }>();
  });

  it('reads both value forms and switches; the last occurrence wins', () => {
    const parsed = parseFlags(cli, ['--count', '4', '--rate=0.25', '--name', 'ab', '--loud', '--count=5']);
    expect(parsed).toEqual({ help: false, values: { count: 5, rate: 0.25, name: 'ab', mode: 'fast', loud: true } });
  });

  it('asks for help on -h or --help anywhere, before judging the rest', () => {
    expect(parseFlags(cli, ['--count', '0', '-h'])).toEqual({ help: true });
    expect(parseFlags(cli, ['--help'])).toEqual({ help: true });
  });

  it.each([
    [['--speed', '1'], 'speed', /Unknown option "--speed"\. Run `demo --help`/],
    [['--count'], 'count', /--count needs a value \(an integer\)/],
    [['--count', '--loud'], 'count', /--count needs a value/],
    [['--count', 'x'], 'count', /--count must be an integer, got "x"/],
    [['--count', '2.5'], 'count', /--count must be an integer, got "2.5"/],
    [['--count', ''], 'count', /--count must be an integer, got ""/],
    [['--count', '10'], 'count', /--count must be an integer from 1 to 9, got 10/],
    [['--rate=-1'], 'rate', /--rate must be a number from 0 to 1, got -1/],
    [['--name', 'A1'], 'name', /--name must match/],
    [['--loud=yes'], 'loud', /--loud takes no value/],
  ])('refuses %j, naming the flag', (argv, option, message) => {
    const err = usageError(argv);
    expect(err).toBeInstanceOf(TypeError);
    expect(err.option).toBe(option);
    expect(err.message).toMatch(message);
  });

  it('refuses a stray argument', () => {
    expect(usageError(['extra']).message).toMatch(/Unexpected argument "extra"/);
  });
});

describe('helpText', () => {
  it('is generated from the table: every flag, its value name and default, then help and the footer', () => {
    expect(helpText(cli)).toBe(
      [
        'Usage: demo [options]',
        '',
        'A demo.',
        '',
        'Options:',
        '  --count N     how many (default 3)',
        '  --rate R      a share, 0..1 (default 0.5)',
        '  --name VALUE  a name',
        '  --mode VALUE  a mode (default fast)',
        '  --loud        shout',
        '  -h, --help    print this help',
        '',
        'The end.',
        '',
      ].join('\n'),
    );
  });

  it('documents every flag the three CLIs accept, with the README defaults', () => {
    for (const flag of [
      '--orders N',
      '--seed S',
      '--pollers P',
      '--dup-rate R',
      '--fail-rate R',
      '--visibility-timeout S',
      '--json',
      '--no-progress',
    ]) {
      expect(startUsage).toContain(flag);
    }
    expect(startUsage).toContain('orders to pay (default 2000)');
    expect(chaosUsage).toMatch(/--seed N +first seed.*\(default 1\)/);
    expect(chaosUsage).toMatch(/--seeds K +.*\(default 3\)/);
    expect(chaosUsage).toMatch(/--messages M +orders per seed[\s\S]*re-sends \(default 300\)/);
    expect(benchUsage).toMatch(/--latency MS +.*\(default 0\)/);
    expect(benchUsage).toMatch(/--dup-rate R +.*\(default 0\.25\)/);
  });
});
