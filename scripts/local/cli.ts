/**
 * What the command-line entry points (`npm start`, `npm run chaos`) share:
 * Ctrl-C stops cleanly, and how the process ends.
 */
import { RunAbortedError } from './drain.js';

/** First SIGINT/SIGTERM: abort (everything started is stopped). Second: leave at once. */
export function abortOnSignals(controller: AbortController): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (controller.signal.aborted) process.exit(130);
      process.stderr.write(`\n${signal}: stopping DynamoDB Local, the local SQS and the pollers...\n`);
      controller.abort();
    });
  }
}

/** Runs `main`; an abort ends with 130, any other error is printed with `what` and ends with 1. */
export function runMain(what: string, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    if (err instanceof RunAbortedError) {
      process.stderr.write(`${err.message}\n`);
      process.exitCode = 130;
      return;
    }
    process.stderr.write(`${what} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  });
}
