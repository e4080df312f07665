import { isLow, walletFundsTransition } from './wallet-funds-transition';

const at = (seconds: number) => new Date(seconds * 1000);

describe('isLow', () => {
  it('is below the threshold, not at it', () => {
    expect(isLow(99n, 100n)).toBe(true);
    expect(isLow(100n, 100n)).toBe(false);
    expect(isLow(101n, 100n)).toBe(false);
  });

  it('never holds with a threshold of 0', () => {
    expect(isLow(0n, 0n)).toBe(false);
  });
});

describe('walletFundsTransition', () => {
  it('announces a wallet falling low, and one coming back', () => {
    expect(walletFundsTransition({ low: false, checkedAt: at(1) }, at(2), true)).toEqual({
      store: true,
      event: 'wallet.balance_low',
    });
    expect(walletFundsTransition({ low: true, checkedAt: at(1) }, at(2), false)).toEqual({
      store: true,
      event: 'wallet.balance_restored',
    });
  });

  it('stores a reading that crosses nothing without an event', () => {
    expect(walletFundsTransition({ low: true, checkedAt: at(1) }, at(2), true)).toEqual({
      store: true,
      event: null,
    });
    expect(walletFundsTransition({ low: false, checkedAt: at(1) }, at(1), false)).toEqual({
      store: true,
      event: null,
    });
  });

  it('drops a reading older than the stored one, crossing or not', () => {
    expect(walletFundsTransition({ low: false, checkedAt: at(5) }, at(4), true)).toEqual({
      store: false,
      event: null,
    });
    expect(walletFundsTransition({ low: true, checkedAt: at(5) }, at(4), false)).toEqual({
      store: false,
      event: null,
    });
  });
});
