import { awaitingFundsReason, insufficientFunds, unfundedPastDeadline } from './wallet-funds';

const base = { network: 'base' as const, currency: { symbol: 'ETH', decimals: 18 } };
const WALLET = '0x93D1E4f51D8452c17Cc912493053414F08d01515';

describe('wallet funds messages', () => {
  it('name the wallet, its balance and roughly what the write needs, as a 409', () => {
    const error = insufficientFunds({
      network: base,
      address: WALLET,
      balance: 12_345n,
      needed: 64_183_000_898_562n,
    });
    expect(error.status).toBe(409);
    expect(error.code).toBe('INSUFFICIENT_FUNDS');
    expect(error.message).toBe(
      `Insufficient funds: wallet ${WALLET} on base holds 0.000000000000012345 ETH; this write needs about 0.000064183000898562 ETH.`,
    );
  });

  it('say the node refused for funds when the balance read after the refusal covers the need', () => {
    const reason = awaitingFundsReason({
      network: base,
      address: WALLET,
      balance: 10n ** 18n,
      needed: 10n ** 14n,
    });
    expect(reason).toBe(
      `insufficient funds: the node refused it for lack of funds in wallet ${WALLET} on base, which holds 1.0 ETH now; this write needs about 0.0001 ETH.`,
    );
  });

  it('keep the waiting reason in the failure past the deadline, saying nothing was sent again', () => {
    const error = unfundedPastDeadline('insufficient funds: wallet w on base holds 0.0 ETH.');
    expect(error.code).toBe('INSUFFICIENT_FUNDS');
    expect(error.message).toMatch(/^insufficient funds: wallet w .* nothing was sent again\.$/);
  });
});
