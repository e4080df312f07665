import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalChains } from '@app/localnet';

jest.setTimeout(60_000);

const rpc = async (url: string, method: string, params: unknown[]) => {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await response.json()) as { result: unknown }).result;
};

describe('local chains with a data directory that does not exist yet', () => {
  it('create it, and the EVM chain state survives a restart', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'localnet-')), 'not', 'there', 'yet');
    const address = '0x00000000000000000000000000000000000000aa';
    const first = await startLocalChains({ evmPort: 0, solanaPort: 0, solanaWsPort: 0, dataDir });
    await rpc(first.evmRpcUrl, 'anvil_setBalance', [address, '0x2a']);
    await first.stop();
    expect(existsSync(join(dataDir, 'anvil-state.json'))).toBe(true);

    const second = await startLocalChains({ evmPort: 0, solanaPort: 0, solanaWsPort: 0, dataDir });
    try {
      expect(await rpc(second.evmRpcUrl, 'eth_getBalance', [address, 'latest'])).toBe('0x2a');
    } finally {
      await second.stop();
    }
  });
});
