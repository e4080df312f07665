import type { AccountEventView } from '@app/domain';
import { sseCommentFrame, sseEventFrame, sseRetryFrame } from './sse-frames';

/** The fields of one SSE event block, read the way EventSource reads them. */
function parseBlock(block: string): { id?: string; event?: string; data: string[] } {
  const fields: { id?: string; event?: string; data: string[] } = { data: [] };
  for (const line of block.split('\n')) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon);
    const value = line.slice(colon + 1).replace(/^ /, '');
    if (name === 'data') fields.data.push(value);
    else if (name === 'id' || name === 'event') fields[name] = value;
  }
  return fields;
}

const event: AccountEventView = {
  id: '6f1c7c8e-2f6a-4d38-9d52-3f1f3b0f2b11',
  sequence: 17,
  type: 'operation.confirmed',
  created_at: '2026-11-23T13:00:00.000Z',
  data: { operation_id: 'x', status: 'confirmed', note: 'two\nlines\r\nand\rmore' },
};

describe('SSE frames', () => {
  it('writes an event as id, event and one data line, ended by a blank line', () => {
    const frame = sseEventFrame(event);
    expect(frame.endsWith('\n\n')).toBe(true);
    expect(frame.slice(0, -2)).not.toContain('\n\n');
    const fields = parseBlock(frame.slice(0, -2));
    expect(fields).toMatchObject({ id: '17', event: 'operation.confirmed' });
    expect(JSON.parse(fields.data.join('\n'))).toEqual(event);
  });

  it('keeps line breaks inside values from ending a field', () => {
    // JSON escapes them, so the data stays one line and parses back to the same text.
    const frame = sseEventFrame(event);
    expect(frame.split('\n').filter((line) => line.startsWith('data:'))).toHaveLength(1);
    expect(frame).not.toContain('\r');
  });

  it('writes the retry hint and comments as blocks of their own', () => {
    expect(sseRetryFrame(3000)).toBe('retry: 3000\n\n');
    expect(sseRetryFrame(12.7)).toBe('retry: 12\n\n');
    expect(sseCommentFrame('heartbeat')).toBe(': heartbeat\n\n');
    expect(sseCommentFrame('a\nb')).toBe(': a b\n\n');
  });
});
