import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair, LAMPORTS_PER_SOL } from '@solana/web3.js';
import { TOKEN_2022_PROGRAM_ID, createMint, getMint } from '@solana/spl-token';
import { startSolanaRpc } from '@app/localnet';
import { airdrop, connect, letWebSocketIdle } from './solana-fixtures';

jest.setTimeout(30_000);

describe('Solana state in a data directory', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'localnet-solana-'));

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps accounts made through the RPC across a restart', async () => {
    const owner = Keypair.generate();
    const first = await startSolanaRpc({ port: 0, wsPort: 0, dataDir });
    const before = connect(first.rpcUrl, first.wsUrl);
    await airdrop(before, owner.publicKey, 3);
    const mint = await createMint(
      before,
      owner,
      owner.publicKey,
      null,
      2,
      undefined,
      {},
      TOKEN_2022_PROGRAM_ID,
    );
    const slotBefore = await before.getSlot();
    await letWebSocketIdle();
    await first.stop();

    const second = await startSolanaRpc({ port: 0, wsPort: 0, dataDir });
    try {
      const after = connect(second.rpcUrl, second.wsUrl);
      expect(await after.getBalance(owner.publicKey)).toBeLessThan(3 * LAMPORTS_PER_SOL);
      expect(await after.getBalance(owner.publicKey)).toBeGreaterThan(2.9 * LAMPORTS_PER_SOL);
      const restored = await getMint(after, mint, 'confirmed', TOKEN_2022_PROGRAM_ID);
      expect(restored.decimals).toBe(2);
      expect(restored.mintAuthority?.toBase58()).toBe(owner.publicKey.toBase58());
      expect(await after.getSlot()).toBeGreaterThan(slotBefore);
    } finally {
      await second.stop();
    }
  });

  it('starts clean without a data directory', async () => {
    const fresh = await startSolanaRpc({ port: 0, wsPort: 0 });
    try {
      const connection = connect(fresh.rpcUrl, fresh.wsUrl);
      expect(await connection.getTransactionCount()).toBe(0);
    } finally {
      await fresh.stop();
    }
  });
});
