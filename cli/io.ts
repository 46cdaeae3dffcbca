/**
 * What the CLI talks to: its streams, its environment and its clock. Injected
 * so tests run `main()` in-process with their own stdin and captured output.
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

/** The CLI's outside world. `process`-backed in the bin, fakes in tests. */
export interface CliIO {
  /** Where confirmations are read from, one line. */
  readonly stdin: Readable;
  /** Whether stdin is an interactive terminal (a prompt only makes sense then). */
  readonly stdinIsTTY: boolean;
  /** Results: records, listings, the audit line. */
  readonly stdout: (text: string) => void;
  /** Prompts, errors and hints. */
  readonly stderr: (text: string) => void;
  /** Environment variables (`AWS_REGION`, `DYNAMODB_ENDPOINT`, `IDEMPOTENCY_TABLE`, credentials). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Current time, epoch ms. */
  readonly now: () => number;
}

/**
 * The real process as a {@link CliIO}.
 */
export function processIO(): CliIO {
  return {
    stdin: process.stdin,
    stdinIsTTY: process.stdin.isTTY === true,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    now: () => Date.now(),
  };
}

/**
 * Reads one line from `input`; `undefined` when the stream ends first.
 */
export async function readLine(input: Readable): Promise<string | undefined> {
  const rl = createInterface({ input, terminal: false });
  try {
    for await (const line of rl) return line;
    return undefined;
  } finally {
    rl.close();
  }
}
