/**
 * Reading the Lambda environment. A missing variable is a deployment error:
 * it is reported by name instead of surfacing later as an odd DynamoDB error.
 */

/** The environment the functions read; `process.env` in Lambda, a plain object in tests. */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * The value of a required environment variable.
 *
 * @throws Error naming the variable when it is unset or empty.
 * @example
 * ```ts
 * import { requireEnv } from './env.js';
 * const table = requireEnv('IDEMPOTENCY_TABLE');
 * ```
 */
export function requireEnv(name: string, env: Env = process.env): string {
  const value = env[name];
  if (value === undefined || value === '') {
    throw new Error(`Environment variable ${name} is not set (see serverless.yml).`);
  }
  return value;
}

/**
 * A positive number from the environment, or `fallback` when unset.
 *
 * @throws Error naming the variable when it is set but not a positive number.
 */
export function numberFromEnv(name: string, fallback: number, env: Env = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    throw new Error(`Environment variable ${name} must be a positive number, got ${JSON.stringify(raw)}.`);
  }
  return value;
}
