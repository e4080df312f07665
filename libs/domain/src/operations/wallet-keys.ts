import { Injectable } from '@nestjs/common';
import {
  ed25519Signer,
  localEvmKey,
  localSolanaKey,
  tokenEvmKey,
  tokenSolanaKey,
  type EvmKey,
  type SolanaKey,
} from '@app/chains';
import type { ChainFamily } from '@app/config';
import { ManagedWalletRepository, type ManagedWalletEntity } from '@app/database';
import { SecretBox } from '../security/secret-box';
import { SigningToken } from '../security/signing-token';

/**
 * An account's managed wallet key for the moment of signing, wherever it is held: sealed here
 * (decrypted, used, and wiped after; never cached) or in the PKCS#11 token (which signs; its
 * bytes never come out). The signing itself is the caller's, through the key's interface.
 */
@Injectable()
export class WalletKeys {
  /**
   * Reads of a wallet's row under way, by account and family: signings that ask at the same
   * moment share one read (a Solana operation signs alone, each a read of its own otherwise: a
   * quarter of a Solana mint's statements). Nothing is kept once the read is answered.
   */
  private readonly reading = new Map<string, Promise<ManagedWalletEntity | null>>();

  constructor(
    private readonly wallets: ManagedWalletRepository,
    private readonly secretBox: SecretBox,
    private readonly signingToken: SigningToken,
  ) {}

  withEvmKey<T>(accountId: string, use: (key: EvmKey) => Promise<T>): Promise<T> {
    return this.withKey(
      accountId,
      'evm',
      (wallet, id) => tokenEvmKey(this.signingToken.token, id, wallet.address),
      (secret, wallet) => localEvmKey(secret, wallet.address),
      use,
    );
  }

  withSolanaKey<T>(accountId: string, use: (key: SolanaKey) => Promise<T>): Promise<T> {
    return this.withKey(
      accountId,
      'solana',
      (wallet, id) => tokenSolanaKey(this.signingToken.token, id, wallet.address),
      (secret) => localSolanaKey(ed25519Signer(secret)),
      use,
    );
  }

  private async withKey<K, T>(
    accountId: string,
    family: ChainFamily,
    held: (wallet: ManagedWalletEntity, tokenKeyId: string) => K,
    opened: (secret: Uint8Array, wallet: ManagedWalletEntity) => K,
    use: (key: K) => Promise<T>,
  ): Promise<T> {
    const wallet = await this.walletOf(accountId, family);
    if (!wallet) throw new Error(`Account ${accountId} has no managed ${family} wallet`);
    if (wallet.tokenKeyId) return use(held(wallet, wallet.tokenKeyId));
    const secret = openWalletSecret(this.secretBox, wallet);
    try {
      return await use(opened(secret, wallet));
    } finally {
      secret.fill(0);
    }
  }

  private walletOf(accountId: string, family: ChainFamily): Promise<ManagedWalletEntity | null> {
    const key = `${accountId}|${family}`;
    let read = this.reading.get(key);
    if (!read) {
      read = this.wallets.findForAccount(accountId, family).finally(() => this.reading.delete(key));
      this.reading.set(key, read);
    }
    return read;
  }
}

/** A local wallet's key: under its data key, or (sealed before data keys) the master key. */
export function openWalletSecret(box: SecretBox, wallet: ManagedWalletEntity): Buffer {
  const keyId = wallet.secretKeyId!;
  const ciphertext = wallet.secretCiphertext!;
  return wallet.dataKey
    ? box.openEnveloped({ ciphertext, wrappedKey: wallet.dataKey, keyId }, wallet.address)
    : box.open({ ciphertext, keyId }, wallet.address);
}
