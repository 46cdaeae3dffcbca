/**
 * What the DynamoDB store logs: a line when it turns a batched request off for the rest of its life (a role refused
 * PartiQL or `BatchGetItem`, a table that refuses `RETURNING` in a batch). Records still succeed through the single
 * path, so nothing else would tell the operator that every batch now costs a request per record. Once per store
 * instance and kind, by default one JSON line on stdout like the middlewares' batch lines.
 */
import { errorParts } from '../../engine/errors.js';
import { isAwsError } from './refusals.js';

/** What the store turned off. */
export type StoreWarningKind = 'batching-off' | 'returning-off' | 'batch-read-denied';

/** The line a DynamoDB store logs when it turns a batched request off (once per store instance and `kind`). */
export interface StoreWarningLine {
  readonly level: 'WARN';
  /**
   * `batching-off`: claims and completions go one request each from now on (the role was refused PartiQL);
   * `returning-off`: batched completions no longer return the completed item (the table refused `RETURNING`);
   * `batch-read-denied`: the records `INSERT`s met, and group commit's probe, cannot be read in one `BatchGetItem`.
   */
  readonly kind: StoreWarningKind;
  /** What changed, why and what to do, in a sentence. */
  readonly message: string;
  readonly tableName: string;
  /** The IAM action the role lacks (`dynamodb:PartiQLInsert`, ...), when an access denial caused the change. */
  readonly missingAction?: string;
  /** The refusal that caused it. */
  readonly error: { readonly name: string; readonly message: string };
}

/** Receives each {@link StoreWarningLine}. */
export type StoreLogger = (line: StoreWarningLine) => void;

/** Default: one JSON line on stdout, which Lambda ships to CloudWatch Logs (as the middlewares' batch lines). */
export const storeJsonLogger: StoreLogger = (line) => {
  console.log(JSON.stringify(line));
};

/** Whether `refusal` (a thrown error, or a batch statement's `Error`) is an access denial. */
export function isAccessDenied(refusal: unknown): boolean {
  if (isAwsError(refusal, 'AccessDeniedException')) return true;
  const code = typeof refusal === 'object' && refusal !== null ? (refusal as { Code?: unknown }).Code : undefined;
  return typeof code === 'string' && /AccessDenied/i.test(code);
}

/** The action an AWS denial names ("... is not authorized to perform: dynamodb:PartiQLInsert on resource ..."). */
function namedAction(refusal: unknown): string | undefined {
  const text = refusal instanceof Error ? refusal.message : (refusal as { Message?: unknown } | undefined)?.Message;
  return typeof text === 'string' ? /\bperform:?\s+(dynamodb:[A-Za-z]+)/.exec(text)?.[1] : undefined;
}

/** A refusal's name and message, whether a thrown error or a batch statement's `{ Code, Message }`. */
function refusalParts(refusal: unknown): StoreWarningLine['error'] {
  if (refusal instanceof Error) return errorParts(refusal);
  const { Code, Message } = (refusal ?? {}) as { Code?: unknown; Message?: unknown };
  return { name: typeof Code === 'string' ? Code : 'Error', message: typeof Message === 'string' ? Message : '' };
}

const SENTENCES: Readonly<Record<StoreWarningKind, (action: string) => string>> = {
  'batching-off': (action) =>
    `The role was refused ${action}: this store sends one request per claim and completion from now on (until the next cold start). Grant dynamodb:PartiQLInsert, dynamodb:PartiQLUpdate and dynamodb:BatchGetItem on the table to batch them.`,
  'returning-off': () =>
    'The table refused RETURNING ALL NEW * in a batched completion: this store sends batched completions without it from now on (until the next cold start), so they do not fill the warm-container cache.',
  'batch-read-denied': (action) =>
    `The role was refused ${action}: a batch's claims that meet an item are claimed again one request each, and group commit commits without its duplicate probe. Grant ${action} on the table.`,
};

/** Logs each kind at most once; a logger that throws fails nothing. */
export class StoreWarnings {
  readonly #logged = new Set<StoreWarningKind>();
  readonly #logger: StoreLogger | false;
  readonly #tableName: string;

  constructor(logger: StoreLogger | false, tableName: string) {
    this.#logger = logger;
    this.#tableName = tableName;
  }

  /** Logs `kind` unless logged before; `fallbackAction` is named when the refusal does not name one. */
  warn(kind: StoreWarningKind, refusal: unknown, fallbackAction?: string): void {
    if (this.#logged.has(kind)) return;
    this.#logged.add(kind);
    if (this.#logger === false) return;
    const missingAction = isAccessDenied(refusal) ? (namedAction(refusal) ?? fallbackAction) : undefined;
    const line: StoreWarningLine = {
      level: 'WARN',
      kind,
      message: SENTENCES[kind](missingAction ?? 'a batched request'),
      tableName: this.#tableName,
      ...(missingAction === undefined ? {} : { missingAction }),
      error: refusalParts(refusal),
    };
    try {
      this.#logger(line);
    } catch {
      // A failing logger must not fail a record the single path can decide.
    }
  }
}
