import { ChainRejection, nodeRefusal, plainNodeText } from './chain-rejection';

describe('plainNodeText', () => {
  it('keeps words, drops JSON, later lines and what is not printable', () => {
    expect(plainNodeText('insufficient funds for gas * price + value: have 0 want 21000')).toBe(
      'insufficient funds for gas * price + value: have 0 want 21000',
    );
    expect(plainNodeText('execution reverted: {"code":3,"data":"0x08c379a0"}')).toBe(
      'execution reverted',
    );
    expect(plainNodeText('bad tx\nstack: at foo (/srv/node.js:1)')).toBe('bad tx');
    expect(plainNodeText('nul\u0000 and \u202e bidi')).toBe('nul and bidi');
    expect(plainNodeText('[1,2,3]')).toBe('');
  });

  it('is bounded', () => {
    expect(plainNodeText('a'.repeat(10_000)).length).toBeLessThanOrEqual(160);
  });
});

describe('nodeRefusal', () => {
  it('is a 502 in words, with what the node said kept whole as the detail', () => {
    const said = 'invalid transaction: {"InstructionError":[2,"IncorrectProgramId"]}';
    const error = nodeRefusal('solana', said);
    expect(error).toBeInstanceOf(ChainRejection);
    expect(error.code).toBe('BAD_GATEWAY');
    expect(error.message).toBe('The solana node refused the transaction: invalid transaction.');
    expect(error.detail).toBe(said);
  });

  it('says only that it refused when nothing plain is left', () => {
    expect(nodeRefusal('base', '{"code":-32000}').message).toBe(
      'The base node refused the transaction.',
    );
  });

  it('bounds the detail kept for the log', () => {
    expect(nodeRefusal('base', 'x'.repeat(100_000)).detail.length).toBeLessThanOrEqual(1_000);
  });
});
