import { randomBytes } from 'node:crypto';
import { SecretBox } from './secret-box';

const key = (id: string) => ({ id, key: randomBytes(32) });

describe('SecretBox', () => {
  const k1 = key('k1');
  const k2 = key('k2');

  it('round-trips a secret and never stores it in the clear', () => {
    const box = new SecretBox(k1, new Map([[k1.id, k1]]));
    const secret = randomBytes(64);
    const sealed = box.seal(secret, 'address-1');
    expect(sealed.keyId).toBe('k1');
    expect(sealed.ciphertext.includes(secret)).toBe(false);
    expect(box.open(sealed, 'address-1').equals(secret)).toBe(true);
  });

  it('refuses a ciphertext moved to another owner or tampered with', () => {
    const box = new SecretBox(k1, new Map([[k1.id, k1]]));
    const sealed = box.seal(randomBytes(32), 'address-1');
    expect(() => box.open(sealed, 'address-2')).toThrow();
    const tampered = Buffer.from(sealed.ciphertext);
    tampered[tampered.length - 1] ^= 1;
    expect(() => box.open({ ...sealed, ciphertext: tampered }, 'address-1')).toThrow();
  });

  it('decrypts under an old key after rotation and says the secret should be resealed', () => {
    const before = new SecretBox(k1, new Map([[k1.id, k1]]));
    const sealed = before.seal(Buffer.from('secret'), 'a');
    const after = new SecretBox(
      k2,
      new Map([
        [k1.id, k1],
        [k2.id, k2],
      ]),
    );
    expect(after.open(sealed, 'a').toString()).toBe('secret');
    expect(after.needsRotation(sealed)).toBe(true);
    expect(after.needsRotation(after.seal(Buffer.from('x'), 'a'))).toBe(false);
    expect(() => new SecretBox(k2, new Map([[k2.id, k2]])).open(sealed, 'a')).toThrow(/k1/);
  });

  const both = () =>
    new Map([
      [k1.id, k1],
      [k2.id, k2],
    ]);

  it('seals a secret under a data key of its own, wrapped by the master key', () => {
    const box = new SecretBox(k1, both());
    const secret = randomBytes(32);
    const enveloped = box.sealEnveloped(secret, 'address-1');
    expect(enveloped.keyId).toBe('k1');
    expect(enveloped.ciphertext.includes(secret)).toBe(false);
    expect(box.openEnveloped(enveloped, 'address-1').equals(secret)).toBe(true);
    expect(() => box.openEnveloped(enveloped, 'address-2')).toThrow();
    // The data key is not the master key: the secret does not open as if sealed directly.
    expect(() =>
      box.open({ ciphertext: enveloped.ciphertext, keyId: 'k1' }, 'address-1'),
    ).toThrow();
  });

  it('wraps a data key again under the new master key, the secret itself untouched', () => {
    const enveloped = new SecretBox(k1, both()).sealEnveloped(Buffer.from('seed'), 'a');
    const after = new SecretBox(k2, both());
    const rewrapped = after.reseal({ ciphertext: enveloped.wrappedKey, keyId: 'k1' }, 'a');
    expect(rewrapped.keyId).toBe('k2');
    const moved = { ...enveloped, wrappedKey: rewrapped.ciphertext, keyId: rewrapped.keyId };
    expect(new SecretBox(k2, new Map([[k2.id, k2]])).openEnveloped(moved, 'a').toString()).toBe(
      'seed',
    );
    expect(after.activeKeyId).toBe('k2');
  });
});
