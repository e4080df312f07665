import { createHash } from 'node:crypto';
import {
  AuditChainChecker,
  GENESIS_HASH,
  auditEntryHash,
  type StoredAuditEntry,
} from './audit-chain';

const ACCOUNT = '00000000-0000-4000-8000-000000000001';
const OTHER = '00000000-0000-4000-8000-000000000002';

/** A well-linked chain of `length` entries for an account. */
function chain(accountId: string, length: number): StoredAuditEntry[] {
  const entries: StoredAuditEntry[] = [];
  let prevHash = GENESIS_HASH;
  for (let seq = 1; seq <= length; seq++) {
    const fields = {
      accountId,
      seq: String(seq),
      type: 'login.succeeded',
      occurredAt: `2025-01-02T03:04:0${seq}.123456Z`,
      details: `{"request_id": "r${seq}"}`,
    };
    const hash = auditEntryHash({ ...fields, prevHash });
    entries.push({ ...fields, id: String(seq), hash });
    prevHash = hash;
  }
  return entries;
}

function breaks(entries: StoredAuditEntry[]) {
  const checker = new AuditChainChecker();
  return entries.map((entry) => checker.check(entry)).filter((found) => found !== null);
}

describe('audit chain', () => {
  it('hashes the previous hash and the canonical content, one field a line', () => {
    // Pinned: the insert trigger computes the same digest over the same text.
    expect(
      auditEntryHash({
        prevHash: GENESIS_HASH,
        seq: '1',
        accountId: ACCOUNT,
        type: 'account.created',
        occurredAt: '2025-01-02T03:04:05.123456Z',
        details: '{}',
      }),
    ).toBe(
      createHash('sha256')
        .update(`${GENESIS_HASH}\n1\n${ACCOUNT}\naccount.created\n2025-01-02T03:04:05.123456Z\n{}`)
        .digest('hex'),
    );
  });

  it('accepts unbroken chains of several accounts', () => {
    expect(breaks([...chain(ACCOUNT, 4), ...chain(OTHER, 2)])).toEqual([]);
  });

  it('names an edited entry', () => {
    const entries = chain(ACCOUNT, 4);
    entries[2] = { ...entries[2], details: '{"request_id": "forged"}' };
    expect(breaks(entries)).toEqual([
      { accountId: ACCOUNT, id: '3', seq: '3', problem: expect.stringMatching(/changed/) },
    ]);
  });

  it('names the entry after one edited and re-hashed', () => {
    const entries = chain(ACCOUNT, 4);
    const forged = { ...entries[1], type: 'login.failed' };
    entries[1] = { ...forged, hash: auditEntryHash({ ...forged, prevHash: entries[0].hash }) };
    expect(breaks(entries)).toEqual([
      {
        accountId: ACCOUNT,
        id: '3',
        seq: '3',
        problem: expect.stringMatching(/entry 2 .*re-hashed/),
      },
    ]);
  });

  it('names the gap a deleted entry leaves, first entry included', () => {
    const entries = chain(ACCOUNT, 4);
    expect(breaks([...entries.slice(0, 1), ...entries.slice(2)])).toEqual([
      { accountId: ACCOUNT, id: '3', seq: '3', problem: expect.stringMatching(/2 expected/) },
    ]);
    expect(breaks(entries.slice(1))).toEqual([
      { accountId: ACCOUNT, id: '2', seq: '2', problem: expect.stringMatching(/1 expected/) },
    ]);
  });

  it('reports one break per account and judges the next account afresh', () => {
    const first = chain(ACCOUNT, 3).map((entry) => ({ ...entry, hash: 'f'.repeat(64) }));
    expect(breaks([...first, ...chain(OTHER, 3)])).toHaveLength(1);
  });
});
