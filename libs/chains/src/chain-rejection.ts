import { AppError, boundedText, type ErrorCode } from '@app/common';

/** How much of what the chain said a log line keeps. */
const DETAIL_MAX = 1_000;
/** How much of a node's own words a client's message may quote. */
const QUOTE_MAX = 160;

/**
 * A chain's refusal of a transaction (a program error, a revert, a node refusing it), as the
 * client's error. `message` is plain words for the client (docs/api.md, "Chain errors in words": no JSON, no
 * node dumps); `detail` is what the chain said, raw and bounded, for the log line of the failed
 * operation only.
 */
export class ChainRejection extends AppError {
  readonly detail: string;

  constructor(code: ErrorCode, message: string, said: unknown) {
    super(code, message);
    this.name = 'ChainRejection';
    this.detail = boundedText(typeof said === 'string' ? said : jsonOf(said), DETAIL_MAX);
  }
}

/**
 * A node's refusal of a transaction at broadcast: 502 with the node's reason when it reads as
 * words (e.g. "insufficient funds for gas * price + value"), without what it cannot say plainly.
 */
export function nodeRefusal(network: string, said: string): ChainRejection {
  const reason = plainNodeText(said);
  return new ChainRejection(
    'BAD_GATEWAY',
    `The ${network} node refused the transaction${reason ? `: ${reason}` : ''}.`,
    said,
  );
}

/**
 * A node's own text made fit for a client: its first line up to any JSON in it, printable ASCII
 * only, bounded; empty when nothing plain is left.
 */
export function plainNodeText(text: string, max = QUOTE_MAX): string {
  const firstLine = text.split(/[\r\n]/, 1)[0];
  const beforeJson = firstLine.split(/[{[]/, 1)[0];
  const plain = beforeJson
    .replace(/[^\x20-\x7e]/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/[\s:;,.]+$/, '')
    .trim();
  return boundedText(plain, max);
}

function jsonOf(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
