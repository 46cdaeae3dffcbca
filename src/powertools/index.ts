/**
 * `effectively-once/powertools`: switching from AWS Powertools for Lambda (TypeScript) idempotency 2.35 with no
 * double effect. `powertoolsRecords()` is the `previous` option of `sqsIdempotency` and `eventBridgeIdempotency`:
 * during the cutover window a delivery is first looked up in Powertools' table, by Powertools' own key
 * (`powertoolsKey`). An entry of its own, so that a handler that does not import it bundles none of it
 * (docs/migrating-from-powertools.md).
 */
export { powertoolsRecords } from '../stores/powertools/records.js';
export type { PowertoolsRecordsOptions } from '../stores/powertools/records.js';
export { powertoolsKey } from '../stores/powertools/key.js';
export type { PreviousRecords } from '../engine/previous.js';
