import bs58 from 'bs58';
import { RpcError, RpcErrorCode } from './rpc.errors';

const COMMITMENTS = new Set([
  'processed',
  'confirmed',
  'finalized',
  'recent',
  'single',
  'singleGossip',
  'root',
  'max',
]);

export type RpcConfig = Record<string, unknown>;

export function requiredParam(params: unknown[], index: number, name: string): unknown {
  if (params.length <= index || params[index] === undefined) {
    throw RpcError.invalidParams(
      `Invalid params: missing parameter \`${name}\` (position ${index}).`,
    );
  }
  return params[index];
}

export function stringParam(params: unknown[], index: number, name: string): string {
  const value = requiredParam(params, index, name);
  if (typeof value !== 'string')
    throw RpcError.invalidParams(`Invalid params: \`${name}\` must be a string.`);
  return value;
}

export function pubkeyParam(params: unknown[], index: number, name = 'pubkey'): string {
  return asPubkey(stringParam(params, index, name));
}

export function asPubkey(value: unknown): string {
  if (typeof value !== 'string') throw RpcError.invalidParams('Invalid param: Invalid');
  return decodeFixed(value, 32) ? value : fail('Invalid param: Invalid');
}

export function signatureParam(value: unknown): string {
  if (typeof value !== 'string') throw RpcError.invalidParams('Invalid param: Invalid');
  return decodeFixed(value, 64) ? value : fail('Invalid param: Invalid');
}

export function u64Param(params: unknown[], index: number, name: string): number {
  const value = requiredParam(params, index, name);
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw RpcError.invalidParams(`Invalid params: \`${name}\` must be a non-negative integer.`);
  }
  return value;
}

/** The optional config object at `index`; validates `commitment` and `minContextSlot`. */
export function configParam(params: unknown[], index: number, currentSlot: number): RpcConfig {
  const value = params[index];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw RpcError.invalidParams(
      `Invalid params: configuration (position ${index}) must be an object.`,
    );
  }
  const config = value as RpcConfig;
  if (config.commitment !== undefined && !COMMITMENTS.has(config.commitment as string)) {
    throw RpcError.invalidParams(
      `Invalid params: unknown commitment ${describe(config.commitment)}.`,
    );
  }
  const minContextSlot = config.minContextSlot;
  if (typeof minContextSlot === 'number' && minContextSlot > currentSlot) {
    throw new RpcError(
      RpcErrorCode.minContextSlotNotReached,
      'Minimum context slot has not been reached',
      {
        contextSlot: currentSlot,
      },
    );
  }
  return config;
}

function decodeFixed(value: string, length: number): boolean {
  try {
    return bs58.decode(value).length === length;
  } catch {
    return false;
  }
}

function fail(message: string): never {
  throw RpcError.invalidParams(message);
}

/** A parameter value for an error message. */
export function describe(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}
