/**
 * Where the outbox relay's `PutEvents` go. In Lambda, an `EventBridgeClient`;
 * for `serverless invoke local` without an AWS account, a stand-in that
 * writes each entry as a JSON line (`PUBLISH_TARGET=stdout`).
 */
import type { PutEventsCommand, PutEventsCommandOutput } from '@aws-sdk/client-eventbridge';
import type { OutboxRelayOptions } from 'effectively-once';

/** What the outbox relay sends events with. */
type EventBridgePutEvents = OutboxRelayOptions['eventBridge'];

/**
 * An EventBridge stand-in that accepts every entry and writes it as a JSON line.
 *
 * @example
 * ```ts
 * import { outboxRelay } from 'effectively-once';
 * import { sharedDocumentClient } from './aws.js';
 * import { stdoutEventBridge } from './publish.js';
 * const relay = outboxRelay({ eventBridge: stdoutEventBridge(), client: sharedDocumentClient() });
 * ```
 */
export function stdoutEventBridge(write: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): EventBridgePutEvents {
  return {
    async send(command: PutEventsCommand): Promise<PutEventsCommandOutput> {
      const entries = command.input.Entries ?? [];
      for (const entry of entries) {
        write(JSON.stringify({ published: entry.DetailType, source: entry.Source, detail: JSON.parse(entry.Detail ?? 'null') }));
      }
      return { $metadata: {}, FailedEntryCount: 0, Entries: entries.map((_e, i) => ({ EventId: `stdout-${i}` })) };
    },
  };
}
