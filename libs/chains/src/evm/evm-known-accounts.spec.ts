import { Wallet, ZeroAddress, getAddress } from 'ethers';
import { evmLostRecipient } from './evm-known-accounts';

const at = (value: number): string => getAddress('0x' + value.toString(16).padStart(40, '0'));

describe('evmLostRecipient', () => {
  it('refuses the zero address', () => {
    expect(evmLostRecipient(ZeroAddress)).toBe('the zero address');
  });

  it.each([1, 9, 0x11, 0x100, 0x1ff])('refuses the precompile or reserved address %i', (value) => {
    expect(evmLostRecipient(at(value))).toBe('a precompile (reserved) address');
  });

  it('refuses the conventional burn address', () => {
    expect(evmLostRecipient(at(0xdead))).toBe('the conventional burn address');
  });

  it('knows nothing against a wallet or past the reserved range', () => {
    expect(evmLostRecipient(Wallet.createRandom().address)).toBeNull();
    expect(evmLostRecipient(at(0x200))).toBeNull();
  });
});
