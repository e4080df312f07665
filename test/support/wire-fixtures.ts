/**
 * Stand-ins for signed transactions in the database's tests: valid wire text (EVM `0x` hex,
 * Solana base64), which `transactions` stores as bytes, that reads back as the label it was
 * made from.
 */
export const evmWire = (label: string): string => `0x${Buffer.from(label).toString('hex')}`;

export const solanaWire = (label: string): string => Buffer.from(label).toString('base64');
