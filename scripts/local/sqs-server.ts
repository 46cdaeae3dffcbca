/**
 * A local SQS: fauxqs embedded in this process on a free loopback port. It
 * implements visibility timeouts, receive counts, FIFO groups and redrive to
 * a DLQ, which is all the event-source mapping needs, without Docker.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import type { FauxqsServer } from 'fauxqs';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../infra/dynamodb-local.js';

/** A running local SQS and a client for it. */
export interface LocalSqs {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  /** The embedded server, for non-destructive queue inspection. */
  readonly server: FauxqsServer;
  readonly client: SQSClient;
  stop(): Promise<void>;
}

/**
 * fauxqs opens `node:sqlite` (for its optional persistence), which Node 22
 * flags with an ExperimentalWarning on stderr. We never persist, so that one
 * warning is noise in the demo; every other warning is still printed.
 */
function muteSqliteWarning(): void {
  const listeners = process.listeners('warning');
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if (warning.name === 'ExperimentalWarning' && /SQLite/i.test(warning.message)) return;
    for (const listener of listeners) listener(warning);
  });
}

function assertNodeVersion(): void {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  if (major < 22 || (major === 22 && minor < 5)) {
    throw new Error(
      `The local SQS (fauxqs) needs Node.js 22.5 or newer; this is ${process.versions.node}. ` +
        'Run it through `npm start` (which uses the project-local Node 22) or upgrade Node.',
    );
  }
}

/** Starts fauxqs on a free port; `stop()` closes the client and the server. */
export async function startLocalSqs(): Promise<LocalSqs> {
  assertNodeVersion();
  muteSqliteWarning();
  // Imported lazily so the Node version check above can explain itself first.
  const { startFauxqs } = await import('fauxqs');
  const server = await startFauxqs({ port: 0, logger: false, host: 'localhost' });
  const client = new SQSClient({
    endpoint: server.address,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    // Queue URLs name `sqs.<region>.localhost`, which not every resolver maps
    // to loopback; always talk to the endpoint we were given instead.
    useQueueUrlAsEndpoint: false,
    maxAttempts: 3,
  });
  return {
    endpoint: server.address,
    server,
    client,
    stop: async () => {
      client.destroy();
      await server.stop();
    },
  };
}
