/** The conventional burn address: nobody holds its key (by its shape, nobody can find it). */
const DEAD = '0x000000000000000000000000000000000000dEaD';
/**
 * Addresses at or below this one are the zero address and the precompiles (0x01-0x11 today,
 * 0x100 for P-256 on some chains, the rest reserved for more): code without a key, nothing sent
 * to them can be moved again.
 */
const LAST_RESERVED = 0x1ffn;

/**
 * What a checksummed EVM address is when assets sent to it are lost ("the zero address"), or
 * null when nothing is known against it. The asset's own contract is the caller's to check: it
 * depends on the asset.
 */
export function evmLostRecipient(address: string): string | null {
  const value = BigInt(address);
  if (value === 0n) return 'the zero address';
  if (value <= LAST_RESERVED) return 'a precompile (reserved) address';
  if (address === DEAD) return 'the conventional burn address';
  return null;
}
