import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { MasterKey } from '@app/config';

const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SealedSecret {
  /** iv || tag || ciphertext */
  ciphertext: Buffer;
  keyId: string;
}

/**
 * AES-256-GCM encryption of secrets at rest. The associated data binds a ciphertext to its owner
 * (e.g. the wallet address), so a ciphertext copied onto another row does not decrypt.
 */
export class SecretBox {
  constructor(
    private readonly activeKey: MasterKey,
    private readonly keys: ReadonlyMap<string, MasterKey>,
  ) {}

  seal(secret: Uint8Array, associatedData: string): SealedSecret {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.activeKey.key, iv);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const body = Buffer.concat([cipher.update(secret), cipher.final()]);
    return { ciphertext: Buffer.concat([iv, cipher.getAuthTag(), body]), keyId: this.activeKey.id };
  }

  open(sealed: SealedSecret, associatedData: string): Buffer {
    const key = this.keys.get(sealed.keyId);
    if (!key) throw new Error(`Master key "${sealed.keyId}" is not configured`);
    const iv = sealed.ciphertext.subarray(0, IV_BYTES);
    const tag = sealed.ciphertext.subarray(IV_BYTES, IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', key.key, iv);
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([
      decipher.update(sealed.ciphertext.subarray(IV_BYTES + TAG_BYTES)),
      decipher.final(),
    ]);
  }

  /** Whether a secret sealed under an older key should be sealed again under the active one. */
  needsRotation(sealed: SealedSecret): boolean {
    return sealed.keyId !== this.activeKey.id;
  }
}
