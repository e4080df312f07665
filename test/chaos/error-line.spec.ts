import { errorLine } from './error-line';

describe('errorLine', () => {
  it('does not name the error twice when the message begins with its name', () => {
    expect(
      errorLine({ error: 'Insufficient funds', message: 'Insufficient funds: 0xab holds 0 ETH' }),
    ).toBe('Insufficient funds: 0xab holds 0 ETH');
  });

  it('joins name and message otherwise, and gives the name alone without a message', () => {
    expect(errorLine({ error: 'Bad request', message: 'amount must be positive' })).toBe(
      'Bad request: amount must be positive',
    );
    expect(errorLine({ error: 'Conflict', message: null })).toBe('Conflict');
  });
});
