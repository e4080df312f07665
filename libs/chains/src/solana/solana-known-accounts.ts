/**
 * Solana accounts that no one can spend from: programs (the runtime's builtins, the loaders, the
 * SPL programs the service and wallets use), sysvars and the native mints. Tokens or items sent
 * to a token account owned by one of them are lost: a program signs only for its own derived
 * addresses, a sysvar and a mint sign for nothing. The list is what is known to be fixed on
 * every cluster; a program someone deploys later is not in it (docs/api.md, "Recipients where assets are lost").
 */
export const SOLANA_KNOWN_PROGRAMS: Readonly<Record<string, string>> = {
  '11111111111111111111111111111111': 'the System program',
  TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA: 'the SPL Token program',
  TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb: 'the Token-2022 program',
  ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL: 'the Associated Token Account program',
  MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr: 'the Memo program',
  Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo: 'the Memo program (v1)',
  ComputeBudget111111111111111111111111111111: 'the Compute Budget program',
  BPFLoader1111111111111111111111111111111111: 'the BPF loader (deprecated)',
  BPFLoader2111111111111111111111111111111111: 'the BPF loader',
  BPFLoaderUpgradeab1e11111111111111111111111: 'the upgradeable BPF loader',
  LoaderV411111111111111111111111111111111111: 'the loader v4',
  NativeLoader1111111111111111111111111111111: 'the native loader',
  Vote111111111111111111111111111111111111111: 'the Vote program',
  Stake11111111111111111111111111111111111111: 'the Stake program',
  StakeConfig11111111111111111111111111111111: 'the Stake config account',
  Config1111111111111111111111111111111111111: 'the Config program',
  AddressLookupTab1e1111111111111111111111111: 'the Address Lookup Table program',
  Ed25519SigVerify111111111111111111111111111: 'the Ed25519 signature program',
  KeccakSecp256k11111111111111111111111111111: 'the Secp256k1 signature program',
  Secp256r1SigVerify1111111111111111111111111: 'the Secp256r1 signature program',
  Feature111111111111111111111111111111111111: 'the Feature Gate program',
  ZkE1Gama1Proof11111111111111111111111111111: 'the ZK ElGamal Proof program',
  ZkTokenProof1111111111111111111111111111111: 'the ZK Token Proof program',
  '1nc1nerator11111111111111111111111111111111': 'the incinerator (burn address)',
  metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s: 'the Metaplex Token Metadata program',
  BGUMAp9Gq7iTEuizy4pqaxsTyUCBK68MDfK752saRPUY: 'the Metaplex Bubblegum program',
  cmtDvXumGCrqC1Age74AVPhSRVXJMd8PJS91L8KbNCK: 'the Account Compression program',
  noopb9bkMVfRPU8AsbpTUg8AQkHtKwMYZiFUjNRtMmV: 'the Noop program',
  namesLPneVptA9Z5rqUDD9tMTWEJwofgaYwp8cawRkX: 'the Name Service program',
  So11111111111111111111111111111111111111112: 'the native SOL mint',
  '9pan9bMn5HatX4EJdBwg9VgCa7Uz5HL8N1m5D3NdXejP': 'the Token-2022 native SOL mint',
};

/**
 * Every sysvar's address starts so (SysvarC1ock…, SysvarRent…, Sysvar1nstructions…, and the
 * sysvar owner Sysvar1111…). A keypair's address starting so is a 58^-6 chance, and a vanity
 * one would be a trap anyway.
 */
const SYSVAR_PREFIX = 'Sysvar';

/** A known program's name ("the System program"), or null. `address`: canonical base58. */
export function solanaProgramName(address: string): string | null {
  return Object.hasOwn(SOLANA_KNOWN_PROGRAMS, address) ? SOLANA_KNOWN_PROGRAMS[address] : null;
}

/**
 * What a canonical Solana address is when assets sent to it are lost ("the System program",
 * "a sysvar"), or null when nothing is known against it.
 */
export function solanaLostRecipient(address: string): string | null {
  if (address.startsWith(SYSVAR_PREFIX)) return 'a sysvar';
  return solanaProgramName(address);
}
