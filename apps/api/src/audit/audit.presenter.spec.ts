import type { AuditEntry } from '@app/database';
import { presentAuditPage } from './audit.presenter';

const entry: AuditEntry = {
  seq: '12',
  type: 'api_key.issued',
  details: { api_key_id: 'k1', name: 'CI', prefix: 'ak_live_abcd' },
  occurredAt: new Date('2026-03-01T10:00:00.000Z'),
  prevHash: 'aa'.repeat(32),
  hash: 'bb'.repeat(32),
};

describe('audit presenter', () => {
  it('shows seq as a number and the time as an ISO string, in the API order', () => {
    const view = presentAuditPage({ entries: [entry], nextCursor: '12' });
    expect(JSON.stringify(view)).toBe(
      JSON.stringify({
        entries: [
          {
            seq: 12,
            type: 'api_key.issued',
            details: { api_key_id: 'k1', name: 'CI', prefix: 'ak_live_abcd' },
            occurred_at: '2026-03-01T10:00:00.000Z',
            prev_hash: 'aa'.repeat(32),
            hash: 'bb'.repeat(32),
          },
        ],
        next_cursor: '12',
      }),
    );
  });

  it('answers next_cursor null on the last page', () => {
    expect(presentAuditPage({ entries: [], nextCursor: null })).toEqual({
      entries: [],
      next_cursor: null,
    });
  });
});
