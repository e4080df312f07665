import type { OperationView } from '../operations/operation-view';
import { balancesGroup, groupOf, settledGroups } from './read-groups';

const view = (fields: Record<string, unknown>): OperationView => ({
  operation_id: 'id',
  status: 'confirmed',
  network: 'base',
  tx: null,
  created_at: '',
  ...fields,
});

describe('read groups', () => {
  it('are one group per EVM address in any letter case, case-sensitive on Solana', () => {
    expect(groupOf({ network: 'base' }, '0xAbC')).toBe(groupOf({ network: 'base' }, '0xabc'));
    expect(groupOf({ network: 'solana' }, 'AbC')).not.toBe(groupOf({ network: 'solana' }, 'abc'));
    expect(groupOf({ network: 'base' }, '0xabc')).not.toBe(
      groupOf({ network: 'polygon' }, '0xabc'),
    );
  });

  it("name a settled operation's addresses and its network's balances", () => {
    const transfer = view({
      kind: 'nft.transfer',
      mint_address: '0xC0',
      token_id: '1',
      from: '0xF0',
      recipient: '0xR0',
    });
    expect(settledGroups(transfer).sort()).toEqual(
      [balancesGroup('base'), 'base|0xc0', 'base|0xf0', 'base|0xr0'].sort(),
    );
    expect(settledGroups(view({ kind: 'nft.create', mint_address: null }))).toEqual([
      balancesGroup('base'),
    ]);
  });
});
