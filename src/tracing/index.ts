/**
 * `effectively-once/tracing`: OpenTelemetry spans for the middlewares, as a plug-in you pass (`tracing:
 * openTelemetry()`). A handler that does not import this entry bundles no tracing code and no `@opentelemetry/api`
 * (an optional peer: install it, or use the one the ADOT Lambda layer brings). docs/observability.md.
 */
export { openTelemetry } from '../observe/tracing/open-telemetry.js';
export type { OpenTelemetryOptions } from '../observe/tracing/open-telemetry.js';
export type { TracingPlugin } from '../engine/tracing.js';
