import { randomBytes } from 'node:crypto';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { Wallet } from 'ethers';
import { privateKeySightings } from '@test/support/private-key-scan';

/**
 * The scan the PKCS#11 suite runs over the database and the logs (pkcs11-signer.test.ts) can
 * fail: it finds a wallet's private key written in each encoding, alone or inside a longer
 * blob, and nothing else.
 */
describe('the scan for a wallet private key', () => {
  const evm = Wallet.createRandom();
  const solana = Keypair.generate();
  const wallets = { evm: evm.address, solana: solana.publicKey.toBase58() };
  const seed = Buffer.from(solana.secretKey.subarray(0, 32));
  const noise = (bytes: number) => randomBytes(bytes);

  it.each([
    ['the EVM key in hex', `{"msg":"signing with ${evm.privateKey}"}`, 'evm', 'hex'],
    [
      'the EVM key inside a longer hex blob, at an odd offset',
      `0${Buffer.concat([noise(7), Buffer.from(evm.privateKey.slice(2), 'hex'), noise(9)]).toString('hex')}`,
      'evm',
      'hex',
    ],
    [
      'the Solana secret key in base58',
      `secret=${bs58.encode(solana.secretKey)}`,
      'solana',
      'base58',
    ],
    [
      'the Solana seed inside base64',
      `{"blob":"${Buffer.concat([noise(5), seed, noise(11)]).toString('base64')}"}`,
      'solana',
      'base64',
    ],
  ] as const)('finds %s', (_, text, wallet, encoding) => {
    expect(privateKeySightings(wallets, [{ source: 'log', text }])).toContainEqual({
      wallet,
      source: 'log',
      encoding,
    });
  });

  it("finds nothing in other bytes, other wallets' keys or the public keys", () => {
    const others = [
      Wallet.createRandom().privateKey,
      bs58.encode(Keypair.generate().secretKey),
      noise(300).toString('hex'),
      noise(300).toString('base64'),
      wallets.evm,
      wallets.solana,
    ];
    expect(privateKeySightings(wallets, [{ source: 'log', text: others.join('\n') }])).toEqual([]);
  });
});
