import { execFile } from 'node:child_process';
import { createPublicKey, verify } from 'node:crypto';
import { promisify } from 'node:util';
import { computeAddress, keccak256, recoverAddress, toUtf8Bytes } from 'ethers';
import { Pkcs11Token } from '@app/chains/signers/pkcs11-token';
import { freshSoftHsmToken, pkcs11SignerEnv, type SoftHsmToken } from '@test/support/softhsm';

/** `count` processes that each open and close `softhsm` `opens` times, all at once. */
async function openAtOnce(softhsm: SoftHsmToken, count: number, opens: number) {
  const runs = Array.from({ length: count }, () =>
    promisify(execFile)(
      process.execPath,
      ['-r', '@swc-node/register', 'test/support/pkcs11-open-loop.ts'],
      { env: { ...process.env, ...pkcs11SignerEnv(softhsm), OPENS: String(opens) } },
    ),
  );
  return (await Promise.all(runs)).map(
    ({ stdout }) => JSON.parse(stdout) as { opened: number; errors: string[] },
  );
}

/** Node's key object for a raw Ed25519 public key (hex). */
function ed25519PublicKey(hex: string) {
  const der = Buffer.concat([
    Buffer.from('302a300506032b6570032100', 'hex'),
    Buffer.from(hex, 'hex'),
  ]);
  return createPublicKey({ key: der, format: 'der', type: 'spki' });
}

describe('Pkcs11Token on SoftHSM2', () => {
  let softhsm: SoftHsmToken;
  let token: Pkcs11Token;

  beforeAll(async () => {
    softhsm = freshSoftHsmToken();
    token = await Pkcs11Token.open({ ...softhsm, sessions: 4 });
  });

  afterAll(() => {
    token?.close();
  });

  it('makes secp256k1 keys whose signatures recover to their Ethereum address, low-s', async () => {
    const key = await token.generate('secp256k1', 'wallet evm 1');
    const address = computeAddress(`0x${key.publicKey}`);
    for (let i = 0; i < 20; i++) {
      const digest = keccak256(toUtf8Bytes(`transaction ${i}`));
      const signature = await token.signDigest(key.id, digest);
      expect(recoverAddress(digest, signature)).toBe(address);
      // EIP-2: s in the lower half of the group's order.
      expect(
        BigInt(signature.s) <=
          BigInt('0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0'),
      ).toBe(true);
    }
  });

  it('makes Ed25519 keys whose signatures verify with Node', async () => {
    const key = await token.generate('ed25519', 'wallet solana 1');
    expect(key.publicKey).toHaveLength(64);
    const message = Buffer.from('a Solana message');
    const signature = await token.signMessage(key.id, message);
    expect(signature).toHaveLength(64);
    expect(verify(null, message, ed25519PublicKey(key.publicKey), signature)).toBe(true);
    expect(verify(null, Buffer.from('another'), ed25519PublicKey(key.publicKey), signature)).toBe(
      false,
    );
  });

  it('keeps private keys sensitive and never extractable', async () => {
    const key = await token.generate('secp256k1', 'guarded');
    expect(await token.privateKeyGuard(key.id)).toEqual({ sensitive: true, extractable: false });
  });

  it('destroys a key pair, and a second destroy finds nothing to do', async () => {
    const key = await token.generate('secp256k1', 'discarded');
    await token.destroy(key.id);
    await expect(token.publicKey(key.id)).rejects.toThrow(/holds no key/);
    await expect(token.signDigest(key.id, '0x' + '11'.repeat(32))).rejects.toThrow(/holds no key/);
    await expect(token.destroy(key.id)).resolves.toBeUndefined();
  });

  it('finds a key again by its id alone, as another process would', async () => {
    const key = await token.generate('ed25519', 'found again');
    token.close();
    token = await Pkcs11Token.open({ ...softhsm, sessions: 2 });
    expect(await token.publicKey(key.id)).toBe(key.publicKey);
    const signature = await token.signMessage(key.id, Buffer.from('after a restart'));
    expect(
      verify(null, Buffer.from('after a restart'), ed25519PublicKey(key.publicKey), signature),
    ).toBe(true);
  });

  it('signs many at once over its few sessions', async () => {
    const key = await token.generate('secp256k1', 'busy');
    const address = computeAddress(`0x${key.publicKey}`);
    const digests = Array.from({ length: 50 }, (_, i) => keccak256(toUtf8Bytes(`at once ${i}`)));
    const signatures = await Promise.all(digests.map((d) => token.signDigest(key.id, d)));
    signatures.forEach((signature, i) =>
      expect(recoverAddress(digests[i], signature)).toBe(address),
    );
  });

  // SoftHSM's file store rewrites the token's file at every login, and a process reading it
  // meanwhile (to find the token by label, or to log in) can get CKR_GENERAL_ERROR, no label or
  // CKR_USER_PIN_NOT_INITIALIZED: the API and the workers of a deployment start together on one
  // token, and a worker failed to start this way in CI.
  it('opens in several processes at once, each time', async () => {
    const shared = freshSoftHsmToken();
    const runs = await openAtOnce(shared, 4, 50);
    expect(runs.flatMap((run) => run.errors)).toEqual([]);
    expect(runs.map((run) => run.opened)).toEqual([50, 50, 50, 50]);
  }, 60_000);

  it('refuses an unknown key and a wrong PIN, saying which', async () => {
    await expect(token.signMessage('00'.repeat(16), Buffer.from('x'))).rejects.toThrow(
      /holds no key/,
    );
    token.close();
    await expect(Pkcs11Token.open({ ...softhsm, pin: '0000', sessions: 1 })).rejects.toThrow(
      new RegExp(`login to token "${softhsm.tokenLabel}" refused: CKR_PIN_INCORRECT`),
    );
    await expect(Pkcs11Token.open({ ...softhsm, tokenLabel: 'nope', sessions: 1 })).rejects.toThrow(
      /No PKCS#11 token labelled "nope"/,
    );
    token = await Pkcs11Token.open({ ...softhsm, sessions: 1 });
  });
});
