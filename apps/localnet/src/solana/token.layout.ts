import bs58 from 'bs58';

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';

const MINT_SIZE = 82;
const ACCOUNT_SIZE = 165;
const ACCOUNT_TYPE_MINT = 1;
const ACCOUNT_TYPE_ACCOUNT = 2;
const ACCOUNT_STATES = ['uninitialized', 'initialized', 'frozen'] as const;

export interface UiTokenAmount {
  amount: string;
  decimals: number;
  uiAmount: number | null;
  uiAmountString: string;
}

export interface TokenAccountFields {
  mint: string;
  owner: string;
  amount: bigint;
  delegate: string | null;
  state: (typeof ACCOUNT_STATES)[number];
  isNative: bigint | null;
  delegatedAmount: bigint;
  closeAuthority: string | null;
}

export interface MintFields {
  mintAuthority: string | null;
  supply: bigint;
  decimals: number;
  isInitialized: boolean;
  freezeAuthority: string | null;
}

export function isTokenProgram(owner: string): boolean {
  return owner === TOKEN_PROGRAM || owner === TOKEN_2022_PROGRAM;
}

export function programName(owner: string): 'spl-token' | 'spl-token-2022' {
  return owner === TOKEN_2022_PROGRAM ? 'spl-token-2022' : 'spl-token';
}

export function isTokenAccountData(data: Uint8Array): boolean {
  return (
    data.length === ACCOUNT_SIZE ||
    (data.length > ACCOUNT_SIZE && data[ACCOUNT_SIZE] === ACCOUNT_TYPE_ACCOUNT)
  );
}

export function isMintData(data: Uint8Array): boolean {
  return (
    data.length === MINT_SIZE ||
    (data.length > ACCOUNT_SIZE && data[ACCOUNT_SIZE] === ACCOUNT_TYPE_MINT)
  );
}

export function readTokenAccount(data: Uint8Array): TokenAccountFields | undefined {
  if (!isTokenAccountData(data)) return undefined;
  const view = viewOf(data);
  const state = ACCOUNT_STATES[data[108]] ?? 'uninitialized';
  if (state === 'uninitialized') return undefined;
  return {
    mint: key(data, 0),
    owner: key(data, 32),
    amount: view.getBigUint64(64, true),
    delegate: optionalKey(data, view, 72),
    state,
    isNative: view.getUint32(109, true) === 1 ? view.getBigUint64(113, true) : null,
    delegatedAmount: view.getBigUint64(121, true),
    closeAuthority: optionalKey(data, view, 129),
  };
}

export function readMint(data: Uint8Array): MintFields | undefined {
  if (!isMintData(data)) return undefined;
  const view = viewOf(data);
  if (data[45] !== 1) return undefined;
  return {
    mintAuthority: optionalKey(data, view, 0),
    supply: view.getBigUint64(36, true),
    decimals: data[44],
    isInitialized: true,
    freezeAuthority: optionalKey(data, view, 46),
  };
}

/** Decimals at offset 44 of a mint, without a full parse (hot path: token balances per transaction). */
export function readMintDecimals(data: Uint8Array): number | undefined {
  return isMintData(data) && data[45] === 1 ? data[44] : undefined;
}

export function uiTokenAmount(amount: bigint, decimals: number): UiTokenAmount {
  const text = amount.toString();
  let uiAmountString = text;
  if (decimals > 0) {
    const padded = text.padStart(decimals + 1, '0');
    const whole = padded.slice(0, padded.length - decimals);
    const fraction = padded.slice(padded.length - decimals).replace(/0+$/, '');
    uiAmountString = fraction ? `${whole}.${fraction}` : whole;
  }
  return { amount: text, decimals, uiAmount: Number(uiAmountString), uiAmountString };
}

export interface ParsedExtension {
  extension: string;
  state?: Record<string, unknown>;
}

const EXTENSION_NAMES: Record<number, string> = {
  1: 'transferFeeConfig',
  2: 'transferFeeAmount',
  3: 'mintCloseAuthority',
  4: 'confidentialTransferMint',
  5: 'confidentialTransferAccount',
  6: 'defaultAccountState',
  7: 'immutableOwner',
  8: 'memoTransfer',
  9: 'nonTransferable',
  10: 'interestBearingConfig',
  11: 'cpiGuard',
  12: 'permanentDelegate',
  13: 'nonTransferableAccount',
  14: 'transferHook',
  15: 'transferHookAccount',
  16: 'confidentialTransferFeeConfig',
  17: 'confidentialTransferFeeAmount',
  18: 'metadataPointer',
  19: 'tokenMetadata',
  20: 'groupPointer',
  21: 'tokenGroup',
  22: 'groupMemberPointer',
  23: 'tokenGroupMember',
  24: 'confidentialMintBurn',
  25: 'scaledUiAmountConfig',
  26: 'pausableConfig',
  27: 'pausableAccount',
};

/** Token-2022 TLV extensions, in the shape `jsonParsed` uses; unknown layouts are named only. */
export function readExtensions(data: Uint8Array): ParsedExtension[] {
  const extensions: ParsedExtension[] = [];
  if (data.length <= ACCOUNT_SIZE + 1) return extensions;
  const view = viewOf(data);
  let offset = ACCOUNT_SIZE + 1;
  while (offset + 4 <= data.length) {
    const type = view.getUint16(offset, true);
    const length = view.getUint16(offset + 2, true);
    if (type === 0) break;
    const value = data.subarray(offset + 4, offset + 4 + length);
    extensions.push(parseExtension(type, value));
    offset += 4 + length;
  }
  return extensions;
}

function parseExtension(type: number, value: Uint8Array): ParsedExtension {
  const extension = EXTENSION_NAMES[type] ?? 'unparseableExtension';
  const view = viewOf(value);
  try {
    switch (type) {
      case 3:
        return { extension, state: { closeAuthority: nonZeroKey(value, 0) } };
      case 7:
      case 9:
      case 13:
      case 15:
        return { extension };
      case 12:
        return { extension, state: { delegate: nonZeroKey(value, 0) } };
      case 18:
        return {
          extension,
          state: { authority: nonZeroKey(value, 0), metadataAddress: nonZeroKey(value, 32) },
        };
      case 19:
        return { extension, state: readTokenMetadata(value) };
      case 20:
        return {
          extension,
          state: { authority: nonZeroKey(value, 0), groupAddress: nonZeroKey(value, 32) },
        };
      case 21:
        return {
          extension,
          state: {
            updateAuthority: nonZeroKey(value, 0),
            mint: key(value, 32),
            size: Number(view.getBigUint64(64, true)),
            maxSize: Number(view.getBigUint64(72, true)),
          },
        };
      case 22:
        return {
          extension,
          state: { authority: nonZeroKey(value, 0), memberAddress: nonZeroKey(value, 32) },
        };
      case 23:
        return {
          extension,
          state: {
            mint: key(value, 0),
            group: key(value, 32),
            memberNumber: Number(view.getBigUint64(64, true)),
          },
        };
      default:
        return { extension: EXTENSION_NAMES[type] ? extension : 'unparseableExtension' };
    }
  } catch {
    return { extension: 'unparseableExtension' };
  }
}

function readTokenMetadata(value: Uint8Array): Record<string, unknown> {
  const view = viewOf(value);
  let offset = 64;
  const readString = (): string => {
    const length = view.getUint32(offset, true);
    const text = Buffer.from(value.subarray(offset + 4, offset + 4 + length)).toString('utf8');
    offset += 4 + length;
    return text;
  };
  const name = readString();
  const symbol = readString();
  const uri = readString();
  const count = view.getUint32(offset, true);
  offset += 4;
  const additionalMetadata: [string, string][] = [];
  for (let i = 0; i < count; i++) additionalMetadata.push([readString(), readString()]);
  return {
    updateAuthority: nonZeroKey(value, 0),
    mint: key(value, 32),
    name,
    symbol,
    uri,
    additionalMetadata,
  };
}

function viewOf(data: Uint8Array): DataView {
  return new DataView(data.buffer, data.byteOffset, data.byteLength);
}

function key(data: Uint8Array, offset: number): string {
  return bs58.encode(data.subarray(offset, offset + 32));
}

function nonZeroKey(data: Uint8Array, offset: number): string | null {
  const bytes = data.subarray(offset, offset + 32);
  return bytes.some((b) => b !== 0) ? bs58.encode(bytes) : null;
}

/** A COption<Pubkey>: a u32 tag (1 = Some) followed by the key. */
function optionalKey(data: Uint8Array, view: DataView, offset: number): string | null {
  return view.getUint32(offset, true) === 1 ? key(data, offset + 4) : null;
}
