import { evmReceiptOf } from './evm-receipt';

describe('evmReceiptOf', () => {
  const raw = {
    transactionHash: '0xabc',
    blockNumber: '0x1f',
    blockHash: '0xdef',
    status: '0x1',
    contractAddress: null,
    logs: [{ address: '0x5fbdb2315678afecb367f032d93f642f64180aa3', topics: ['0x01', '0x02'] }],
  };

  it('reads the quantities of the node answer and keeps its logs as given', () => {
    expect(evmReceiptOf(raw)).toEqual({
      hash: '0xabc',
      blockNumber: 31,
      blockHash: '0xdef',
      status: 1,
      contractAddress: null,
      logs: [{ address: '0x5fbdb2315678afecb367f032d93f642f64180aa3', topics: ['0x01', '0x02'] }],
    });
    expect(evmReceiptOf({ ...raw, status: '0x0' }).status).toBe(0);
    expect(evmReceiptOf({ ...raw, status: undefined }).status).toBeNull();
  });

  it("checksums a deployment's contract address, as the API shows it", () => {
    const deployed = { ...raw, contractAddress: '0x5fbdb2315678afecb367f032d93f642f64180aa3' };
    expect(evmReceiptOf(deployed).contractAddress).toBe(
      '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    );
  });
});
