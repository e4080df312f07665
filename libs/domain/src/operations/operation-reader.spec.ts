import type { OperationEntity, OperationRepository } from '@app/database';
import { OperationReader } from './operation-reader';

const ACCOUNT = '0195f0e4-0000-7000-8000-000000000001';
const ID = '0195f0e4-0000-7000-8000-0000000000aa';

/** An EVM token burn as stored, in the given status. */
function row(status: OperationEntity['status']): OperationEntity {
  return {
    id: ID,
    accountId: ACCOUNT,
    kind: 'token.burn',
    network: 'base',
    status,
    intent: { kind: 'token.burn', asset: '0x00000000000000000000000000000000000000b1' },
    details: { amount: '5' },
    signer: '0x00000000000000000000000000000000000000a1',
    txHash: status === 'queued' ? null : '0xfeed',
    attempts: 0,
    result: {},
    createdAt: new Date('2026-01-01T00:00:00Z'),
  } as unknown as OperationEntity;
}

function readerOver(statuses: OperationEntity['status'][]) {
  const findViewForAccount = jest.fn(async (accountId: string) =>
    accountId === ACCOUNT ? row(statuses.shift()!) : null,
  );
  const repository = { findViewForAccount } as unknown as OperationRepository;
  return { reader: new OperationReader(repository), findViewForAccount };
}

describe('OperationReader', () => {
  it('reads an unsettled operation from Postgres every time', async () => {
    const { reader, findViewForAccount } = readerOver(['queued', 'submitted']);
    expect((await reader.get(ACCOUNT, ID)).status).toBe('queued');
    expect((await reader.get(ACCOUNT, ID)).status).toBe('submitted');
    expect(findViewForAccount).toHaveBeenCalledTimes(2);
  });

  it('keeps a settled view: confirmed or failed never changes again', async () => {
    const { reader, findViewForAccount } = readerOver(['submitted', 'confirmed', 'failed']);
    expect((await reader.get(ACCOUNT, ID)).status).toBe('submitted');
    expect((await reader.get(ACCOUNT, ID)).status).toBe('confirmed');
    expect((await reader.get(ACCOUNT, ID)).status).toBe('confirmed');
    expect(findViewForAccount).toHaveBeenCalledTimes(2);
  });

  it("does not hand one account's kept view to another", async () => {
    const { reader } = readerOver(['confirmed']);
    expect((await reader.get(ACCOUNT, ID)).operation_id).toBe(ID);
    await expect(reader.get('0195f0e4-0000-7000-8000-000000000002', ID)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});
