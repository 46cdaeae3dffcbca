/**
 * Defaults of the Lambda inputs and the simulated invocation, in one place.
 * They are AWS's own defaults where AWS has one (Lambda timeout 3 s), so a
 * test that sets nothing behaves like a freshly created function.
 */
export const testingDefaults = {
  region: 'eu-west-1',
  accountId: '123456789012',
  queueName: 'test-queue',
  functionName: 'test-function',
  /** Lambda's default function timeout. */
  timeoutMs: 3_000,
  memoryLimitInMB: 128,
  /** Sender of simulated messages (an IAM user id shape). */
  senderId: 'AIDAEXAMPLESENDER0001',
} as const;
