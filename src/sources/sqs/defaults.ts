/** The defaults of `sqsIdempotency`: a file of their own, so `eachRecord` names the middleware without bundling its option rules. */
import type { SQSRecord } from 'aws-lambda';
import { bodyPayload } from '../../engine/hashing.js';
import { batchDefaults } from '../../batch/options.js';

/** The middleware's name, which its errors begin with. */
export const SQS_MIDDLEWARE = 'sqsIdempotency';

/** Defaults of `sqsIdempotency`, in one place (the strategy's own settings are its factory's: `claim()`, `transaction()`). */
export const sqsDefaults = {
  ...batchDefaults,
  payload: ((record: SQSRecord) => bodyPayload(record.body)) as ((record: SQSRecord) => unknown) | false,
};
