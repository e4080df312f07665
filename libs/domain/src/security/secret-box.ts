import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { MasterKey } from '@app/config';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const DATA_KEY_BYTES = 32;

export interface SealedSecret {
  /** iv || tag || ciphertext */
  ciphertext: Buffer;
  keyId: string;
}

/**
 * A secret under a data key of its own, the data key wrapped by a master key (envelope
 * encryption): a master key's rotation wraps the data keys again and leaves the secrets as they
 * are.
 */
export interface EnvelopedSecret {
  /** The secret under the data key: iv || tag || ciphertext. */
  ciphertext: Buffer;
  /** The data key under the master key `keyId`: iv || tag || ciphertext. */
  wrappedKey: Buffer;
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

  /** The master key new secrets are sealed under (MASTER_KEY_ID). */
  get activeKeyId(): string {
    return this.activeKey.id;
  }

  seal(secret: Uint8Array, associatedData: string): SealedSecret {
    return {
      ciphertext: encrypt(this.activeKey.key, secret, associatedData),
      keyId: this.activeKey.id,
    };
  }

  open(sealed: SealedSecret, associatedData: string): Buffer {
    return decrypt(this.masterKey(sealed.keyId), sealed.ciphertext, associatedData);
  }

  /** Sealed again under the active master key (the secret is in memory for the moment). */
  reseal(sealed: SealedSecret, associatedData: string): SealedSecret {
    const secret = this.open(sealed, associatedData);
    try {
      return this.seal(secret, associatedData);
    } finally {
      secret.fill(0);
    }
  }

  /** A secret under a fresh data key, wrapped by the active master key. */
  sealEnveloped(secret: Uint8Array, associatedData: string): EnvelopedSecret {
    const dataKey = randomBytes(DATA_KEY_BYTES);
    try {
      const wrapped = this.seal(dataKey, associatedData);
      return {
        ciphertext: encrypt(dataKey, secret, associatedData),
        wrappedKey: wrapped.ciphertext,
        keyId: wrapped.keyId,
      };
    } finally {
      dataKey.fill(0);
    }
  }

  openEnveloped(enveloped: EnvelopedSecret, associatedData: string): Buffer {
    const dataKey = this.open(
      { ciphertext: enveloped.wrappedKey, keyId: enveloped.keyId },
      associatedData,
    );
    try {
      return decrypt(dataKey, enveloped.ciphertext, associatedData);
    } finally {
      dataKey.fill(0);
    }
  }

  /** Whether a secret sealed under an older key should be sealed again under the active one. */
  needsRotation(sealed: SealedSecret): boolean {
    return sealed.keyId !== this.activeKey.id;
  }

  private masterKey(id: string): Buffer {
    const key = this.keys.get(id);
    if (!key) throw new Error(`Master key "${id}" is not configured`);
    return key.key;
  }
}

function encrypt(key: Buffer, plain: Uint8Array, associatedData: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

function decrypt(key: Buffer, sealed: Buffer, associatedData: string): Buffer {
  const iv = sealed.subarray(0, IV_BYTES);
  const tag = sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
}
