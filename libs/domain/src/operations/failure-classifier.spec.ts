import { Interface, makeError } from 'ethers';
import { ReplyError } from 'ioredis';
import { QueryFailedError } from 'typeorm';
import { AppError } from '@app/common';
import { RpcUnavailable, SolanaRpcError, SolanaTransportError } from '@app/chains';
import { classifyFailure } from './failure-classifier';
import { RetryLater } from './retry-later';

const token = new Interface(['function mint(address to, uint256 amount)']);
const RECIPIENT = '0x' + '11'.repeat(20);

function thrown(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

function systemError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('classifyFailure', () => {
  describe('deterministic: running again cannot change it', () => {
    it('keeps a definitive AppError as the operation error', () => {
      const conflict = AppError.conflict('The collection has reached its max supply (3).');
      expect(classifyFailure(conflict)).toEqual({ kind: 'deterministic', error: conflict });
    });

    it('turns an ethers encoding error into a short 400 without its payload', () => {
      const error = thrown(() => token.encodeFunctionData('mint', [RECIPIENT, 2n ** 256n]));
      const verdict = classifyFailure(error);
      expect(verdict).toEqual({ kind: 'deterministic', error: expect.any(AppError) });
      if (verdict.kind !== 'deterministic') return;
      expect(verdict.error.code).toBe('BAD_REQUEST');
      expect(verdict.error.message).toBe(
        'Invalid request body. The transaction could not be encoded: value out-of-bounds (amount).',
      );
    });

    it.each([
      ['NUMERIC_FAULT', makeError('overflow', 'NUMERIC_FAULT', { operation: 'x', fault: 'y' })],
      [
        'BUFFER_OVERRUN',
        makeError('data out-of-bounds', 'BUFFER_OVERRUN', {
          buffer: new Uint8Array(),
          length: 1,
          offset: 2,
        }),
      ],
      [
        'INVALID_ARGUMENT',
        makeError('invalid address', 'INVALID_ARGUMENT', {
          argument: 'to',
          value: 'x'.repeat(100_000),
        }),
      ],
    ])('ethers %s', (_code, error) => {
      const verdict = classifyFailure(error);
      expect(verdict.kind).toBe('deterministic');
      if (verdict.kind === 'deterministic') expect(verdict.error.message.length).toBeLessThan(300);
    });

    it('a value beyond u64 (RangeError), a BigInt of a decimal (SyntaxError), a TypeError', () => {
      const overflow = thrown(() => Buffer.alloc(8).writeBigUInt64LE(2n ** 64n));
      const decimal = thrown(() => BigInt('1.5'));
      for (const error of [overflow, decimal, new TypeError('Cannot mix BigInt and other types')]) {
        const verdict = classifyFailure(error);
        expect(verdict.kind).toBe('deterministic');
        if (verdict.kind !== 'deterministic') continue;
        expect(verdict.error.message).toMatch(
          /^Invalid request body\. The transaction could not be encoded: /,
        );
      }
    });
  });

  describe('transient: a fault of the moment', () => {
    it.each([
      ['RetryLater', new RetryLater('No receipt for 0xabc yet'), 'No receipt for 0xabc yet'],
      ['RpcUnavailable', new RpcUnavailable('base'), 'The base RPC did not answer; try again.'],
      [
        'a 503 AppError',
        new AppError('SERVICE_UNAVAILABLE', 'Postgres is unreachable.'),
        'Postgres is unreachable.',
      ],
      [
        'SolanaTransportError',
        new SolanaTransportError('getLatestBlockhash: connect ECONNREFUSED 10.1.2.3:8899'),
        'The Solana RPC could not be reached.',
      ],
      [
        'SolanaRpcError',
        new SolanaRpcError(-32005, 'Node is behind by 42 slots', null),
        'The Solana RPC answered with error -32005: Node is behind by 42 slots',
      ],
      [
        'SolanaRpcError carrying JSON',
        new SolanaRpcError(-32603, 'Internal error: {"InstructionError":[2,"X"]}\nmore', null),
        'The Solana RPC answered with error -32603: Internal error',
      ],
      [
        'SolanaRpcError with nothing plain to say',
        new SolanaRpcError(-32603, '{"err":1}', null),
        'The Solana RPC answered with error -32603.',
      ],
    ])('%s', (_name, error, reason) => {
      expect(classifyFailure(error)).toEqual({ kind: 'transient', reason });
    });

    it('connection errors, also wrapped, without the host they name', () => {
      const reset = systemError('ECONNRESET', 'connect ECONNRESET 10.1.2.3:8545');
      expect(classifyFailure(reset)).toEqual({
        kind: 'transient',
        reason: 'A connection failed (ECONNRESET).',
      });
      // fetch's TypeError carries the connection failure as its cause.
      const fetchFailed = new TypeError('fetch failed', { cause: reset });
      expect(classifyFailure(fetchFailed)).toEqual(classifyFailure(reset));
      const dns = systemError('EAI_AGAIN', 'getaddrinfo EAI_AGAIN rpc.example');
      expect(classifyFailure(dns).kind).toBe('transient');
      const undici = new TypeError('fetch failed', {
        cause: systemError('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error'),
      });
      expect(classifyFailure(undici).kind).toBe('transient');
    });

    it('ethers network faults and timeouts', () => {
      for (const code of ['NETWORK_ERROR', 'TIMEOUT', 'SERVER_ERROR', 'UNKNOWN_ERROR'] as const) {
        const error = makeError('request failed', code);
        expect(classifyFailure(error)).toEqual({
          kind: 'transient',
          reason: `The RPC call failed (${code}).`,
        });
      }
      expect(classifyFailure(new DOMException('aborted', 'TimeoutError')).kind).toBe('transient');
    });

    it('Postgres and Redis errors', () => {
      const terminated = systemError(
        '57P01',
        'terminating connection due to administrator command',
      );
      expect(classifyFailure(terminated)).toEqual({
        kind: 'transient',
        reason: 'The database was unavailable (57P01).',
      });
      const readOnly = new QueryFailedError(
        'INSERT',
        [],
        systemError('25006', 'cannot execute INSERT in a read-only transaction'),
      );
      expect(classifyFailure(readOnly)).toEqual({
        kind: 'transient',
        reason: 'The database was unavailable (25006).',
      });
      const lost = new QueryFailedError('SELECT 1', [], systemError('08006', 'connection failure'));
      expect(classifyFailure(lost).kind).toBe('transient');
      expect(classifyFailure(new Error('Connection terminated unexpectedly'))).toEqual({
        kind: 'transient',
        reason: 'The database was unavailable.',
      });
      const cancelled = systemError('57014', 'canceling statement due to statement timeout');
      expect(classifyFailure(cancelled).kind).toBe('transient');
      expect(classifyFailure(new ReplyError('LOADING Redis is loading the dataset')).kind).toBe(
        'transient',
      );
      expect(classifyFailure(new Error('Connection is closed.')).kind).toBe('transient');
    });

    it('when unsure: an unknown error, a garbled JSON answer, a thrown non-error', () => {
      const garbled = thrown(() => JSON.parse('<html>'));
      for (const error of [new Error('something odd'), garbled, 'a string', undefined]) {
        expect(classifyFailure(error).kind).toBe('transient');
      }
      // Marked unrecognised: the runner counts it, so it can be found and taught.
      expect(classifyFailure(new Error('x'.repeat(100_000)))).toEqual({
        kind: 'transient',
        reason: 'Unexpected error (Error).',
        unrecognised: true,
      });
    });
  });
});
