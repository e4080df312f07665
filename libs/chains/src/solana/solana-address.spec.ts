import { Keypair, PublicKey } from '@solana/web3.js';
import { loadConfig } from '@app/config';
import { SolanaAdapter } from './solana.adapter';

describe("SolanaAdapter's normalizeAddress", () => {
  const adapter = new SolanaAdapter(loadConfig({}));

  it('writes a key as web3.js does', () => {
    for (let i = 0; i < 1_000; i++) {
      const key = Keypair.generate().publicKey;
      expect(adapter.normalizeAddress(key.toBase58())).toBe(new PublicKey(key).toBase58());
    }
    // Leading zero bytes are leading '1's.
    const zeros = new PublicKey(new Uint8Array(32)).toBase58();
    expect(adapter.normalizeAddress(zeros)).toBe('11111111111111111111111111111111');
  });

  it('refuses what is not 32 bytes of base58', () => {
    // A key written in 44 characters: one more is at least 58^44 > 2^256, 33 bytes. (Not a random
    // key: one written in 43 characters may take one more and still be 32 bytes, another key,
    // as 'Gtvo68vKLtFme22bwSQmJ1Bp3gehCq948y1B1kRdFse' does.)
    const key = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
    for (const bad of ['', '0x1234', `${key}1`, key.slice(0, 31), `${key.slice(0, 40)}O0Il`]) {
      expect(adapter.normalizeAddress(bad)).toBeNull();
    }
    // 33 bytes written in 44 characters.
    expect(adapter.normalizeAddress('1'.repeat(33))).toBeNull();
  });

  it('takes a 43-character key with a character more when that is 32 bytes too', () => {
    expect(adapter.normalizeAddress('Gtvo68vKLtFme22bwSQmJ1Bp3gehCq948y1B1kRdFse1')).toBe(
      'Gtvo68vKLtFme22bwSQmJ1Bp3gehCq948y1B1kRdFse1',
    );
  });
});
