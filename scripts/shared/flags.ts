/**
 * The one command-line parser of `npm start`, `npm run chaos`, `npm run bench`
 * and scripts/local-dynamodb.ts. A CLI declares its flags in one table; the
 * parser, the typed values and the `--help` text all come from that table,
 * so a flag cannot be parsed one way and documented another.
 *
 * Accepted forms: `--flag value`, `--flag=value`, `--switch`; `-h`/`--help`
 * anywhere asks for the help text. The last occurrence of a flag wins.
 */

/** A switch: present or not. */
export interface BooleanFlag {
  readonly type: 'boolean';
  readonly help: string;
}

/** A number within `min..max`; `integer` refuses fractions. */
export interface NumberFlag {
  readonly type: 'integer' | 'number';
  readonly help: string;
  readonly default: number;
  readonly min: number;
  readonly max: number;
  /** Name of the value in the help text (default `N`). */
  readonly value?: string;
}

/** A string, optionally with a default and a pattern it must match. */
export interface StringFlag {
  readonly type: 'string';
  readonly help: string;
  readonly default?: string;
  readonly pattern?: RegExp;
  /** Name of the value in the help text (default `VALUE`). */
  readonly value?: string;
}

export type Flag = BooleanFlag | NumberFlag | StringFlag;
export type FlagTable = Readonly<Record<string, Flag>>;

/** The typed values of a table: booleans, numbers, strings (undefined when a string flag without default is absent). */
export type FlagValues<T extends FlagTable> = {
  readonly [K in keyof T]: T[K] extends BooleanFlag
    ? boolean
    : T[K] extends NumberFlag
      ? number
      : T[K] extends { readonly default: string }
        ? string
        : string | undefined;
};

/** A CLI: how it is run, what it does, its flags, and a closing note for the help text. */
export interface Cli<T extends FlagTable> {
  /** e.g. `npm start -- [options]`. */
  readonly usage: string;
  /** Where the help text points after an error, e.g. `npm start -- --help`. */
  readonly helpCommand: string;
  readonly summary: string;
  readonly flags: T;
  readonly footer?: string;
}

/** What the command line asked for: the help text, or a run with these values. */
export type Parsed<T extends FlagTable> = { readonly help: true } | { readonly help: false; readonly values: FlagValues<T> };

/** A bad command line; the message names the flag and what it accepts. */
export class UsageError extends TypeError {
  override readonly name = 'UsageError';
  /** The flag at fault, without dashes (undefined for a stray argument). */
  readonly option: string | undefined;

  constructor(message: string, option?: string, options?: ErrorOptions) {
    super(message, options);
    this.option = option;
  }
}

const HELP = new Set(['-h', '--help']);

/**
 * Parses argv (without node and the script).
 * @throws UsageError for an unknown flag, a missing or stray value, or a value it does not accept.
 */
export function parseFlags<T extends FlagTable>(cli: Cli<T>, argv: readonly string[]): Parsed<T> {
  if (argv.some((arg) => HELP.has(arg))) return { help: true };
  const raw = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith('--')) throw new UsageError(`Unexpected argument "${arg}". Run \`${cli.helpCommand}\` for the options.`);
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
    const flag = Object.hasOwn(cli.flags, name) ? cli.flags[name] : undefined;
    if (flag === undefined) throw new UsageError(`Unknown option "--${name}". Run \`${cli.helpCommand}\` for the options.`, name);
    if (flag.type === 'boolean') {
      if (eq > 0) throw new UsageError(`--${name} takes no value.`, name);
      raw.set(name, true);
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || (eq < 0 && value.startsWith('--')))
      throw new UsageError(`--${name} needs a value (${accepts(flag)}).`, name);
    raw.set(name, value);
  }
  const values: Record<string, unknown> = {};
  for (const [name, flag] of Object.entries(cli.flags)) values[name] = convert(name, flag, raw.get(name));
  return { help: false, values: values as FlagValues<T> };
}

function accepts(flag: NumberFlag | StringFlag): string {
  if (flag.type === 'string') return 'a string';
  return flag.type === 'integer' ? 'an integer' : 'a number';
}

function convert(name: string, flag: Flag, raw: string | true | undefined): unknown {
  if (flag.type === 'boolean') return raw === true;
  if (raw === true) throw new UsageError(`--${name} needs a value.`, name);
  if (flag.type === 'string') {
    if (raw === undefined) return flag.default;
    if (flag.pattern !== undefined && !flag.pattern.test(raw))
      throw new UsageError(`--${name} must match ${flag.pattern}, got "${raw}".`, name);
    return raw;
  }
  if (raw === undefined) return flag.default;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || (flag.type === 'integer' && !Number.isInteger(n))) {
    throw new UsageError(`--${name} must be ${accepts(flag)}, got "${raw}".`, name);
  }
  if (n < flag.min || n > flag.max)
    throw new UsageError(`--${name} must be ${accepts(flag)} from ${flag.min} to ${flag.max}, got ${raw}.`, name);
  return n;
}

/** The help text: usage, summary, one line per flag (with its default) in table order, then the footer. */
export function helpText<T extends FlagTable>(cli: Cli<T>): string {
  const rows: Array<readonly [string, string]> = Object.entries(cli.flags).map(([name, flag]) => [
    `--${name}${placeholder(flag)}`,
    describe(flag),
  ]);
  rows.push(['-h, --help', 'print this help']);
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  const lines = rows.flatMap(([left, text]) => {
    const [first = '', ...rest] = text.split('\n');
    return [`  ${left.padEnd(width)}${first}`, ...rest.map((line) => `  ${' '.repeat(width)}${line}`)];
  });
  const footer = cli.footer === undefined ? '' : `\n\n${cli.footer}`;
  return `Usage: ${cli.usage}\n\n${cli.summary}\n\nOptions:\n${lines.join('\n')}${footer}\n`;
}

function placeholder(flag: Flag): string {
  if (flag.type === 'boolean') return '';
  return ` ${flag.value ?? (flag.type === 'string' ? 'VALUE' : 'N')}`;
}

function describe(flag: Flag): string {
  const fallback = flag.type === 'boolean' ? undefined : flag.default;
  return fallback === undefined ? flag.help : `${flag.help} (default ${fallback})`;
}
