import type { AccountEventView } from '@app/domain';

/**
 * Server-Sent Events framing (WHATWG HTML, "Server-sent events"): fields are lines, a blank line
 * ends an event. A value must not hold a line break, which would end its field early: `data`
 * keeps every line as a `data:` line of its own (the client joins them back with "\n"); the other
 * fields cannot hold one.
 */

/** One event: `id` is its sequence (what EventSource sends back as Last-Event-ID). */
export function sseEventFrame(event: AccountEventView): string {
  const data = JSON.stringify(event)
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}\n`)
    .join('');
  return `id: ${event.sequence}\nevent: ${singleLine(event.type)}\n${data}\n`;
}

/** How long the client should wait before reconnecting, in milliseconds. */
export function sseRetryFrame(ms: number): string {
  return `retry: ${Math.max(0, Math.floor(ms))}\n\n`;
}

/** A comment line: ignored by clients, keeps the connection from looking idle. */
export function sseCommentFrame(text: string): string {
  return `: ${singleLine(text)}\n\n`;
}

function singleLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ');
}
